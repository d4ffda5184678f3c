// The upstream requests' transport on Node (the model's and the gateway's: src/model/chat-post.ts's `fetch`),
// which Node's entries pick (local.ts); the edge runtimes (workerd, Deno) keep their fetch.
// Node's fetch is undici's fetch algorithm over web streams: per request a Request, header guards and the
// fetch steps (~0.7 ms of CPU on a loaded machine), and per upstream chunk a web-stream enqueue. undici's
// dispatch() skips both: the same connection pool and parser, which hands each body chunk to a handler of
// ours (UpstreamBody). bench:stream measured, for a bare proxy's upstream request of 2,000 streamed tokens,
// 3.9 ms of CPU through fetch against 2.5 ms through request() (dispatch() with a Node stream for the
// body), 1.45 against 0.78 ms for one token (docs/benchmarks.md § The streaming paths at the physical limit).
//
// What callers get is still a Response, so that every reader (the model's SSE decoder, the gateway's
// pass-through and error bodies) reads one type: its body is a web stream that takes, on each read, all
// the parser has handed over since the last (a 2,000-token answer is ~10 reads, not 2,000 enqueues). Only
// what chat-post.ts sends is supported: a method, a record of headers, a string body, a signal. Failures
// are fetch's: a TypeError "fetch failed" with the cause (ECONNREFUSED, …), the signal's abort as its reason.
import { Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { type Dispatcher, getGlobalDispatcher } from 'undici';

/**
 * The runtime's own Response, as the global was when this module loaded (Node's entries load it before
 * they serve): @hono/node-server then puts a lighter class of its own in the global, for the responses an
 * app hands it. Read as an upstream's answer is read (its headers, then its body), that one builds a
 * Headers, then the runtime's Response with a second Headers copied from the first: ~30 µs of every
 * upstream request under load (docs/benchmarks.md § The streaming paths at the physical limit). An
 * upstream's answer is only read here, never handed to the server as it is.
 */
const NativeResponse = globalThis.Response;

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * Each URL's origin and path, as undici's request(url) takes them apart (a WHATWG URL's origin, its
 * pathname and search), worked out once: the URLs are the configured upstreams' few endpoints, and the
 * parse was part of every upstream request's time to be sent (docs/benchmarks.md § The streaming paths at
 * the physical limit). Bounded, so that a caller with many URLs only parses each.
 */
const targets = new Map<string, { origin: string; path: string }>();
const MAX_TARGETS = 64;

function targetOf(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size < MAX_TARGETS) targets.set(url, target);
  }
  return target;
}

export const nodeFetch: typeof fetch = (input, init = {}) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<Response>((resolve, reject) => {
    const answer = new UpstreamBody(resolve, reject, signal, init.method === 'HEAD');
    try {
      // The global dispatcher (one a deployment may have set: a proxy agent), given the parts.
      getGlobalDispatcher().dispatch(
        {
          ...targetOf(url),
          method: (init.method ?? 'GET') as 'GET' | 'POST',
          headers: init.headers as Record<string, string> | undefined,
          body: init.body as string | undefined,
        },
        answer,
      );
    } catch (err) {
      answer.onResponseError(undefined, err as Error);
    }
  });
};

/** The headers as name-value pairs, a repeated header's values each a pair: the Response makes its Headers of them once. */
function headerPairs(headers: Record<string, string | string[] | undefined>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const v of value) pairs.push([name, v]);
    else if (value !== undefined) pairs.push([name, value]);
  }
  return pairs;
}

/** The decompressor of a body a server encoded although undici asked for none (fetch decodes it, its headers kept). */
function decoderOf(headers: Record<string, string | string[] | undefined>): Transform | null {
  const encoded = headers['content-encoding'];
  const encoding = (Array.isArray(encoded) ? encoded.join(', ') : encoded)?.trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return null;
}

/** What may follow a chunk's data in its socket read when nothing more of the body does: the chunk's CRLF and a chunked body's last chunk (`\r\n0\r\n\r\n`). */
const END_FRAMING_BYTES = 7;

/** A read the parser pauses at the end of for its reader (the class's comment): a held call's last delta, a paced token; not an unpaced answer's 64 KB. */
const SHORT_READ_BYTES = 4096;

/**
 * Whether the parser's chunk is the last of its socket read but for the framing that ends it: undici
 * hands each chunk as a view of the socket read it parsed it from, which Node sizes to the read (over
 * TCP and TLS alike). A view of anything larger (a copy, a pooled buffer) reads as not the last: the
 * chunk then waits for the rest of its read, as any other does.
 */
function endsItsRead(chunk: Buffer): boolean {
  return chunk.buffer.byteLength - chunk.byteOffset - chunk.byteLength <= END_FRAMING_BYTES;
}

