// A streaming request (`stream: true`) from the first upstream answer to `data: [DONE]`: each
// attempt through the held-call transformer, the retries for blocked calls (invisible to the client
// but as latency), keepalive comments while nothing is written, then the finish chunk (finish_reason
// "tool_calls" when calls went out; `rebound: {attempts, verdict}` beside it), the usage of every
// attempt (its own chunk when the client asked for it, otherwise on the finish chunk) and [DONE].
// The response headers went out with the first attempt, so the verdict travels in the finish chunk.
// Everything is written through the server's one SSE writer (StreamChannel), which the route hands
// down: the upstream is read only as fast as the client takes the answer, and aborted when it leaves.
import { sseBatches } from '../model/sse-decode.ts';
import type { AttemptSaid } from './activity.ts';
import { Delivery } from './delivery.ts';
import { finishReason, outcomeOf, type GatedCall, type Outcome } from './gated-call.ts';
import { HeldStream, type AttemptResult } from './held-stream.ts';
import type { GatewayRequest } from './request.ts';
import { blockedOf, retryMessages, shouldRetry } from './retry.ts';
import type { UpstreamResult } from './upstream.ts';
import { addUsage, type UsageRecord } from './usage.ts';

export interface Settled {
  attempts: number;
  outcome: Outcome;
  /** The calls the client received, in order. */
  delivered: GatedCall[];
}

export interface AttemptsRun {
  request: GatewayRequest;
  /** The first attempt's upstream response (2xx). */
  first: Response;
  /** Asks the upstream again with this body. */
  ask(body: Record<string, unknown>): Promise<UpstreamResult>;
  retries: number;
  /** Every attempt's gated calls, for the activity log. */
  /** An attempt's calls are gated: `said` is the attempt's visible text and its usage as the upstream reported it (the cost rows carry). */
  record(calls: GatedCall[], attempt: number, said: AttemptSaid): void;
  /** Once, when the answer is complete (or the client is gone). */
  settled(result: Settled): void;
}

/**
 * Where the answer is written: the server's one SSE writer (src/http/sse.ts), handed down by the route.
 * `write` queues text for the client; `drained` resolves once the client has taken enough of it, so the
 * upstream is read only as fast as the client reads the answer. `signal` aborts when the client is gone
 * or was closed for taking nothing.
 */
export interface StreamChannel {
  write(text: string): void;
  drained(): Promise<void>;
}
export type OpenStream = (run: (out: StreamChannel, signal: AbortSignal) => Promise<void>) => ReadableStream<Uint8Array>;

export interface StreamRun extends AttemptsRun {
  /** The SSE writer the answer goes through (keepalives, backpressure, the client leaving). */
  open: OpenStream;
  /** Aborted when the client goes away: stops the upstream request. */
  abort: AbortController;
}

export function gatewayStream(run: StreamRun): ReadableStream<Uint8Array> {
  return run.open(async (out, signal) => {
    const onGone = () => run.abort.abort(signal.reason);
    if (signal.aborted) onGone();
    else signal.addEventListener('abort', onGone, { once: true });
    const delivery = new Delivery((text) => out.write(text));
    let broken: unknown;
    try {
      broken = await attempts(run, delivery, () => out.drained());
    } catch (err) {
      console.error('rebound gateway: stream failed', err);
      throw err;
    } finally {
      signal.removeEventListener('abort', onGone);
    }
    // The first attempt's stream broke: the client sees the connection fail, as it would without the gateway.
    if (broken) throw broken;
  });
}

/** Runs the attempts; resolves with the error that broke the first attempt's stream, if one did. */
async function attempts(run: StreamRun, delivery: Delivery, drained: () => Promise<void>): Promise<unknown> {
  const { request } = run;
  const messages = [...(request.upstreamBody.messages as unknown[])];
  let response = run.first;
  let attempt = 1;
  let usage: UsageRecord | null = null;
  for (;;) {
    const held = new HeldStream({
      toolset: request.toolset,
      extractTextCalls: request.extractTextCalls,
      first: attempt === 1,
      last: attempt > run.retries,
      delivery,
    });
    let broken: unknown = null;
    try {
      for await (const batch of sseBatches(response.body!)) {
        for (const message of batch) held.push(message);
        // The next upstream read waits until the client has taken this one's output.
        await drained();
        if (held.failed || run.abort.signal.aborted) break;
      }
    } catch (err) {
      broken = err;
    }
    const result: AttemptResult = held.end();
    await drained();
    run.record(result.calls, attempt, { text: result.visibleText, usage: result.usage });
    usage = addUsage(usage, result.usage);
    if (run.abort.signal.aborted || result.failed || (broken && attempt === 1)) {
      // The client left, the upstream reported an error (passed on), or the stream broke before any
      // retry: the client sees it end as it would without the gateway.
      run.settled({ attempts: attempt, outcome: outcomeOf(delivery.calls), delivered: delivery.calls });
      return run.abort.signal.aborted ? null : broken;
    }
    if (!broken && shouldRetry(attempt, run.retries, result.calls)) {
      messages.push(...retryMessages(result.visibleText, blockedOf(result.calls)));
      const next = await run.ask({ ...request.upstreamBody, messages: [...messages] }).catch(() => null);
      if (next?.ok && next.response.body) {
        response = next.response;
        attempt++;
        continue;
      }
      // The retry itself failed: the answer stands as the model gave it.
    }
    finish(run, delivery, { last: result, attempt, usage });
    return null;
  }
}

/** How the stream's attempts ended: the last one's result, how many there were, the usage of all. */
interface Ending {
  last: AttemptResult;
  attempt: number;
  usage: UsageRecord | null;
}

function finish(run: StreamRun, delivery: Delivery, { last, attempt, usage }: Ending): void {
  // Still blocked with no retry left: the calls go out as the model wrote them.
  for (const g of blockedOf(last.calls)) delivery.call(g);
  const outcome = outcomeOf(delivery.calls);
  const reason = finishReason(
    last.finishReason,
    delivery.calls,
    last.calls.some((c) => !c.embedded),
  );
  const includeUsage = run.request.includeUsage;
  if (reason !== null) {
    delivery.finish(last.finishChoice, reason, { rebound: { attempts: attempt, verdict: outcome }, ...(usage && !includeUsage ? { usage } : {}) });
  }
  if (usage && includeUsage) delivery.usage(usage);
  delivery.done();
  run.settled({ attempts: attempt, outcome, delivered: delivery.calls });
}
