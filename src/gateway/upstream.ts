// The calls to the upstream (OPENAI_BASE_URL + /chat/completions, and + /models for GET /v1/models;
// sent by src/model/chat-post.ts), with the server's key or, when GATEWAY_FORWARD_CLIENT_KEY is set,
// the client's own. The gateway passes the upstream's bytes on and needs its status and error body as
// they are. Failures are data: an error status with its body (OpenAI-shaped, passed to the client as it
// is), an upstream that cannot be reached (502) or does not send its headers within MODEL_TIMEOUT_MS (504).
import { getModels, postChat, type ChatEndpoint, type ChatPost } from '../model/chat-post.ts';
import { isOpenAIErrorBody, openAIError, type OpenAIErrorBody } from './errors.ts';
import type { CallEnd, TextRun } from './held-stream.ts';

export type UpstreamResult =
  | { ok: true; response: Response; chunks?: ChatChunks }
  | { ok: false; status: number; body: OpenAIErrorBody; headers: Record<string, string> };

/**
 * A native upstream's stream (codecs/native-stream.ts) as the chat chunks it stands for, one batch per
 * upstream read (null: its [DONE]; a TextRun: a run of text deltas as one chunk and their texts; a
 * CallEnd: a call complete, no chunk): the core reads these objects rather than the response's text.
 */
export type ChatChunk = Record<string, unknown> | null | TextRun | CallEnd;
export type ChatChunks = AsyncIterable<ChatChunk[]>;

/** Response headers an OpenAI client acts on when it retries (rate limits). */
const PASSED_HEADERS = [
  'retry-after',
  'retry-after-ms',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
];

/**
 * `headers`: the trace context (traceparent) of the attempt's span, when tracing is on. A 2xx answer is
 * taken as upstreamResult takes it, without its async turn: the gateway's stream starts on it
 * (docs/benchmarks.md § The streaming paths at the physical limit).
 */
export function callUpstream(
  options: ChatEndpoint,
  body: Record<string, unknown>,
  request: { signal: AbortSignal; headers?: Record<string, string> },
): Promise<UpstreamResult> {
  return postChat(options, body, request).then((posted) =>
    posted.kind === 'response' && posted.response.ok ? { ok: true, response: posted.response } : upstreamResult(options, posted),
  );
}

/** GET {OPENAI_BASE_URL}/models, its failures as callUpstream's. */
export async function listUpstreamModels(options: ChatEndpoint, signal: AbortSignal): Promise<UpstreamResult> {
  return upstreamResult(options, await getModels(options, signal));
}

export async function upstreamResult(options: ChatEndpoint, posted: ChatPost): Promise<UpstreamResult> {
  if (posted.kind === 'timeout') {
    return failure(
      504,
      openAIError({
        status: 504,
        code: 'upstream_timeout',
        message: `The upstream (${options.baseURL}) did not answer within ${options.timeoutMs} ms (MODEL_TIMEOUT_MS). Try again.`,
      }),
    );
  }
  if (posted.kind === 'unreachable') {
    return failure(
      502,
      openAIError({ status: 502, code: 'upstream_unreachable', message: `Could not reach the upstream (${options.baseURL}): ${posted.message}.` }),
    );
  }
  const { response } = posted;
  if (response.ok) return { ok: true, response };

  const headers: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const text = await response.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const errorBody = isOpenAIErrorBody(parsed)
    ? parsed
    : openAIError({
        status: response.status,
        code: 'upstream_error',
        message: `The upstream answered ${response.status}${text.trim() ? `: ${text.trim().slice(0, 300)}` : ' with no body'}.`,
      });
  return { ok: false, status: response.status, body: errorBody, headers };
}

/** An answer larger than this is not a completion any model sends: the gateway stops reading (a stream too, sse-decode.ts). */
export { MAX_COMPLETION_BYTES } from '../model/answer-size.ts';

function failure(status: number, body: OpenAIErrorBody): UpstreamResult {
  return { ok: false, status, body, headers: {} };
}
