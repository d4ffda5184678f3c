// A streaming request (`stream: true`) from the first upstream answer to `data: [DONE]`: each
// attempt through the held-call transformer, the retries for blocked calls (invisible to the client
// but as latency), keepalive comments while nothing is written, then the finish chunk (finish_reason
// "tool_calls" when calls went out; `rebound: {attempts, verdict}` beside it), the usage of every
// attempt (its own chunk when the client asked for it, otherwise on the finish chunk) and [DONE].
// The response headers went out with the first attempt, so the verdict travels in the finish chunk.
// Everything is written through the server's one SSE writer (StreamChannel), which the route hands
// down: the upstream is read only as fast as the client takes the answer, and aborted when it leaves.
import { reaskLoop } from 'rebound-gate/host';
import { SseDecoder, sseBatches } from '../model/sse-decode.ts';
import type { AttemptSaid } from './activity.ts';
import { Delivery } from './delivery.ts';
import { finishReason, outcomeOf, type GatedCall, type Outcome } from './gated-call.ts';
import { HeldStream, type AttemptResult } from './held-stream.ts';
import type { StreamedBody } from './gateway-response.ts';
import type { GatewayRequest } from './request.ts';
import { blockedOf, retryMessages } from './retry.ts';
import { cutCall, cutCallError, tooLongStream } from './stream-limits.ts';
import type { ChatChunks, UpstreamResult } from './upstream.ts';
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
  /** A native upstream's first answer as chunk objects (UpstreamResult `chunks`): read instead of `first`'s body. */
  firstChunks?: ChatChunks | undefined;
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
  /** Sends what was written now rather than once the tick is over. */
  flush(): void;
  /**
   * A protocol codec's channel (codecs/protocol.ts) takes the core's chunks as objects too: what `write`
   * would get as `data: <the chunk's JSON>`, without the text to read back (Delivery's `read`).
   */
  chunk?(chunk: Record<string, unknown>): void;
  /**
   * And a run of upstream text chunks that repeat a learned one (Delivery's `like`: no error, usage,
   * finish or call in them) as that chunk and their texts, `texts[from..to)`: what `chunk` would get,
   * one by one, as the chunk with each text as its delta's content, without a copy made for each delta
   * or a call for each (a codec writes the run's events as one write).
   */
  texts?(like: Record<string, unknown>, texts: readonly string[], from: number, to: number): void;
}
export type OpenStream = (run: (out: StreamChannel, signal: AbortSignal) => Promise<void>) => StreamedBody;

export interface StreamRun extends AttemptsRun {
  /** The SSE writer the answer goes through (keepalives, backpressure, the client leaving). */
  open: OpenStream;
  /** Aborted when the client goes away: stops the upstream request. */
  abort: AbortController;
}

export function gatewayStream(run: StreamRun): StreamedBody {
  return run.open(async (out, signal) => {
    const onGone = () => run.abort.abort(signal.reason);
    if (signal.aborted) onGone();
    else signal.addEventListener('abort', onGone, { once: true });
    const delivery = new Delivery(
      (text) => out.write(text),
      out.chunk && ((chunk) => out.chunk!(chunk)),
      out.texts && ((like, texts, from, to) => out.texts!(like, texts, from, to)),
    );
    let broken: unknown;
    try {
      // What a read of the upstream produced goes out as the read is done, not on the next turn of the
      // event loop: then the reader waits for the client to take it. A gated call goes out as it is
      // delivered, ahead of the rest of its read (attempts).
      broken = await attempts(
        run,
        delivery,
        () => {
          out.flush();
          return out.drained();
        },
        () => out.flush(),
      );
    } catch (err) {
      console.error('rebound gateway: stream failed', err);
      throw err;
    } finally {
      signal.removeEventListener('abort', onGone);
    }
    // The first attempt's stream broke: the client sees the connection fail, as it would without the gateway;
    // past a cap of the decoder, an error event says why (stream-limits.ts).
    const tooLong = tooLongStream(broken);
    if (tooLong) delivery.chunk(tooLong);
    else if (broken) throw broken;
  });
}

/** An attempt's answer: the upstream's response, and a native upstream's chunks as objects (read instead of its body). */
interface Answer {
  response: Response;
  chunks?: ChatChunks | undefined;
}

/**
 * Runs the attempts; resolves with the error that broke the first attempt's stream, if one did.
 * `drained` sends what was written and waits for the client to take it (after each upstream read);
 * `flush` sends it now: after the event that completed a call, whose gated call goes out then rather
 * than after the rest of the read (its usage, [DONE], the body's end: docs/benchmarks.md § The
 * streaming paths at the physical limit (issue 34), H1 of the fifth session).
 */
