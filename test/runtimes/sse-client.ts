// A raw SSE reader over fetch: unlike EventSource it sees comment lines (keepalives) and can POST with
// an Authorization header, so one reader serves every runtime identically.
import { parseBlock } from '../support/sse-client.ts';

export interface SseEvent {
  event: string;
  id: string | undefined;
  data: unknown;
  at: number;
}

export interface SseTranscript {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** Comment lines without the leading colon, e.g. "keepalive", with arrival times. */
  comments: Array<{ text: string; at: number }>;
  /** True when the reader stopped on purpose before the stream ended. */
  abandoned: boolean;
}

export async function readSse(
  url: string,
  init: RequestInit,
  options: { stopWhen?: (event: SseEvent, transcript: SseTranscript) => boolean; timeoutMs?: number } = {},
): Promise<SseTranscript> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`SSE stream ${url} not finished after ${options.timeoutMs ?? 30_000} ms`)), options.timeoutMs ?? 30_000);
  const started = Date.now();
  try {
    const res = await fetch(url, { ...init, signal: abort.signal });
    const transcript: SseTranscript = { status: res.status, headers: res.headers, events: [], comments: [], abandoned: false };
    if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      transcript.events.push({ event: '(body)', id: undefined, data: await res.text(), at: Date.now() - started });
      return transcript;
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const at = Date.now() - started;
        const { comments, event } = parseBlock(block);
        for (const text of comments) transcript.comments.push({ text, at });
        if (!event) continue;
        const parsed: SseEvent = { event: event.event, id: event.id, data: event.data, at };
        transcript.events.push(parsed);
        if (options.stopWhen?.(parsed, transcript)) {
          transcript.abandoned = true;
          // Cancelling the body closes the connection: the server sees a client disconnect.
          await reader.cancel();
          abort.abort();
          return transcript;
        }
      }
    }
    return transcript;
  } finally {
    clearTimeout(timer);
  }
}
