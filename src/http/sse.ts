// The one SSE writer: every text/event-stream the server sends goes through an SseStream, a turn's
// stream (Rebound's events or the UI message stream, sseResponse below) and the gateway's alike. It owns
// what every stream needs and none may do on its own:
//   - backpressure: what the client has not taken stays below a high-water mark (64 KB) in the sink,
//     and the producer waits (drained()) until the socket has taken it, so a reader costs the socket's
//     buffer, not the turn or the answer, however slowly it reads;
//   - a reader that takes nothing for READER_STALL_MS while data waits for it is closed, and its signal
//     aborts (a turn counts that as the reader leaving; the gateway aborts its upstream);
//   - `: keepalive` comments at most KEEPALIVE_MS apart (each after a random 75–100% of it), but not
//     to a client that has not taken what it was sent;
//   - a client disconnect (the body cancelled, the connection closed, or the request's signal) as the abort signal.
// A class, as Hono's StreamingApi (hono/utils/stream): the stream's state is its fields, what a producer
// and the runtime do to it are its methods. Where the bytes go is its sink (SseSink): a web
// ReadableStream on every runtime (WebSink), or on Node the ServerResponse itself (src/entries/node-sse.ts),
// which sends the headers with the first chunk in one write and skips the web stream's encode, enqueue
// and read of every chunk: the gateway's first byte measured ~0.3 ms nearer the bare proxies', a short
// request's CPU a fifth less (docs/benchmarks.md § The streaming paths at the physical limit).
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
 * Where an SseStream's text goes, and who tells it what the client does: a web ReadableStream
 * (`WebSink`, every runtime) or, on Node, the ServerResponse itself (src/entries/node-sse.ts). The
 * stream's state (coalescing, backpressure, the stall, keepalives, closing) is SseStream's alone; a
 * sink only carries bytes and reports.
 */
export interface SseSink {
  /** Called once, first: the sink reports to `stream` when the client took something (progress) or left (gone). */
  start(stream: SseSinkOwner, highWaterBytes: number): void;
  /**
   * Sends text on to the client; false when the client is gone (nothing more will be taken). `ending`:
   * the stream closes right after (SseStream's last text), so the sink may send it with the end.
   */
  send(text: string, ending?: boolean): boolean;
  /** Bytes sent that wait for the client past what the runtime takes in stride (0: the client keeps up). */
  queued(): number;
  /** Ends the response: normally (once the client has taken the rest), or with `error` (the client sees it fail). */
  close(error?: unknown): void;
  /** The HTTP response carrying the stream, with the status and headers (the route's `Response`). */
  response(status: number, headers: Record<string, string>): Response;
}

/** What a sink reports to its stream. */
export interface SseSinkOwner {
  /** The client took something, or there was nothing to take: it makes progress. */
  progress(): void;
  /** The client is gone (the body cancelled, the connection closed before the end). */
  gone(): void;
}

/** The stream as a web ReadableStream: the `Response` body on every runtime (the edge's only one). */
export class WebSink implements SseSink {
  body!: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private highWater = 0;

  start(stream: SseSinkOwner, highWaterBytes: number): void {
    this.highWater = highWaterBytes;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => stream.progress(),
        cancel: () => stream.gone(),
      },
      { highWaterMark: highWaterBytes, size: (chunk) => chunk.byteLength },
    );
  }

  send(text: string): boolean {
    try {
      this.controller.enqueue(encoder.encode(text));
      return true;
    } catch {
      return false; // the consumer is gone
    }
  }

  queued(): number {
    return this.highWater - (this.controller.desiredSize ?? 0);
  }

  close(error?: unknown): void {
    try {
      if (error === undefined) this.controller.close();
      else this.controller.error(error);
    } catch {
      /* already errored by a cancel */
    }
  }

  response(status: number, headers: Record<string, string>): Response {
    return new Response(this.body, { status, headers });
  }
}

const encoder = new TextEncoder();

/**
 * A stream `run` writes to, through `sink` (a web ReadableStream unless the runtime gives its own). It
 * closes when `run` settles: normally when it resolves, with an error (the client sees the connection
 * fail) when it rejects. `signal` aborts when the client is gone or was closed for taking nothing; `run`
 * should then stop.
 */
export class SseStream implements SseChannel, SseSinkOwner {
  private readonly abort = new AbortController();
  private readonly highWater: number;
  /** This tick's writes, not queued yet, and their length in characters. */
  private pending: string[] = [];
  private pendingChars = 0;
  /** A flush is due on the next turn of the event loop. */
  private scheduled = false;
  private closed = false;
  /** The run has ended but the client has not taken everything: the stream closes once it has (progress), or the stall timer closes it. */
  private closing = false;
  private keepalive: ReturnType<typeof setTimeout> | undefined;
  private stall: ReturnType<typeof setTimeout> | undefined;
  /** When the client last took something, or found nothing waiting. */
  private lastProgress = Date.now();
  /** Producers waiting in drained() for the client to make room. */
  private waiters: Array<() => void> = [];
  private readonly onRequestAbort = () => this.gone();
  private readonly flushTurn = () => {
    this.scheduled = false;
    this.flush();
  };

