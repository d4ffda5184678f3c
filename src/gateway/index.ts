// Rebound as an OpenAI-compatible gateway: one Chat Completions request forwarded to the upstream,
// every tool call of the answer through the gate, blocked calls re-asked, the answer to the client
// as the API shapes it. An upstream error before anything was sent passes through with its status
// and body. The route (src/http/routes/gateway.ts) authenticates and validates; this runs it.
//
//   request.ts   what is accepted, the tools after tool_choice     upstream.ts  the upstream call
//   gated-call.ts one call through the gate, what the client gets   retry.ts     the retry policy
//   held-stream.ts the streaming transformer of one attempt         stream.ts    attempts + keepalive
//   complete.ts / response.ts  the non-streaming path               activity.ts  the log rows
//   models.ts    GET /v1/models: the upstream's list under the names a client can send
import type { ActivityWriter } from '../activity/types.ts';
import { recordAttempt } from './activity.ts';
import { gatewayComplete } from './complete.ts';
import type { GatewayRequest } from './request.ts';
import type { GatedCall } from './gated-call.ts';
import { gatewayStream, type AttemptsRun, type Settled } from './stream.ts';
import { callUpstream, type UpstreamOptions } from './upstream.ts';

export { ChatCompletionsBody, GATEWAY_COUNTS, toGatewayRequest, type GatewayRequest } from './request.ts';
export { GatewayError, openAIError, type OpenAIErrorBody } from './errors.ts';
export { listModels } from './models.ts';
export type { Settled } from './stream.ts';

export interface GatewayDeps {
  upstream: UpstreamOptions;
  retries: number;
  keepaliveMs: number;
  activity: ActivityWriter;
  /** The caller's user id (null: local mode or a gateway key). */
  userId: string | null;
  /** The client's request: its abort stops the upstream request. */
  signal: AbortSignal;
  /** Once the answer is complete (or the client left): the place to flush the activity writer. */
  onSettled?: (result: Settled) => void;
  log?: (line: string) => void;
}

export interface GatewayResponse {
  /** 'stream': an SSE body (the route adds the event-stream headers). */
  kind: 'json' | 'stream';
  status: number;
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array>;
}

export async function runGateway(request: GatewayRequest, deps: GatewayDeps): Promise<GatewayResponse> {
  const requestId = crypto.randomUUID();
  const abort = new AbortController();
  const onClientAbort = () => abort.abort(new Error('client disconnected'));
  if (deps.signal.aborted) onClientAbort();
  else deps.signal.addEventListener('abort', onClientAbort, { once: true });
  const idHeader = { 'x-rebound-request-id': requestId };
  const log = deps.log ?? ((line: string) => console.warn(line));

  const ask = (body: Record<string, unknown>) => callUpstream(deps.upstream, body, abort.signal);
  const first = await ask(request.upstreamBody).catch((err: unknown) => {
    deps.signal.removeEventListener('abort', onClientAbort);
    throw err;
  });
  if (!first.ok) {
    deps.signal.removeEventListener('abort', onClientAbort);
    return {
      kind: 'json',
      status: first.status,
      headers: { ...first.headers, 'content-type': 'application/json', ...idHeader },
      body: JSON.stringify(first.body),
    };
  }

  const ctx = { requestId, userId: deps.userId, model: request.model };
  const run: AttemptsRun = {
    request,
    first: first.response,
    ask,
    retries: deps.retries,
    record: (calls: GatedCall[], attempt: number) => recordAttempt(deps.activity, ctx, attempt, calls),
    settled: (result: Settled) => {
      deps.signal.removeEventListener('abort', onClientAbort);
      if (result.outcome === 'blocked') {
        const names = result.delivered.filter((c) => c.verdict.verdict === 'blocked').map((c) => c.proposed.name);
        log(
          `rebound gateway ${requestId}: ${names.length} call(s) still blocked after ${result.attempts} attempt(s), passed on unchanged: ${names.join(', ')}`,
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
    return { kind: 'stream', status: 200, headers: idHeader, body: gatewayStream({ ...run, keepaliveMs: deps.keepaliveMs, abort }) };
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
