// The upstream requests' transport on Node (the model's and the gateway's: src/model/chat-post.ts's `fetch`),
// which Node's entries pick (local.ts); the edge runtimes (workerd, Deno) keep their fetch.
// Node's fetch is undici's fetch algorithm over web streams: per request a Request, header guards and the
// fetch steps (~0.7 ms of CPU on a loaded machine), and per upstream chunk a web-stream enqueue. undici's
// own request() skips both: the same connection pool and parser, the body a Node stream whose buffered
// chunks one read takes together. bench:stream measured, for a bare proxy's upstream request of 2,000
// streamed tokens, 3.9 ms of CPU through fetch against 2.5 ms through request(), 1.45 against 0.78 ms
// for one token (docs/benchmarks.md § The streaming paths at the physical limit).
//
// What callers get is still a Response, so that every reader (the model's SSE decoder, the gateway's
// pass-through and error bodies) reads one type: its body is a web stream that takes, on each read, all
// the Node stream holds (a 2,000-token answer is ~10 reads, not 2,000 enqueues). Only what chat-post.ts
// sends is supported: a method, a record of headers, a string body, a signal. Failures are fetch's: a
// TypeError "fetch failed" with the cause (ECONNREFUSED, …), the signal's abort as an AbortError.
import { Readable } from 'node:stream';
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

export const nodeFetch: typeof fetch = async (input, init = {}) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  let answer: Dispatcher.ResponseData;
  try {
    // The global dispatcher as request() would take it (one a deployment may have set: a proxy agent), given the parts.
    answer = await getGlobalDispatcher().request({
      ...targetOf(url),
      method: (init.method ?? 'GET') as 'GET' | 'POST',
      headers: init.headers as Record<string, string> | undefined,
      body: init.body as string | undefined,
      signal: init.signal ?? undefined,
    });
  } catch (err) {
    if (init.signal?.aborted) throw init.signal.reason ?? err;
    throw new TypeError('fetch failed', { cause: err });
  }
  // The pairs as they came, for the Response to make its Headers of once (not a Headers of ours it then copies).
  const headers: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.push([name, v]);
    else if (value !== undefined) headers.push([name, value]);
  }
  const status = answer.statusCode;
  if (NULL_BODY.has(status) || init.method === 'HEAD') {
    answer.body.resume();
    return new NativeResponse(null, { status, headers });
  }
  // undici.request asks for no encoding, but a server may send one anyway: decoded as fetch does (its headers kept, as fetch keeps them).
  const encoded = answer.headers['content-encoding'];
  const encoding = (Array.isArray(encoded) ? encoded.join(', ') : encoded)?.trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : null;
  let body: Readable = answer.body;
  if (decoder) {
    body = answer.body.pipe(decoder);
    answer.body.on('error', (err) => decoder.destroy(err));
  }
  return new UpstreamAnswer(status, answer.statusText ?? '', headers, webBody(body)) as unknown as Response;
};

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

/**
 * A Node stream as a web stream whose every read takes all the Node stream has buffered, as one chunk.
 * Cancelling it destroys the Node stream (undici then closes the connection, as fetch does).
 */
function webBody(body: Readable): ReadableStream<Uint8Array> {
  let ended = false;
  let failed: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  body.on('readable', notify);
  body.on('end', () => {
    ended = true;
    notify();
  });
  body.on('error', (error) => {
    failed = { error };
    notify();
  });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (failed) throw failed.error;
          const chunk = body.read() as Buffer | null;
          if (chunk !== null) {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            return;
          }
          if (ended) {
            controller.close();
            return;
          }
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
      cancel() {
        body.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