  private readonly options: SseStreamOptions;
  private readonly sink: SseSink;

  constructor(run: (out: SseChannel, signal: AbortSignal) => Promise<void>, options: SseStreamOptions, sink: SseSink = new WebSink()) {
    this.options = options;
    this.sink = sink;
    this.highWater = options.highWaterBytes ?? SSE_HIGH_WATER_BYTES;
    options.requestSignal?.addEventListener('abort', this.onRequestAbort, { once: true });
    sink.start(this, this.highWater);
    if (options.open) this.write(': open\n\n');
    this.armKeepalive();
    run(this, this.abort.signal).then(
      () => this.finish(),
      (err: unknown) => this.finish(err),
    );
  }

  /** The HTTP response carrying this stream (the sink's: a web `Response`, or on Node the response already being written). */
  response(status: number, headers: Record<string, string>): Response {
    return this.sink.response(status, headers);
  }

  write(text: string): void {
    if (this.closed || text === '') return;
    this.pending.push(text);
    this.pendingChars += text.length;
    // Writes made in the same tick are coalesced into one chunk: a model streaming fast yields many
    // deltas per network read, and one socket write per delta would dominate the CPU. The chunk goes out
    // as soon as the tick is over (nextTurn), not a timer's millisecond later.
    if (!this.scheduled) {
      this.scheduled = true;
      nextTurn(this.flushTurn);
    }
  }

  flush(): void {
    this.send(false);
  }

  /** This tick's writes to the sink; `ending`: the stream closes right after (finish). */
  private send(ending: boolean): void {
    if (this.closed || this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    if (this.sink.queued() <= 0) this.lastProgress = Date.now();
    if (!this.sink.send(text, ending)) {
      this.end(undefined, true); // the consumer is gone
      return;
    }
    if (this.sink.queued() > 0 && this.stall === undefined) this.armStall();
  }

  drained(): Promise<void> {
    // A tick's writes count too: past the mark they are queued now, and the writer waits for the client.
    if (this.pendingChars >= this.highWater) this.flush();
    if (this.closed || this.sink.queued() + this.pendingChars < this.highWater) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The sink's report: the client took something (or there was nothing to take). */
  progress(): void {
    this.lastProgress = Date.now();
    if (this.closing && this.sink.queued() <= 0) this.end();
    else if (this.sink.queued() < this.highWater) this.wake();
  }

  /** The client is gone (the body cancelled, the connection closed, the request aborted): the run stops, nothing more is sent. */
  gone(): void {
    this.abort.abort(new Error('client disconnected'));
    this.end(undefined, true);
  }

  /** The run settled: what it wrote goes out, then the stream ends (with its error, if it failed). */
  private finish(error?: unknown): void {
    this.send(true);
    this.end(error);
  }

  /** Closes the stream: with `error` or `force` at once, else once the client has taken what waits for it (`closing`). */
  private end(error?: unknown, force = false): void {
    if (this.closed) return;
    if (error === undefined && !force && this.sink.queued() > 0) {
      this.closing = true;
      return;
    }
    this.closed = true;
    clearTimeout(this.keepalive);
    clearTimeout(this.stall);
    this.options.requestSignal?.removeEventListener('abort', this.onRequestAbort);
    this.wake();
    this.sink.close(error);
  }

  private wake(): void {
    const ready = this.waiters;
    this.waiters = [];
    for (const resolve of ready) resolve();
  }

  // A reader with data waiting that takes nothing for stallMs is closed: its socket's buffer and this
  // queue are all it may hold, and not for ever.
  private armStall(): void {
    const { stallMs } = this.options;
    this.stall = setTimeout(
      () => {
        this.stall = undefined;
        if (this.closed || this.sink.queued() <= 0) return;
        if (Date.now() - this.lastProgress < stallMs) return this.armStall();
        const reason = new ReaderStalledError(stallMs);
        this.abort.abort(reason);
        this.end(reason);
      },
      Math.max(0, stallMs - (Date.now() - this.lastProgress)),
    );
    (this.stall as { unref?: () => void }).unref?.();
  }

  private armKeepalive(): void {
    this.keepalive = setTimeout(
      () => {
        if (this.closed) return;
        // Not to a client that has not taken what it was sent: it is not waiting for a sign of life.
        if (this.sink.queued() <= 0) this.write(': keepalive\n\n');
        this.armKeepalive();
      },
      this.options.keepaliveMs * (1 - KEEPALIVE_JITTER * Math.random()),
    );
  }
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

/** A turn's events as a text/event-stream response: each framed (Rebound's events, or `frame`'s), written through an SseStream. */
export function sseResponse(run: (send: Send, signal: AbortSignal) => Promise<void>, options: SseOptions, sink?: SseSink): Response {
  const frame = options.frame ?? reboundFrame;
  const stream = new SseStream(
    (out, signal) =>
      run((event, seq) => {
        out.write(frame(event, seq)); // an event a frame writer drops (nothing to show) costs no write
        return out.drained();
      }, signal),
    { ...options, open: true },
    sink,
  );
  return stream.response(200, { ...SSE_HEADERS, ...options.headers });
}