async function attempts(run: StreamRun, delivery: Delivery, drained: () => Promise<void>, flush: () => void): Promise<unknown> {
  const { request } = run;
  const messages = [...(request.upstreamBody.messages as unknown[])];
  let usage: UsageRecord | null = null;
  /** The last attempt read; `stopped`: the stream ended early (the client left, the upstream reported an error, or the first attempt broke: the error). */
  const state: { last: AttemptResult | null; stopped: { broken: unknown } | null } = { last: null, stopped: null };
  // The one re-ask loop (rebound-gate/host): each attempt's stream read here, a re-ask for its blocked calls.
  const end = await reaskLoop<Answer, Record<string, unknown>>({
    retries: run.retries,
    first: { response: run.first, chunks: run.firstChunks },
    ask: async (body) => {
      const next = await run.ask(body);
      return next.ok && next.response.body ? next : null;
    },
    read: async ({ response, chunks }, { attempt, first, last: isLast }) => {
      const held = new HeldStream({ toolset: request.toolset, extractTextCalls: request.extractTextCalls, first, last: isLast, delivery });
      // The next upstream read waits until the client has taken this one's output.
      const next = async () => {
        await drained();
        return held.failed || run.abort.signal.aborted;
      };
      let broken: unknown = null;
      /** The calls delivered so far: one more after a push is sent at once. */
      let sent = delivery.calls.length;
      try {
        if (chunks) {
          for await (const batch of chunks) {
            for (const chunk of batch) {
              held.pushChunk(chunk);
              if (delivery.calls.length !== sent) sent = sendCalls(delivery, flush);
            }
            if (await next()) break;
          }
        } else {
          // The attempt's lane reads the runs of text chunks straight from each read (held-stream.ts).
          for await (const batch of sseBatches(response.body!, new SseDecoder({}, held.lane))) {
            for (const message of batch) {
              held.push(message);
              if (delivery.calls.length !== sent) sent = sendCalls(delivery, flush);
            }
            if (await next()) break;
          }
        }
      } catch (err) {
        broken = err;
      }
      const result = held.end();
      await drained();
      run.record(result.calls, attempt, { text: result.visibleText, usage: result.usage });
      usage = addUsage(usage, result.usage);
      if (run.abort.signal.aborted || result.failed || (broken && first)) {
        // The client left, the upstream reported an error (passed on), or the stream broke before any
        // retry: the client sees it end as it would without the gateway.
        state.stopped = { broken: run.abort.signal.aborted ? null : broken };
        return { blocked: 0, reask: null };
      }
      state.last = result;
      const blocked = blockedOf(result.calls);
      // A retry's stream that broke: the answer stands as the model gave it.
      if (broken) return { blocked: blocked.length, reask: null };
      return {
        blocked: blocked.length,
        reask: () => {
          messages.push(...retryMessages(result.visibleText, blocked));
          return { ...request.upstreamBody, messages: [...messages] };
        },
      };
    },
  });
  if (state.stopped || !state.last) {
    run.settled({ attempts: end.attempts, outcome: outcomeOf(delivery.calls), delivered: delivery.calls });
    return state.stopped?.broken ?? null;
  }
  finish(run, delivery, { last: state.last, attempt: end.attempts, usage });
  return null;
}

/** The calls just delivered go out now (`flush`); returns how many have been delivered. */
function sendCalls(delivery: Delivery, flush: () => void): number {
  flush();
  return delivery.calls.length;
}

/** How the stream's attempts ended: the last one's result, how many there were, the usage of all. */
interface Ending {
  last: AttemptResult;
  attempt: number;
  usage: UsageRecord | null;
}

function finish(run: StreamRun, delivery: Delivery, { last, attempt, usage }: Ending): void {
  // Still blocked with no retry left: the calls go out as the model wrote them, unless one was kept only
  // in part (past the gate's argument limit): then an error event ends the answer (stream-limits.ts).
  const blocked = blockedOf(last.calls);
  const cut = cutCall(blocked);
  if (cut) delivery.chunk(cutCallError(cut));
  else for (const g of blocked) delivery.call(g);
  const outcome = outcomeOf(delivery.calls);
  if (cut) {
    run.settled({ attempts: attempt, outcome, delivered: delivery.calls });
    return;
  }
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
