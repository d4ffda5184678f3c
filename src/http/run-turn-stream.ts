// The glue between turns and connections. A claimed turn is started as a producer in this process
// (LiveTurns) and runs to its end whatever its readers do; a stream request is answered with a reader
// of the turn's log, replaying after the client's Last-Event-ID and then following: from memory when
// the turn runs here, from the persisted log when it runs (or ran) elsewhere.
import type { Context } from 'hono';
import type { LoggedEvent } from '../vocabulary.ts';
import { runTurn } from '../loop/turn.ts';
import type { TurnRecord } from '../store/types.ts';
import { unpackEvents } from '../store/turn-events.ts';
import { followPersisted } from '../turns/follow-persisted.ts';
import type { LiveTurn, LiveTurns } from '../turns/live-turns.ts';
import type { AppDeps } from './deps.ts';
import { sseResponse, type SseOptions } from './sse.ts';
import { withTurnTools } from './turn-tools.ts';

/** The platform's waitUntil: the one handed to createApp (Supabase), else the request's execution context (Workers). */
export function waitUntilFor(c: Context, deps: AppDeps): ((promise: Promise<unknown>) => void) | undefined {
  if (deps.waitUntil) return deps.waitUntil;
  try {
    const ctx = c.executionCtx; // throws where the runtime has none (Node)
    return (promise) => ctx.waitUntil(promise);
  } catch {
    return undefined;
  }
}

/** Starts a claimed turn here. It ends on its own budgets, or on stop(). */
export function startTurn(deps: AppDeps, turns: LiveTurns, turn: TurnRecord, c: Context): LiveTurn {
  const waitUntil = waitUntilFor(c, deps);
  const { config } = deps;
  const live = turns.start({
    turnId: turn.id,
    events: deps.storage.turnEvents,
    waitUntil,
    produce: (emit, signal) =>
      withTurnTools(deps, signal, ({ tools, activity }) =>
        runTurn(
          turn,
          {
            storage: deps.storage,
            model: deps.model,
            tools,
            activity,
            limits: {
              maxIterations: config.maxIterations,
              timeBudgetMs: config.timeBudgetMs,
              toolTimeoutMs: config.toolTimeoutMs,
              modelRetries: config.modelRetries,
            },
            systemPrompt: deps.systemPrompt,
            waitUntil,
          },
          emit,
          signal,
        ),
      ),
  });
  if (!deps.singleInstance) watchForStop(deps, live, turn.id);
  return live;
}

/**
 * A stop asked for on another instance reaches this producer through the turn row, checked about once
 * a second. Each check comes after a random 75–100% of STOP_POLL_MS, as keepalives do (sse.ts), so the
 * turns started in one busy moment do not all query at the same instant ever after.
 */
function watchForStop(deps: AppDeps, live: LiveTurn, turnId: string): void {
  const sessions = deps.storage.sessions;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    timer = setTimeout(check, STOP_POLL_MS * (1 - 0.25 * Math.random()));
    (timer as { unref?: () => void }).unref?.();
  };
  const check = () => {
    if (live.log.finished) return;
    void sessions.stopRequested(turnId).then(
      (asked) => asked && live.stop(),
      () => {}, // a failed check is tried again next time
    );
    arm();
  };
  arm();
  void live.settled.finally(() => clearTimeout(timer));
}

const STOP_POLL_MS = 1_000;

/** How a stream writes the turn's events: Rebound's SSE events when absent, else its own frames and headers (ui-stream/). */
export type StreamFormat = Pick<SseOptions, 'frame' | 'headers'>;

/** A stream of a turn running in this process. */
export function liveStream(deps: AppDeps, live: LiveTurn, afterSeq: number, c: Context, format: StreamFormat = {}): Response {
  const abortOnLeave = deps.config.onDisconnect === 'abort';
  return logResponse(
    deps,
    c,
    format,
    (signal) => live.log.read(afterSeq, signal),
    () => {
      if (abortOnLeave && !live.log.finished) live.stop();
    },
  );
}

/** A stream of a turn whose producer is elsewhere (another instance) or gone (finished before). */
export function persistedStream(deps: AppDeps, turn: TurnRecord, afterSeq: number, c: Context, format: StreamFormat = {}): Response {
  const store = deps.storage.turnEvents;
  if (turn.status === 'finished') {
    return logResponse(deps, c, format, async function* () {
      yield* unpackEvents(await store.eventsAfter(turn.id, afterSeq), afterSeq);
    });
  }
  const stillRunning = async () => (await deps.storage.sessions.getTurn(turn.id))?.status === 'running';
  return logResponse(deps, c, format, (signal) => followPersisted({ store, turnId: turn.id, afterSeq, signal, stillRunning }));
}

function logResponse(
  deps: AppDeps,
  c: Context,
  format: StreamFormat,
  read: (signal: AbortSignal) => AsyncIterable<LoggedEvent>,
  onLeave?: () => void,
): Response {
  return sseResponse(
    async (send, signal) => {
      let ended = false;
      for await (const { seq, event } of read(signal)) {
        send(event, seq);
        if (event.event === 'done') ended = true;
      }
      if (!ended && signal.aborted) onLeave?.();
    },
    { keepaliveMs: deps.config.keepaliveMs, requestSignal: c.req.raw.signal, ...format },
  );
}
