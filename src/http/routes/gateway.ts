// POST /v1/chat/completions: Rebound as an OpenAI-compatible gateway (src/gateway). Every answer is
// an OpenAI-shaped response or error, since the callers are OpenAI clients: the openai SDK, the AI
// SDK, LangChain, Aider. GET /v1/models lists the upstream's models under the names a client can send
// (src/gateway/models.ts). The Responses API and the legacy completions endpoint get a 400 that says
// what to call instead.
import { Hono, type Context } from 'hono';
import {
  ChatCompletionsBody,
  GATEWAY_COUNTS,
  GatewayError,
  gatewayLimits,
  listModels,
  openAIError,
  runGateway,
  toGatewayRequest,
  type GatewayResponse,
} from '../../gateway/index.ts';
import { readJson } from '../body.ts';
import { quote } from '../../quote.ts';
import type { AppDeps } from '../deps.ts';
import { toApiError } from '../errors.ts';
import { gatewayAuth, type GatewayAuthEnv, type GatewayCaller } from '../auth/gateway.ts';
import { waitUntilFor } from '../wait-until.ts';
import { SSE_HEADERS, sseStream } from '../sse.ts';
import { carrierOf } from '../../telemetry/index.ts';

/** Agents send whole conversations with file contents: far more than a chat message. */
export const GATEWAY_MAX_BODY_BYTES = 8 * 1024 * 1024;

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export function gatewayRoutes(deps: AppDeps) {
  const app = new Hono<GatewayAuthEnv>();
  const { config } = deps;
  // Every error of these routes, the middleware's included, in the shape an OpenAI client reads.
  app.onError((err, c) => errorResponse(c, err));

  const authenticated = gatewayAuth({
    keys: config.gateway.keys,
    forwardClientKey: config.gateway.forwardClientKey,
    auth: deps.auth,
    serverKey: config.openai.apiKey,
    users: config.gateway.users,
  });
  const limits = gatewayLimits(config.gateway.limits, deps.storage.meters, { missing: deps.storageMissing });
  /** The upstream as this caller reaches it: with the server's key, or its own (GATEWAY_FORWARD_CLIENT_KEY). */
  const upstreamFor = (caller: GatewayCaller) => {
    if (!caller.upstreamKey) {
      throw new GatewayError(
        503,
        'gateway_not_configured',
        "The gateway has no upstream key: set OPENAI_API_KEY (any value for a server that takes none, such as Ollama) and OPENAI_BASE_URL, or GATEWAY_FORWARD_CLIENT_KEY=true to pass on each client's own key.",
      );
    }
    return { baseURL: config.openai.baseURL ?? OPENAI_BASE_URL, apiKey: caller.upstreamKey, timeoutMs: config.openai.timeoutMs };
  };

  app.post('/v1/chat/completions', authenticated, async (c) => {
    const caller = c.get('caller');
    const upstream = upstreamFor(caller);
    const body = await readJson(c, ChatCompletionsBody, { maxBytes: GATEWAY_MAX_BODY_BYTES, maxItems: GATEWAY_COUNTS });
    const request = toGatewayRequest(body, { models: config.gateway.models, only: config.gateway.modelsOnly });
    const waitUntil = waitUntilFor(c, deps);
    await limits?.admit(caller.subject);
    // On the edge the request's spans go out as it settles (or fails), within waitUntil; elsewhere the batch processor sends them.
    const flushTraces = () => {
      if (deps.tracing && waitUntil) waitUntil(deps.tracing.flush());
    };
    const result = await runGateway(request, {
      upstream,
      retries: config.gateway.retries,
      // Streamed answers go through the one SSE writer: keepalives, backpressure, a client that stalls or leaves.
      openStream: (run) => sseStream(run, { keepaliveMs: config.keepaliveMs, stallMs: config.readerStallMs, requestSignal: c.req.raw.signal }),
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
      onSettled: () => {
        flushTraces();
        const flushed = deps.activity.flush().then((report) => {
          if (report.dropped > 0)
            console.error(`rebound gateway: ${report.dropped} activity rows could not be written (${quote(report.lastError ?? 'unknown error')})`);
        });
        waitUntil?.(flushed);
      },
    }).finally(flushTraces);
    return toResponse(result);
  });

  // What OpenWebUI and other clients ask before they chat.
  app.get('/v1/models', authenticated, async (c) =>
    toResponse(await listModels(upstreamFor(c.get('caller')), { models: config.gateway.models, only: config.gateway.modelsOnly, signal: c.req.raw.signal })),
  );

  app.post('/v1/responses', (c) =>
    json(
      c,
      new GatewayError(
        400,
        'unsupported_endpoint',
        'The Responses API is not supported by the gateway: use the Chat Completions API, POST /v1/chat/completions (openai SDK: client.chat.completions.create; AI SDK: @ai-sdk/openai-compatible).',
      ),
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

function toResponse(result: GatewayResponse): Response {
  const headers = result.kind === 'stream' ? { ...SSE_HEADERS, ...result.headers } : result.headers;
  return new Response(result.body, { status: result.status, headers });
}

function json(c: Context, error: GatewayError): Response {
  return c.json(error.body(), error.status as 400, error.headers);
}

/** Rebound's own errors in the shape an OpenAI client reads: the gateway's as they are, the others as toApiError maps them. */
function errorResponse(c: Context, err: unknown): Response {
  if (err instanceof GatewayError) return json(c, err);
  const api = toApiError(err);
  if (api.code === 'internal' && api.cause === err) console.error('rebound gateway: unhandled error', err);
  // OpenAI's code for a refused credential, which its SDKs and the AI SDK recognise.
  const code = api.code === 'unauthorized' ? 'invalid_api_key' : api.code;
  return c.json(openAIError({ status: api.status, code, message: api.message }), api.status);
}