/** Bytes held for the reader before the upstream's socket is no longer read (the reader's backpressure), as Node's streams hold 64 KB. */
const HELD_BYTES = 64 * 1024;

/**
 * One upstream request's answer, as undici's dispatch hands it over: its status and headers resolve the
 * Response, its body is a web stream fed by the parser itself. No Node stream sits between (request()'s
 * body was one: a push, a 'readable' event on the next tick, a read), and each read still takes all the
 * body has received since the last, as one chunk.
 *
 * A short read the reader waits for is handed to it before the parser goes past that read's last chunk:
 * the parser pauses there (`endsItsRead`), and what is left of the read (a chunked body's last chunk, the
 * message's completion and undici's keep-alive bookkeeping, ~25 µs on cold caches) is parsed on the
 * reader's next read. A gateway's held call, whose last argument delta an upstream sends with its
 * answer's end, reaches the gateway's read that much sooner (docs/benchmarks.md § The streaming paths at
 * the physical limit, H1 of the seventh session). Only a read's last chunk pauses it (one that wakes the
 * reader with more of the read to come would split the read in two), and only a short one
 * (SHORT_READ_BYTES): an unpaced answer's reads go on as undici parses them, so that the reader's next
 * read takes what came meanwhile with it (a pause at each of them made ~40% more, smaller reads of a
 * 2,000-token answer, a pass of the gateway's loop each: CPU per token). Chunks that arrive while the
 * reader is busy are kept until HELD_BYTES, then the parser pauses until the next read.
 */
