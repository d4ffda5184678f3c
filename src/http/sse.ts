// The one SSE writer: every text/event-stream the server sends goes through sseStream, a turn's stream
// (Rebound's events or the UI message stream, sseResponse below) and the gateway's alike. It owns what
// every stream needs and none may do on its own:
//   - backpressure: what the client has not taken stays below a high-water mark (64 KB) in this queue,
//     and the producer waits (drained()) until the socket has taken it, so a reader costs the socket's
//     buffer, not the turn or the answer, however slowly it reads;
//   - a reader that takes nothing for READER_STALL_MS while data waits for it is closed, and its signal
//     aborts (a turn counts that as the reader leaving; the gateway aborts its upstream);
//   - `: keepalive` comments at most KEEPALIVE_MS apart (each after a random 75–100% of it), but not
//     to a client that has not taken what it was sent;
//   - a client disconnect (the body cancelled, or the request's signal) as the abort signal.
import type { TurnEvent } from '../vocabulary.ts';

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
} as const;

/** Bytes a stream holds for a client that has not taken them, beyond what the runtime's socket buffers. */
export const SSE_HIGH_WATER_BYTES = 64 * 1024;

export interface SseChannel {
  /** Queues text for the client; a tick's writes go out as one chunk once the tick is over. */
  write(text: string): void;
  /** Resolves once the client has room for more (what waits for it is below the high-water mark), or the stream is closed. */
  drained(): Promise<void>;
  /** Queues this tick's writes for the client now, not once the tick is over (the gateway: a read's output, a gated call, goes out at once). */
  flush(): void;
}

export interface SseStreamOptions {
  keepaliveMs: number;
  /** A reader that takes nothing for this long while data waits for it is closed (READER_STALL_MS). */
  stallMs: number;
  /** The request's own signal: some runtimes report a disconnect here rather than by cancelling the body. */
  requestSignal?: AbortSignal;
  /** Writes `: open` first, which flushes the headers at once (EventSource reports the connection open). */
  open?: boolean;
  highWaterBytes?: number;
}

/** Why a stream's signal aborted when the server closed it: the reader took nothing for stallMs. */
export class ReaderStalledError extends Error {
  constructor(stallMs: number) {
    super(`the reader took nothing for ${stallMs} ms while data waited for it: closed`);
    this.name = 'ReaderStalledError';
  }
}

/**
 * Runs `fn` once the current macrotask and its microtasks are done: setImmediate where the runtime has
 * it (Node, Bun), else setTimeout 0 (at least 1 ms on some runtimes, which is what setImmediate saves).
 */
const nextTurn: (fn: () => void) => void = typeof setImmediate === 'function' ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);

/**
 * Each keepalive comes after a random 75–100% of `keepaliveMs`, so a stream never waits longer than
 * that. A fixed interval would lock the streams opened or served in one busy moment into one phase for
 * good (timers that fire in one batch are re-armed from the same clock reading): with 2,000 streams
 * open, every keepalive fell due in the same few milliseconds and GET /health waited behind 2,000
 * socket writes (bench:stream). The jitter spreads them over a quarter of the interval again.
 */
const KEEPALIVE_JITTER = 0.25;

/**
 * The stream `run` writes to. It closes when `run` settles: normally when it resolves, with an error
 * (the client sees the connection fail) when it rejects. `signal` aborts when the client is gone or was
 * closed for taking nothing; `run` should then stop.
 */
