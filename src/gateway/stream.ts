// A streaming request (`stream: true`) from the first upstream answer to `data: [DONE]`: each
// attempt through the held-call transformer, the retries for blocked calls (invisible to the client
// but as latency), keepalive comments while nothing is written, then the finish chunk (finish_reason
// "tool_calls" when calls went out; `rebound: {attempts, verdict}` beside it), the usage of every
// attempt (its own chunk when the client asked for it, otherwise on the finish chunk) and [DONE].
// The response headers went out with the first attempt, so the verdict travels in the finish chunk.
import { sseBatches } from '../model/sse-decode.ts';
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
  record(calls: GatedCall[], attempt: number): void;
  /** Once, when the answer is complete (or the client is gone). */
  settled(result: Settled): void;
}

export interface StreamRun extends AttemptsRun {
  keepaliveMs: number;
  /** Aborted when the client goes away: stops the upstream request. */
  abort: AbortController;
}

export function gatewayStream(run: StreamRun): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let closed = false;
  let lastWrite = Date.now();
  let keepalive: ReturnType<typeof setInterval> | undefined;

  return new ReadableStream<Uint8Array>({
    start(controller) {
      // What one upstream read produces goes out as one write: a model streaming fast sends many
      // chunks per read, and a socket write per chunk would cost more than the gateway's own work.
      let pending: string[] = [];
      const flush = () => {
        if (closed || pending.length === 0) return;
        const text = pending.length === 1 ? pending[0]! : pending.join('');
        pending = [];
        try {
          controller.enqueue(encoder.encode(text));
          lastWrite = Date.now();
        } catch {
          closed = true; // the client is gone
        }
      };
      const delivery = new Delivery((text) => {
        if (!closed) pending.push(text);
      });
      keepalive = setInterval(
        () => {
          if (Date.now() - lastWrite < run.keepaliveMs) return;
          delivery.comment('keepalive');
          flush();
        },
        Math.max(25, Math.floor(run.keepaliveMs / 2)),
      );

      const end = (error?: unknown) => {
        clearInterval(keepalive);
        flush();
        if (closed) return;
        closed = true;
        try {
          if (error === undefined) controller.close();
          else controller.error(error);
        } catch {
          /* cancelled meanwhile */
        }
      };
      attempts(run, delivery, flush).then(
        (broken) => end(broken ?? undefined),
        (err) => {
          console.error('rebound gateway: stream failed', err);
          end(err);
        },
      );
    },
    cancel() {
      closed = true;
      clearInterval(keepalive);
      run.abort.abort(new Error('client disconnected'));
    },
  });
}

/** Runs the attempts; resolves with the error that broke the first attempt's stream, if one did. */
async function attempts(run: StreamRun, delivery: Delivery, flush: () => void): Promise<unknown> {
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
        flush();
        if (held.failed) break;
      }
    } catch (err) {
      broken = err;
    }
    const result: AttemptResult = held.end();
    flush();
    run.record(result.calls, attempt);
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
    finish(run, delivery, result, attempt, usage);
    return null;
  }
}

function finish(run: StreamRun, delivery: Delivery, last: AttemptResult, attempt: number, usage: UsageRecord | null): void {
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
