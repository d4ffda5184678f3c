// Rebound as an OpenAI-compatible gateway: one Chat Completions request forwarded to the upstream,
// every tool call of the answer through the gate, blocked calls re-asked, the answer to the client
// as the API shapes it. An upstream error before anything was sent passes through with its status
// and body. The route (src/http/routes/gateway.ts) authenticates and validates; this runs it.
//
//   request.ts   what is accepted, the tools after tool_choice     upstream.ts  the upstream call
//   tool-specs.ts each tool as the gate reads it, kept for the requests that send it again
//   gated-call.ts one call through the gate, what the client gets   retry.ts     the retry policy
//   held-stream.ts the streaming transformer of one attempt         stream.ts    attempts + keepalive
//   complete.ts / response.ts  the non-streaming path               activity.ts  the log rows
//   models.ts    GET /v1/models: the upstream's list under the names a client can send
import { jsonText } from 'rebound-gate/internal';
import type { ActivityWriter } from '../activity/types.ts';
import { quote } from '../quote.ts';
import type { ChatTrace, TraceCarrier, Tracing } from '../telemetry/index.ts';
import { type AttemptSaid, recordAttempt } from './activity.ts';
import { gatewayComplete } from './complete.ts';
import type { GatewayRequest } from './request.ts';
import type { GatedCall } from './gated-call.ts';
import { gatewayStream, type AttemptsRun, type OpenStream, type Settled } from './stream.ts';
import type { ChatEndpoint } from '../model/chat-post.ts';
import type { GatewayResponse } from './gateway-response.ts';
import { callUpstream, type UpstreamResult } from './upstream.ts';
import type { ClientCodec } from './codecs/protocol.ts';

export { ChatCompletionsBody, fitsChatBody, GATEWAY_COUNTS, toGatewayRequest, type GatewayRequest, upstreamModel } from './request.ts';
export { upstreamResult } from './upstream.ts';
export { GatewayError, openAIError, type OpenAIErrorBody } from './errors.ts';
export { listModels } from './models.ts';
export { gatewayLimits, type GatewayLimits } from './limits.ts';
export type { GatewayResponse } from './gateway-response.ts';
export type { Settled } from './stream.ts';
export type { ClientCodec, Protocol } from './codecs/protocol.ts';
// The Messages and Responses codecs themselves are loaded with import() (codecs/index.ts); the
// Anthropic error shape is here, since every /v1/messages error is written with it.
export { anthropicError } from './codecs/anthropic-error.ts';

export interface GatewayDeps {
  upstream: ChatEndpoint;
  retries: number;
  /** The server's SSE writer (src/http/sse.ts, handed down by the route): a streamed answer goes through it. */
  openStream: OpenStream;
  activity: ActivityWriter;
  /** The caller's user id (null: local mode or a gateway key). */
  userId: string | null;
  /** The client's request: its abort stops the upstream request. */
  signal: AbortSignal;
  /** Each upstream attempt's usage as the upstream reported it, once its answer is read: what the limits count (limits.ts). */
  onUsage?: (usage: unknown) => void;
  /** Once the answer is complete (or the client left): the place to flush the activity writer. */
  onSettled?: (result: Settled) => void;
  log?: (line: string) => void;
  /** Traces on: the request is a `chat {model}` span (a child of the caller's, from `carrier`), each upstream attempt a child of it. */
  tracing?: Tracing;
  carrier?: TraceCarrier;
  /** The client's protocol when it is not Chat Completions (codecs/protocol.ts): the answer is written in it. */
  codec?: ClientCodec;
  /** A native upstream (codecs/anthropic-upstream.ts, responses-upstream.ts) instead of `upstream`'s Chat Completions: it takes the core's body and answers as Chat Completions. */
  call?: UpstreamCall;
  /** The native upstream's provider, for the spans (default openai). */
  provider?: 'openai' | 'anthropic';
}

/** One upstream attempt: the core's Chat Completions body in, the answer as Chat Completions out. */
export type UpstreamCall = (body: Record<string, unknown>, request: { signal: AbortSignal; headers?: Record<string, string> }) => Promise<UpstreamResult>;

export async function runGateway(request: GatewayRequest, deps: GatewayDeps): Promise<GatewayResponse> {
  const { codec } = deps;
  if (!codec) return runCore(request, deps);
  // The core writes Chat Completions; the codec writes the client's protocol, whole or as the stream goes.
  const result = await runCore(request, {
    ...deps,
    openStream(run) {
      return deps.openStream((out, signal) => run(codec.channel(out), signal));
    },
  });
  return result.kind === 'json' && typeof result.body === 'string' ? codec.translate({ ...result, kind: 'json', body: result.body }) : result;
}

