// Reading SSE in tests: a minimal parser for fetch responses (POST /v1/chat) that keeps comments,
// and a collector for the `eventsource` package (the GET stream as a browser would open it).
import { EventSource } from 'eventsource';

export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

export interface RawStream {
  events: SseEvent[];
  comments: string[];
  raw: string;
}

/** One SSE block (the text between blank lines): its comment lines, and its event if it has data. */
export function parseBlock(block: string): { comments: string[]; event?: { event: string; id?: string; data: any } } {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  const comments: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comments.push(line.slice(1).trim());
    else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  return data.length ? { comments, event: { event, id, data: JSON.parse(data.join('\n')) } } : { comments };
}

/** Parses a whole SSE body. */
export function parseSse(raw: string): RawStream {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  for (const block of raw.split(/\n\n/)) {
    if (!block.trim()) continue;
    const parsed = parseBlock(block);
    comments.push(...parsed.comments);
    if (parsed.event) events.push(parsed.event);
  }
  return { events, comments, raw };
}

/** POSTs to /v1/chat and reads the stream to its end. */
export async function chat(baseUrl: string, body: unknown, init: RequestInit = {}): Promise<RawStream & { status: number; headers: Headers }> {
  const res = await fetch(`${baseUrl}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    body: JSON.stringify(body),
    signal: init.signal,
  });
  const raw = await res.text();
  return { ...parseSse(res.headers.get('content-type')?.startsWith('text/event-stream') ? raw : ''), status: res.status, headers: res.headers };
}

const EVENT_NAMES = ['turn_start', 'text_delta', 'tool_call', 'tool_result', 'approval_required', 'forced_summary', 'agent_error', 'done'];

/** Opens the stream with the `eventsource` package and collects events until `done` (then closes, as the page does). */
export function collectWithEventSource(url: string, timeoutMs = 20_000): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const es = new EventSource(url);
    const timer = setTimeout(() => {
      es.close();
      reject(new Error(`no done event within ${timeoutMs} ms; got ${events.map((e) => e.event).join(',')}`));
    }, timeoutMs);
    for (const name of EVENT_NAMES) {
      es.addEventListener(name, (e) => {
        events.push({ event: name, id: e.lastEventId, data: JSON.parse(e.data) });
        if (name === 'done') {
          clearTimeout(timer);
          es.close();
          resolve(events);
        }
      });
    }
    es.onerror = (err) => {
      if (es.readyState === EventSource.CLOSED) {
        clearTimeout(timer);
        reject(new Error(`EventSource closed: ${(err as { message?: string }).message ?? 'error'}`));
      }
    };
  });
}

export function names(events: SseEvent[]): string[] {
  return events.map((e) => e.event);
}

/** Event names with consecutive text_delta collapsed, for order assertions. */
export function shape(events: SseEvent[]): string[] {
  return names(events).filter((n, i, all) => !(n === 'text_delta' && all[i - 1] === 'text_delta'));
}

export function textOf(events: SseEvent[]): string {
  return events
    .filter((e) => e.event === 'text_delta')
    .map((e) => e.data.text)
    .join('');
}

/** A stream read as it arrives: its events and comments so far, a wait for the event a test expects, and its end. */
export interface LiveStream {
  status: number;
  events: SseEvent[];
  comments: string[];
  /** The first event (from the start of the stream) that `match` accepts, once it has arrived. */
  until(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens a stream (POST /v1/chat with `init`, or a GET stream URL) and reads it in the background. */
export async function openStream(url: string, init: RequestInit = {}): Promise<LiveStream> {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const ended = (async () => {
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const parsed = parseBlock(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          comments.push(...parsed.comments);
          if (parsed.event) events.push(parsed.event);
          cut = buffer.indexOf('\n\n');
        }
        for (const wake of waiters) wake();
      }
    } catch {
      // closed by the test
    } finally {
      for (const wake of waiters) wake();
    }
  })();
  let over = false;
  void ended.then(() => {
    over = true;
  });
  return {
    status: res.status,
    events,
    comments,
    ended,
    close: () => controller.abort(),
    until: (match, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(match);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          } else if (over) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`the stream ended without it; got ${events.map((e) => e.event).join(',')}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`not within ${timeoutMs} ms; got ${events.map((e) => e.event).join(',')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
        void ended.then(check);
      }),
  };
}