export function sseStream(run: (out: SseChannel, signal: AbortSignal) => Promise<void>, options: SseStreamOptions): ReadableStream<Uint8Array> {
  const abort = new AbortController();
  const encoder = new TextEncoder();
  const highWater = options.highWaterBytes ?? SSE_HIGH_WATER_BYTES;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let pending: string[] = [];
  /** Characters in `pending`: written this tick, not queued yet. */
  let pendingChars = 0;
  let scheduled = false;
  let keepalive: ReturnType<typeof setTimeout> | undefined;
  let stall: ReturnType<typeof setTimeout> | undefined;
  /** When the client last took something, or found nothing waiting. */
  let lastProgress = Date.now();
  let waiters: Array<() => void> = [];

  const queued = () => highWater - (controller.desiredSize ?? 0);
  const wake = () => {
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  };
  /** The run has ended but the client has not taken everything: the stream closes once it has (pull), or the stall timer closes it. */
  let closing = false;
  const end = (error?: unknown, force = false) => {
    if (closed) return;
    if (error === undefined && !force && queued() > 0) {
      closing = true;
      return;
    }
    closed = true;
    clearTimeout(keepalive);
    clearTimeout(stall);
    options.requestSignal?.removeEventListener('abort', onRequestAbort);
    wake();
    try {
      if (error === undefined) controller.close();
      else controller.error(error);
    } catch {
      /* already errored by a cancel */
    }
  };
  const onRequestAbort = () => {
    abort.abort(new Error('client disconnected'));
    end(undefined, true);
  };

  // Writes made in the same tick are coalesced into one chunk: a model streaming fast yields many
  // deltas per network read, and one socket write per delta would dominate the CPU. The chunk goes out
  // as soon as the tick is over (nextTurn), not a timer's millisecond later.
  const flush = () => {
    scheduled = false;
    if (closed || pending.length === 0) return;
    const text = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    pendingChars = 0;
    if (queued() <= 0) lastProgress = Date.now();
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      end(undefined, true); // the consumer is gone
      return;
    }
    if (queued() > 0 && stall === undefined) armStall();
  };
  const write = (text: string) => {
    if (closed || text === '') return;
    pending.push(text);
    pendingChars += text.length;
    if (!scheduled) {
      scheduled = true;
      nextTurn(flush);
    }
  };
  const drained = (): Promise<void> => {
    // A tick's writes count too: past the mark they are queued now, and the writer waits for the client.
    if (pendingChars >= highWater) flush();
    if (closed || queued() + pendingChars < highWater) return Promise.resolve();
    return new Promise((resolve) => waiters.push(resolve));
  };

  // A reader with data waiting that takes nothing for stallMs is closed: its socket's buffer and this
  // queue are all it may hold, and not for ever.
  const armStall = () => {
    stall = setTimeout(
      () => {
        stall = undefined;
        if (closed || queued() <= 0) return;
        const idle = Date.now() - lastProgress;
        if (idle < options.stallMs) return armStall();
        const reason = new ReaderStalledError(options.stallMs);
        abort.abort(reason);
        end(reason);
      },
      Math.max(0, options.stallMs - (Date.now() - lastProgress)),
    );
    (stall as { unref?: () => void }).unref?.();
  };

  const armKeepalive = () => {
    keepalive = setTimeout(
      () => {
        if (closed) return;
        // Not to a client that has not taken what it was sent: it is not waiting for a sign of life.
        if (queued() <= 0) write(': keepalive\n\n');
        armKeepalive();
      },
      options.keepaliveMs * (1 - KEEPALIVE_JITTER * Math.random()),
    );
  };

  options.requestSignal?.addEventListener('abort', onRequestAbort, { once: true });
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        if (options.open) write(': open\n\n');
        armKeepalive();
        run({ write, drained, flush }, abort.signal).then(
          () => {
            flush();
            end();
          },
          (err: unknown) => {
            flush();
            end(err);
          },
        );
      },
      pull() {
        // The client took something (or there was nothing to take): it makes progress.
        lastProgress = Date.now();
        if (closing && queued() <= 0) end();
        else if (queued() < highWater) wake();
      },
      cancel() {
        abort.abort(new Error('client disconnected'));
        end(undefined, true);
      },
    },
    { highWaterMark: highWater, size: (chunk) => chunk.byteLength },
  );
}

export interface SseOptions extends SseStreamOptions {
  headers?: Record<string, string>;
  /** Writes one event as SSE text (default: `event:`, `id:` and `data:` lines); the UI message stream (ui-stream/) has its own. */
  frame?: Frame;
}

export type Frame = (event: TurnEvent, seq: number) => string;

const reboundFrame: Frame = (event, seq) => `event: ${event.event}\nid: ${seq}\ndata: ${JSON.stringify(event.data)}\n\n`;

/** Writes one event (its id in the turn's log) and resolves once the client has room for the next. */
export type Send = (event: TurnEvent, seq: number) => Promise<void>;

/** A turn's events as a text/event-stream response: each framed (Rebound's events, or `frame`'s), written through sseStream. */
export function sseResponse(run: (send: Send, signal: AbortSignal) => Promise<void>, options: SseOptions): Response {
  const frame = options.frame ?? reboundFrame;
  const body = sseStream(
    (out, signal) =>
      run((event, seq) => {
        out.write(frame(event, seq)); // an event a frame writer drops (nothing to show) costs no write
        return out.drained();
      }, signal),
    { ...options, open: true },
  );
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}
