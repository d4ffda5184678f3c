// POST /v1/chat/completions: Rebound as an OpenAI-compatible gateway (src/gateway). Every answer is
// an OpenAI-shaped response or error, since the callers are OpenAI clients: the openai SDK, the AI
// SDK, LangChain, Aider. POST /v1/messages (Anthropic's Messages API: Claude Code) and POST
// /v1/responses (the Responses API: Codex, the Agents SDK) are the same core behind a codec
// (src/gateway/codecs), their errors in their own shape; POST /v1/messages/count_tokens is answered
// with an estimate. GET /v1/models lists the upstream's models under the names a client can send
// (src/gateway/models.ts). The legacy completions endpoint gets a 400 that says what to call instead.
import { Hono, type Context } from 'hono';
import { jsonText } from 'rebound-gate/internal';
import {
  ChatCompletionsBody,
  fitsChatBody,
  GATEWAY_COUNTS,
  GatewayError,
  gatewayLimits,
  listModels,
  openAIError,
  runGateway,
  toGatewayRequest,
  type ClientCodec,
  type GatewayRequest,
  type GatewayResponse,
  anthropicError,
  upstreamModel,
  upstreamResult,
  type UpstreamCall,
} from '../../gateway/index.ts';
import type { MessagesBody } from '../../gateway/codecs/index.ts';
import { postJson, type ChatEndpoint } from '../../model/chat-post.ts';

/** A native upstream for one request: where it is (for the spans) and the call the core makes. */
interface Native {
  endpoint: ChatEndpoint;
  call: UpstreamCall;
  /** For the spans: who the upstream is. */
  provider: 'openai' | 'anthropic';
}
import { readJson, readJsonBody } from '../body.ts';
import { quote } from '../../quote.ts';
import type { AppDeps } from '../deps.ts';
import { toApiError } from '../errors.ts';
import { gatewayAuth, type GatewayCaller } from '../auth/gateway.ts';
import { type WaitUntil, waitUntilFor } from '../wait-until.ts';
import { SSE_HEADERS, SseStream } from '../sse.ts';
import { carrierOf } from '../../telemetry/index.ts';