async function runCore(request: GatewayRequest, deps: GatewayDeps): Promise<GatewayResponse> {
  const requestId = crypto.randomUUID();
  const abort = new AbortController();
  // The request's hooks are methods (a listener object, `upstream`, `run`), not closures made per request
  // (under tsx, which ran npm start until af719b1, each also had an Object.defineProperty for its name;
  // docs/benchmarks.md § The streaming paths at the physical limit).
  const onClientAbort = {
    handleEvent() {
      abort.abort(new Error('client disconnected'));
    },
  };
  if (deps.signal.aborted) onClientAbort.handleEvent();
  else deps.signal.addEventListener('abort', onClientAbort, { once: true });
  const idHeader = { 'x-rebound-request-id': requestId };
  const log = deps.log ?? ((line: string) => console.warn(line));
  if (request.ungated) {
    const { tool, reason } = request.ungated;
    log(`rebound gateway ${requestId}: the parameters schema of tool ${quote(tool)} ${reason}; this request is forwarded ungated (its calls' verdict: none).`);
  }

  // Tracing off: no await (a turn of the microtask queue before the upstream is asked).
  const trace =
    deps.tracing &&
    (await deps.tracing.startGateway({
      model: request.model,
      upstreamModel: String(request.upstreamBody.model ?? request.model),
      stream: request.stream,
      baseURL: deps.upstream.baseURL,
      carrier: deps.carrier,
      protocol: deps.codec?.protocol ?? 'chat',
      ...(deps.provider ? { provider: deps.provider } : {}),
    }));
  // Each upstream attempt's span, open from its request until its calls are gated (record) or the answer settles.
  const attempts = new Map<number, ChatTrace>();
  let asked = 0;
  // When each attempt was asked: its wall time goes on its rows.
  const askedAt = new Map<number, number>();
  const upstream = {
    ask(body: Record<string, unknown>) {
      asked++;
      askedAt.set(asked, performance.now());
      const span = trace?.attempt(asked);
      if (span) attempts.set(asked, span);
      const request = { signal: abort.signal, headers: span?.headers };
      return deps.call ? deps.call(body, request) : callUpstream(deps.upstream, body, request);
    },
    endTrace(status: number, verdict: string, error: unknown) {
      for (const span of attempts.values()) span.end({ error });
      attempts.clear();
      trace?.end({ verdict, attempts: 1, status, error });
    },
  };
  let first: UpstreamResult;
  try {
    first = await upstream.ask(request.upstreamBody);
  } catch (err) {
    deps.signal.removeEventListener('abort', onClientAbort);
    upstream.endTrace(err instanceof Error && 'status' in err ? Number((err as { status: unknown }).status) : 502, 'none', err);
    throw err;
  }
  if (!first.ok) {
    deps.signal.removeEventListener('abort', onClientAbort);
    upstream.endTrace(first.status, 'none', { status: first.status });
    return {
      kind: 'json',
      status: first.status,
      headers: { ...first.headers, 'content-type': 'application/json', ...idHeader },
      body: jsonText(first.body), // the upstream's error body, nested as deep as it came (docs/configuration.md § Limits)
    };
  }

  const ctx = { requestId, userId: deps.userId, model: request.model, protocol: deps.codec?.protocol ?? ('chat' as const) };
  const run: AttemptsRun = {
    request,
    first: first.response,
    firstChunks: first.chunks,
    ask: upstream.ask,
    retries: deps.retries,
    record(calls: GatedCall[], attempt: number, said: AttemptSaid) {
      recordAttempt(deps.activity, ctx, { attempt, calls, ...said, ms: performance.now() - (askedAt.get(attempt) ?? performance.now()) });
      deps.onUsage?.(said.usage);
      if (!trace) return;
      for (const call of calls) trace.gated(call.proposed, call.verdict, attempt);
      attempts.get(attempt)?.end({});
      attempts.delete(attempt);
    },
    settled(result: Settled) {
      deps.signal.removeEventListener('abort', onClientAbort);
      if (trace) {
        for (const span of attempts.values()) span.end({});
        attempts.clear();
        trace.end({ verdict: result.outcome, attempts: result.attempts, status: 200 });
      }
      if (result.outcome === 'blocked') {
        // The names are the model's: quoted (escaped and cut), and only the first few.
        const names = result.delivered.filter((c) => c.verdict.verdict === 'blocked').map((c) => c.proposed.name);
        const listed = names.slice(0, 10).map((n) => quote(n, 80));
        log(
          `rebound gateway ${requestId}: ${names.length} call(s) still blocked after ${result.attempts} attempt(s), passed on unchanged: ${listed.join(', ')}${names.length > 10 ? ` and ${names.length - 10} more` : ''}`,
        );
      }
      deps.onSettled?.(result);
    },
  };

  if (request.stream) {
    const type = first.response.headers.get('content-type') ?? '';
    if (!/event-stream/i.test(type)) {
      // An upstream that answers a streaming request with something else: passed on as it is.
      run.settled({ attempts: 1, outcome: 'none', delivered: [] });
      return {
        kind: 'json',
        status: first.response.status,
        headers: { 'content-type': type || 'application/json', ...idHeader },
        body: await first.response.text(),
      };
    }
    return { kind: 'stream', status: 200, headers: idHeader, body: gatewayStream({ ...run, open: deps.openStream, abort }) };
  }

  const done = await gatewayComplete(run);
  return {
    kind: 'json',
    status: done.status,
    headers: {
      'content-type': done.contentType,
      ...idHeader,
      'x-rebound-attempts': String(done.attempts),
      'x-rebound-verdict': done.outcome,
    },
    body: done.body,
  };
}
