// The requests to an OpenAI-compatible server: the one POST to its /chat/completions, shared by the
// model adapter (openai.ts) and the gateway (src/gateway/upstream.ts), the gateway's GET of its
// /models (src/gateway/models.ts) and its native upstreams' POSTs (postJson: /responses, Anthropic's
// /v1/messages). Plain
// fetch, not the openai SDK: all the adapter used of it was this request, a headers timeout and an error
// mapping, and the SDK was ~29 KB of the Worker's gzipped bundle. The fetch is the endpoint's when it
// has one: Node's entries pass their own HTTP client (src/entries/node-fetch.ts, undici's dispatch()
// behind fetch's signature: fetch's web streams cost ~0.7 ms a request). Failures are data: the response
// whatever its status, or why none came (no headers in time, unreachable); only the caller's own abort
// is thrown, as it is.
import { jsonText } from 'rebound-gate/internal';

export interface ChatEndpoint {
  /** Ends with /v1 or the provider's equivalent, as OPENAI_BASE_URL. */
  baseURL: string;
  apiKey: string | undefined;
  /** How long to wait for the response headers (ms); reading the body is the caller's to bound. */
  timeoutMs: number;
  fetch?: typeof fetch;
}

export type ChatPost = { kind: 'response'; response: Response } | { kind: 'timeout' } | { kind: 'unreachable'; message: string; cause: unknown };

/**
 * `body` may nest deeper than JSON.stringify goes (a gateway client's tool schema): jsonText writes it all
 * the same. Not an async function: the request's own promise is returned, without the turns of the
 * microtask queue an async function's adoption of it adds between the upstream's headers and the gateway's
 * stream (docs/benchmarks.md § The streaming paths at the physical limit); a body jsonText refuses still
 * rejects it.
 */
export function postChat(
  endpoint: ChatEndpoint,
  body: Record<string, unknown>,
  { signal, headers }: { signal: AbortSignal; headers?: Record<string, string> },
): Promise<ChatPost> {
  let json: string;
  try {
    json = jsonText(body);
  } catch (err) {
    return Promise.reject(err);
  }
  return postChatJson(endpoint, { json, stream: body.stream === true, headers }, signal);
}

/** A chat-completions body already serialised (the model adapter reuses the tools' part across requests). */
export interface SerializedChatBody {
  json: string;
  /** The body asks for a stream: the request accepts text/event-stream. */
  stream: boolean;
  /** Extra headers (the trace context); they never replace content-type, accept or authorization. */
  headers?: Record<string, string>;
}

/** postChat for a body already serialised. */
export function postChatJson(endpoint: ChatEndpoint, body: SerializedChatBody, signal: AbortSignal): Promise<ChatPost> {
  const headers = { ...body.headers, 'content-type': 'application/json', accept: body.stream ? 'text/event-stream' : 'application/json' };
  return send(endpoint, { path: '/chat/completions', method: 'POST', headers, body: body.json }, signal);
}

/**
 * POST {baseURL}{path} with a JSON body, as postChat (the gateway's native upstreams: /responses, and
 * Anthropic's /v1/messages, whose key travels in `headers` as x-api-key with `apiKey` undefined).
 */
export function postJson(
  endpoint: ChatEndpoint,
  path: string,
  body: Record<string, unknown>,
  { signal, headers }: { signal: AbortSignal; headers?: Record<string, string> },
): Promise<ChatPost> {
  const stream = body.stream === true;
  const sent = { ...headers, 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
  return send(endpoint, { path, method: 'POST', headers: sent, body: jsonText(body) }, signal);
}

/** GET {baseURL}/models: the upstream's model list, with the same key, timeout and failures as postChat. */
export function getModels(endpoint: ChatEndpoint, signal: AbortSignal): Promise<ChatPost> {
  return send(endpoint, { path: '/models', method: 'GET', headers: { accept: 'application/json' } }, signal);
}

interface Sent {
  path: string;
  method: 'GET' | 'POST';
  /** Made for this request alone: send adds the key to it. */
  headers: Record<string, string>;
  body?: string;
}

async function send(endpoint: ChatEndpoint, request: Sent, signal: AbortSignal): Promise<ChatPost> {
  // One controller for the request: the caller's abort is forwarded into it (for the body too, so the
  // listener stays until either aborts), and the headers timeout aborts it; cheaper than
  // AbortSignal.any and a second controller on every request. The listener goes when the request
  // aborts by a listener of its own, not addEventListener's `signal` option: on Node that one cost
  // ~40 µs a request (it holds the listener weakly, which the garbage collector then tracks).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('no response headers in time'));
  }, endpoint.timeoutMs);
  if (signal.aborted) controller.abort(signal.reason);
  else {
    // A listener object, not a closure per request (under tsx, which ran npm start until af719b1, each
    // also had an Object.defineProperty for its name; docs/benchmarks.md § The streaming paths at the physical limit).
    const forward = {
      handleEvent() {
        controller.abort(signal.reason);
      },
    };
    signal.addEventListener('abort', forward, { once: true });
    controller.signal.addEventListener('abort', () => signal.removeEventListener('abort', forward), { once: true });
  }
  // Called without a receiver: workerd's fetch throws "Illegal invocation" when called as a method of another object.
  const fetchFn = endpoint.fetch ?? fetch;
  // The request's own headers object (made by the caller for this request): the key is added to it, not to a copy.
  if (endpoint.apiKey) request.headers.authorization = `Bearer ${endpoint.apiKey}`;
  try {
    const response = await fetchFn(`${endpoint.baseURL.replace(/\/+$/, '')}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    return { kind: 'response', response };
  } catch (err) {
    if (signal.aborted) throw err;
    if (timedOut) return { kind: 'timeout' };
    return { kind: 'unreachable', message: describeFetchError(err), cause: err };
  } finally {
    clearTimeout(timer);
  }
}

/** Node's fetch says only "fetch failed" and keeps the reason (ECONNREFUSED, a DNS failure) in `cause`. */
function describeFetchError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause && cause !== err.message ? `${err.message} (${cause})` : err.message;
}

/**
 * A body as text, read no further than `maxBytes`: `text` is at most its first `maxBytes` bytes, and `whole`
 * says whether that is all of it (past the cap the rest is not read). The one bounded body reader: the
 * gateway refuses a body that is not whole, the model quotes the head of an error body.
 */
export async function readBounded(response: Response, maxBytes: number): Promise<{ text: string; whole: boolean }> {
  if (!response.body) return { text: '', whole: true };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), whole: true };
    text += decoder.decode(value.subarray(0, Math.max(0, maxBytes - size)), { stream: true });
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return { text: text + decoder.decode(), whole: false };
    }
  }
}