/** Agents send whole conversations with file contents: far more than a chat message. */
export const GATEWAY_MAX_BODY_BYTES = 8 * 1024 * 1024;

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The Messages and Responses codecs, loaded on the first request that needs them (src/gateway/codecs/index.ts: out of the Worker's startup script). */
let codecModule: Promise<typeof import('../../gateway/codecs/index.ts')> | undefined;
const loadCodecs = () => (codecModule ??= import('../../gateway/codecs/index.ts'));

export function gatewayRoutes(deps: AppDeps) {
  const app = new Hono();
  const { config } = deps;

  const authenticate = gatewayAuth({
    keys: config.gateway.keys,
    forwardClientKey: config.gateway.forwardClientKey,
    auth: deps.auth,
    serverKey: config.openai.apiKey,
    users: config.gateway.users,
  });
  const limits = gatewayLimits(config.gateway.limits, deps.storage.meters, { missing: deps.storageMissing });
  /**
   * A gateway route: the caller checked first (before the body is read), then `handle`; every error, the
   * check's included, in the shape an OpenAI client reads (an Anthropic client's on /v1/messages). A
   * try/catch, not this sub-app's onError: Hono runs that as a compose around each of its handlers, a few
   * µs of every request's first byte (docs/benchmarks.md § The streaming paths at the physical limit).
   */
  const route =
    (handle: (c: Context, caller: GatewayCaller) => Promise<Response>) =>
    async (c: Context): Promise<Response> => {
      try {
        return await handle(c, await authenticate(c));
      } catch (err) {
        return errorResponse(c, err);
      }
    };
  /** The upstream as this caller reaches it: with the server's key, or its own (GATEWAY_FORWARD_CLIENT_KEY). */
  const upstreamFor = (caller: GatewayCaller) => {
    if (!caller.upstreamKey) {
      throw new GatewayError(
        503,
        'gateway_not_configured',
        "The gateway has no upstream key: set OPENAI_API_KEY (any value for a server that takes none, such as Ollama) and OPENAI_BASE_URL, or GATEWAY_FORWARD_CLIENT_KEY=true to pass on each client's own key.",
      );
    }
    return { baseURL: config.openai.baseURL ?? OPENAI_BASE_URL, apiKey: caller.upstreamKey, timeoutMs: config.openai.timeoutMs, fetch: deps.upstreamFetch };
  };

  /**
   * One request through the gateway core, answered in the client's protocol (`codec`; none: Chat
   * Completions), asked of the chat upstream or of a native one (`native`: its endpoint and call).
   */
  const serve = async (c: Context, caller: GatewayCaller, request: GatewayRequest, codec?: ClientCodec, native?: Native) => {
    const upstream = native?.endpoint ?? upstreamFor(caller);
    // Asked now, not when the answer settles: on Node, Hono's getter throws to say there is none, and at the
    // settling that throw fell between a held call's write and the client (docs/benchmarks.md § The streaming paths at the physical limit).
    const waitUntil = waitUntilFor(c, deps);
    if (limits) await limits.admit(caller.subject);
    let result: GatewayResponse;
    try {
      // The hooks are methods, not closures made per request (docs/benchmarks.md § The streaming paths at
      // the physical limit).
      result = await runGateway(request, {
        upstream,
        retries: config.gateway.retries,
        // Streamed answers go through the one SSE writer: keepalives, backpressure, a client that stalls or leaves.
        openStream(run) {
          return new SseStream(run, { keepaliveMs: config.keepaliveMs, stallMs: config.readerStallMs, requestSignal: c.req.raw.signal }, deps.sseSink?.(c));
        },
        activity: deps.activity,
        userId: caller.userId,
        signal: c.req.raw.signal,
        // Each attempt's tokens against GATEWAY_TOKENS_PER_DAY; charge never throws, and on the edge it runs on within waitUntil.
        onUsage:
          limits &&
          ((usage) => {
            const charged = limits.charge(caller.subject, usage);
            waitUntil?.(charged);
          }),
        tracing: deps.tracing,
        carrier: deps.tracing && carrierOf(c.req.raw.headers),
        onSettled() {
          flushTraces(deps, waitUntil);
          const flushed = deps.activity.flush().then((report) => {
            if (report.dropped > 0)
              console.error(`rebound gateway: ${report.dropped} activity rows could not be written (${quote(report.lastError ?? 'unknown error')})`);
          });
          waitUntil?.(flushed);
        },
        codec,
        ...(native ? { call: native.call, provider: native.provider } : {}),
      });
    } finally {
      flushTraces(deps, waitUntil);
    }
    return toResponse(result);
  };
  const requestOptions = { models: config.gateway.models, only: config.gateway.modelsOnly };

  // The tools' own text, each the key of its read kept between requests (src/gateway/tool-specs.ts).
  const chatBody = { maxBytes: GATEWAY_MAX_BODY_BYTES, maxItems: GATEWAY_COUNTS, fits: fitsChatBody, membersOf: 'tools' };
  app.post(
    '/v1/chat/completions',
    route(async (c, caller) => {
      const { body, members } = await readJsonBody(c, ChatCompletionsBody, chatBody);
      return serve(c, caller, toGatewayRequest(body, requestOptions, members));
    }),
  );

  // Anthropic's Messages API (Claude Code) and the Responses API (Codex, the Agents SDK): codecs around the same core.
  // MESSAGES_UPSTREAM=anthropic: Anthropic's API with ANTHROPIC_API_KEY (or, GATEWAY_FORWARD_CLIENT_KEY, the client's key).
  const anthropicFor = (c: Context, caller: GatewayCaller) => {
    const apiKey = config.gateway.forwardClientKey ? caller.upstreamKey : config.gateway.anthropic.apiKey;
    if (!apiKey) {
      throw new GatewayError(
        503,
        'gateway_not_configured',
        "MESSAGES_UPSTREAM=anthropic and the gateway has no Anthropic key: set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for another server than Anthropic's), or MESSAGES_UPSTREAM=chat to translate to OPENAI_BASE_URL.",
      );
    }
    const headers: Record<string, string> = {};
    for (const name of ['anthropic-version', 'anthropic-beta']) {
      const value = c.req.header(name);
      if (value) headers[name] = value;
    }
    return { baseURL: config.gateway.anthropic.baseURL, apiKey, timeoutMs: config.openai.timeoutMs, headers, fetch: deps.upstreamFetch };
  };

  app.post(
    '/v1/messages',
    route(async (c, caller) => {
      const { MESSAGES_COUNTS, MessagesBody, anthropicCall, fitsMessagesBody, messagesCodec, messagesToChat } = await loadCodecs();
      const body = await readJson(c, MessagesBody, { maxBytes: GATEWAY_MAX_BODY_BYTES, maxItems: MESSAGES_COUNTS, fits: fitsMessagesBody });
      const native = config.gateway.messagesUpstream === 'anthropic';
      const chat = messagesToChat(body, { native });
      const request = toGatewayRequest(chat as ChatCompletionsBody, requestOptions);
      if (!native) return serve(c, caller, request, messagesCodec(body));
      const anthropic = anthropicFor(c, caller);
      const call = anthropicCall(anthropic, body, (chat.messages as unknown[]).length);
      return serve(c, caller, request, messagesCodec(body), { endpoint: { ...anthropic, apiKey: undefined }, call, provider: 'anthropic' });
    }),
  );
  app.post(
    '/v1/messages/count_tokens',
    route(async (c, caller) => {
      const { MESSAGES_COUNTS, MessagesBody } = await loadCodecs();
      const body = await readJson(c, MessagesBody.omit({ max_tokens: true }), { maxBytes: GATEWAY_MAX_BODY_BYTES, maxItems: MESSAGES_COUNTS });
      if (config.gateway.messagesUpstream !== 'anthropic') return c.json({ input_tokens: estimateTokens(body) });
      // Anthropic counts its own tokens: passed through.
      const anthropic = anthropicFor(c, caller);
      const headers = { ...anthropic.headers, 'x-api-key': anthropic.apiKey, 'anthropic-version': anthropic.headers['anthropic-version'] ?? '2023-06-01' };
      const endpoint = { ...anthropic, apiKey: undefined };
      const sent = { ...body, model: upstreamModel(body.model, config.gateway.models) };
      const result = await upstreamResult(endpoint, await postJson(endpoint, '/v1/messages/count_tokens', sent, { signal: c.req.raw.signal, headers }));
      if (!result.ok) return c.json(anthropicError(result.status, result.body), result.status as 400);
      return new Response(result.response.body, { status: result.response.status, headers: { 'content-type': 'application/json' } });
    }),
  );
  app.post(
    '/v1/responses',
    route(async (c, caller) => {
      const { RESPONSES_COUNTS, ResponsesBody, fitsResponsesBody, freeformTools, responsesCall, responsesCodec, responsesToChat } = await loadCodecs();
      const body = await readJson(c, ResponsesBody, { maxBytes: GATEWAY_MAX_BODY_BYTES, maxItems: RESPONSES_COUNTS, fits: fitsResponsesBody });
      const native = config.gateway.responsesUpstream === 'responses';
      const chat = responsesToChat(body, { native });
      const request = toGatewayRequest(chat as ChatCompletionsBody, requestOptions);
      if (!native) return serve(c, caller, request, responsesCodec(body));
      const endpoint = upstreamFor(caller);
      const call = responsesCall(endpoint, body, (chat.messages as unknown[]).length, freeformTools(body));
      return serve(c, caller, request, responsesCodec(body), { endpoint, call, provider: 'openai' });
    }),
  );

  // What OpenWebUI and other clients ask before they chat.
  app.get(
    '/v1/models',
    route(async (c, caller) =>
      toResponse(await listModels(upstreamFor(caller), { models: config.gateway.models, only: config.gateway.modelsOnly, signal: c.req.raw.signal })),
    ),
  );

  app.post('/v1/completions', (c) =>
    json(
      c,
      new GatewayError(
        400,
        'unsupported_endpoint',
        'The legacy completions API is not supported by the gateway: use POST /v1/chat/completions with a messages array.',
      ),
    ),
  );

  return app;
}

/** On the edge a request's spans go out as it settles (or fails), within waitUntil; elsewhere the batch processor sends them. */
function flushTraces(deps: AppDeps, waitUntil: WaitUntil): void {
  if (deps.tracing && waitUntil) waitUntil(deps.tracing.flush());
}

function toResponse(result: GatewayResponse): Response {
  if (result.kind === 'stream') return result.body.response(result.status, { ...SSE_HEADERS, ...result.headers });
  return new Response(result.body, { status: result.status, headers: result.headers });
}

function json(c: Context, error: GatewayError): Response {
  return c.json(error.body(), error.status as 400, error.headers);
}

/** Rebound's own errors in the shape an OpenAI client reads (an Anthropic client's on /v1/messages): the gateway's as they are, the others as toApiError maps them. */
function errorResponse(c: Context, err: unknown): Response {
  if (c.req.path.startsWith('/v1/messages')) {
    const status = err instanceof GatewayError ? err.status : toApiError(err).status;
    const body = err instanceof GatewayError ? err.body() : openAIError({ status, code: toApiError(err).code, message: toApiError(err).message });
    return c.json(anthropicError(status, body), status as 400, err instanceof GatewayError ? err.headers : {});
  }
  if (err instanceof GatewayError) return json(c, err);
  const api = toApiError(err);
  if (api.code === 'internal' && api.cause === err) console.error('rebound gateway: unhandled error', err);
  // OpenAI's code for a refused credential, which its SDKs and the AI SDK recognise.
  const code = api.code === 'unauthorized' ? 'invalid_api_key' : api.code;
  return c.json(openAIError({ status: api.status, code, message: api.message }), api.status);
}

/**
 * count_tokens through a gateway that cannot ask the upstream's tokenizer: an estimate, about four
 * characters a token over the system prompt, the messages and the tools as JSON (Claude Code asks it to
 * decide when to compact; an upper estimate compacts early rather than late).
 */
function estimateTokens(body: Pick<MessagesBody, 'system' | 'messages' | 'tools'>): number {
  // jsonText: the client's messages may nest past what JSON.stringify can write (docs/configuration.md § Limits).
  const chars = jsonText(body.system ?? '').length + jsonText(body.messages).length + jsonText(body.tools ?? []).length;
  return Math.ceil(chars / 4);
}