class UpstreamBody implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  /** The Response was handed over (or the request failed before it): what follows is the body's. */
  private settled = false;
  /** A body no one reads (HEAD, a null-body status): its chunks are dropped. */
  private discard = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private ended = false;
  private failed: { error: unknown } | undefined;
  /** The reader was woken for what it has not taken yet. */
  private woken = false;
  /** The reader's wait for a chunk, the end or a failure. */
  private wake: (() => void) | undefined;
  /** A body the server encoded: the chunks go through it, and its output is the body. */
  private decoder: Transform | null = null;
  private readonly resolve: (response: Response) => void;
  private readonly reject: (error: unknown) => void;
  private readonly signal: AbortSignal | undefined;
  private readonly head: boolean;

  constructor(resolve: (response: Response) => void, reject: (error: unknown) => void, signal: AbortSignal | undefined, head: boolean) {
    this.resolve = resolve;
    this.reject = reject;
    this.signal = signal;
    this.head = head;
    signal?.addEventListener('abort', this.abort, { once: true });
  }

  /**
   * The caller's abort: undici's request fails with its reason (onResponseError), its connection closed.
   * Before the request has a connection, it is aborted as it gets one (onRequestStart), as request() does.
   */
  private readonly abort = (): void => {
    this.controller?.abort(this.signal!.reason);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(this.signal.reason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    statusText?: string,
  ): void {
    this.settled = true;
    const pairs = headerPairs(headers);
    if (NULL_BODY.has(status) || this.head) {
      this.discard = true;
      this.resolve(new NativeResponse(null, { status, headers: pairs }));
      return;
    }
    const decoder = decoderOf(headers);
    if (decoder) {
      // Each side's backpressure: the parser waits for the decoder's input, the decoder for the reader.
      this.decoder = decoder;
      decoder.on('data', (chunk: Buffer) => this.take(chunk));
      decoder.on('drain', () => this.controller?.resume());
      decoder.on('end', () => this.end());
      decoder.on('error', (error) => this.fail(error));
    }
    const body = new ReadableStream<Uint8Array>({ pull: (controller) => this.pull(controller), cancel: () => this.cancel() }, { highWaterMark: 0 });
    this.resolve(new UpstreamAnswer(status, statusText ?? '', pairs, body) as unknown as Response);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.discard) return;
    if (!this.decoder) this.take(chunk);
    else if (!this.decoder.write(chunk)) this.controller?.pause();
  }

  onResponseEnd(): void {
    this.signal?.removeEventListener('abort', this.abort);
    if (this.decoder) this.decoder.end();
    else this.end();
  }

  /** A failure: before the headers, fetch's (the abort's reason, else a TypeError with the cause); after, the body's reader gets it. */
  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.signal?.removeEventListener('abort', this.abort);
    const aborted = this.signal?.aborted === true;
    if (!this.settled) {
      this.settled = true;
      this.reject(aborted ? this.signal!.reason : new TypeError('fetch failed', { cause: error }));
      return;
    }
    this.decoder?.destroy();
    this.fail(aborted ? this.signal!.reason : error);
  }

  /** A chunk of the body: kept for the reader; the last of a short read the reader waits for pauses the parser (the class's comment), as do HELD_BYTES kept. */
  private take(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.byteLength;
    if (this.decoder) {
      if (this.pendingBytes >= HELD_BYTES) this.decoder.pause();
    } else if (this.pendingBytes >= HELD_BYTES || this.endsShortRead(chunk)) {
      this.controller?.pause();
    }
    if (this.wake) this.woken = true;
    this.notify();
  }

  /** The last chunk of a short read the reader waits for (the class's comment; pending holds that read alone: the reader took all before it). */
  private endsShortRead(chunk: Buffer): boolean {
    return (this.wake !== undefined || this.woken) && this.pendingBytes <= SHORT_READ_BYTES && endsItsRead(chunk);
  }

  private end(): void {
    this.ended = true;
    this.notify();
  }

  private fail(error: unknown): void {
    this.failed ??= { error };
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** One read: everything received since the last, the end, or the failure; the parser resumed when it was paused for the reader. */
  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    for (;;) {
      if (this.pending.length > 0) {
        const chunk = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
        this.pending = [];
        this.pendingBytes = 0;
        this.woken = false;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if (this.decoder?.isPaused()) this.decoder.resume();
        return;
      }
      if (this.failed) throw this.failed.error;
      if (this.ended) {
        controller.close();
        return;
      }
      if (!this.decoder && this.controller?.paused) {
        // What the parser holds is parsed now (it may take a chunk, the end or a failure at once).
        this.controller.resume();
        continue;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  /** The reader stopped: the request is aborted (undici closes the connection, as fetch does). */
  private cancel(): void {
    this.signal?.removeEventListener('abort', this.abort);
    this.discard = true;
    this.pending = [];
    this.controller?.abort(new Error('The body was cancelled.'));
  }
}

/**
 * The upstream's answer as the runtime's Response reads it, made of its parts only as they are read: a
 * Response (its body extracted, its init converted, its Headers filled) was ~27 µs of every gateway
 * request's first byte under load, between the upstream's headers and the gateway's stream, which reads
 * the status, a header and the body alone (docs/benchmarks.md § The streaming paths at the physical
 * limit). Anything else asked of it (`text()`, `json()`, `clone()`, …) is asked of the runtime's own
 * Response, made then of the same parts. An instance of Response (its prototype's), as fetch's is.
 */
class UpstreamAnswer {
  #headers: Headers | undefined;
  #response: Response | undefined;
  readonly type = 'default';
  readonly url = '';
  readonly redirected = false;

  readonly status: number;
  readonly statusText: string;
  private readonly pairs: Array<[string, string]>;
  private readonly stream: ReadableStream<Uint8Array>;

  constructor(status: number, statusText: string, pairs: Array<[string, string]>, stream: ReadableStream<Uint8Array>) {
    this.status = status;
    this.statusText = statusText;
    this.pairs = pairs;
    this.stream = stream;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get headers(): Headers {
    this.#headers ??= new Headers(this.pairs);
    return this.#headers;
  }

  /** The body: the runtime's Response's once it was made (a clone tees it). */
  get body(): ReadableStream<Uint8Array> | null {
    return this.#response ? this.#response.body : this.stream;
  }

  get bodyUsed(): boolean {
    // (Node's isDisturbed reads a web stream too; its types name Node's.)
    return this.#response ? this.#response.bodyUsed : Readable.isDisturbed(this.stream as unknown as Readable);
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.read((r) => r.arrayBuffer());
  }

  blob(): Promise<Blob> {
    return this.read((r) => r.blob());
  }

  bytes(): Promise<Uint8Array> {
    return this.read((r) => r.bytes());
  }

  formData(): Promise<FormData> {
    return this.read((r) => r.formData());
  }

  json(): Promise<unknown> {
    return this.read((r) => r.json());
  }

  text(): Promise<string> {
    return this.read((r) => r.text());
  }

  clone(): Response {
    return this.response().clone();
  }

  /** The runtime's own Response of these parts (throws as its constructor does for a body already read). */
  private response(): Response {
    this.#response ??= new NativeResponse(this.stream, { status: this.status, statusText: this.statusText, headers: this.headers });
    return this.#response;
  }

  /** A reader asked of the runtime's Response; a failure to make it (a body already read) rejects, as the reader would. */
  private read<T>(reader: (response: Response) => Promise<T>): Promise<T> {
    try {
      return reader(this.response());
    } catch (err) {
      return Promise.reject(err);
    }
  }
}
Object.setPrototypeOf(UpstreamAnswer.prototype, NativeResponse.prototype);
