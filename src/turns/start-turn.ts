// Starting a claimed turn: its producer (the loop, loop/turn.ts, with the turn's tools) handed to the
// placement, where it runs to its end whatever its readers do. Where more than one instance serves
// the storage, a stop asked on another instance reaches the producer through the turn's row, which it
// polls (watchForStop).
import type { ActivityWriter } from '../activity/types.ts';
import type { TurnResume } from '../loop/pause.ts';
import { runTurn, type TurnLimits } from '../loop/turn.ts';
import type { ApprovalNames } from '../tools/approval.ts';
import type { ModelClient } from '../model/types.ts';
import type { SessionStore, Storage, TurnRecord } from '../store/types.ts';
import type { TraceCarrier, Tracing } from '../telemetry/index.ts';
import type { LiveTurn } from './live-turns.ts';
import type { TurnPlacement } from './placement.ts';
import { type ToolSet, turnToolOpener } from './turn-tools.ts';

/** What a turn runs with: the storage it reads and saves, the model, its tools, where its calls are logged. */
export interface TurnAgent extends ToolSet {
  storage: Storage;
  model: ModelClient;
  activity: ActivityWriter;
  systemPrompt?: string;
  /** Which calls wait for a person (APPROVAL_TOOLS, APPROVAL_TIMEOUT_MS; docs/approval.md § Which calls); absent: none. */
  approval?: { names: ApprovalNames; timeoutMs: number };
}

export interface StartTurnInput {
  turn: TurnRecord;
  agent: TurnAgent;
  limits: TurnLimits;
  placement: TurnPlacement;
  /** Keeps the platform alive until the turn has settled and its activity is flushed. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** Poll the turn's row for a stop asked on another instance (false where this is the only one). */
  watchForStop: boolean;
  /** Traces on: the turn is an invoke_agent span, a child of the caller's span when `carrier` has one. */
  tracing?: Tracing;
  carrier?: TraceCarrier;
  /** A turn paused for approval, going on in the same log (TurnService.continueTurn). */
  resume?: TurnResume;
}

/** Starts a claimed turn through the placement. It ends on its own budgets, or on stop(). */
export function startTurn({ turn, agent, limits, placement, waitUntil, watchForStop: watch, tracing, carrier, resume }: StartTurnInput): LiveTurn {
  const live = placement.start({
    turnId: turn.id,
    events: agent.storage.turnEvents,
    waitUntil,
    ...(resume ? { after: resume.lastSeq } : {}),
    produce: async (emit, signal) => {
      // The span is handed to the loop with the turn, so the turn keeps its trace wherever and however long it runs.
      const { model } = agent;
      const continues = resume?.paused.trace;
      const trace = await tracing?.startTurn({
        turnId: turn.id,
        sessionId: turn.sessionId,
        model: model.model,
        demo: model.demo,
        carrier,
        ...(continues ? { continues } : {}),
      });
      let ended: 'paused' | undefined;
      try {
        const { storage, tools, activity, systemPrompt, approval } = agent;
        const openTools = turnToolOpener(agent);
        ended = await runTurn(
          turn,
          { storage, model, tools, activity, limits, systemPrompt, waitUntil, trace, ...(approval ? { approval } : {}), ...(openTools ? { openTools } : {}) },
          { sink: emit, signal, ...(resume ? { resume } : {}) },
        );
      } finally {
        // runTurn ends the span with the turn's result; this only ends one a failure before it left open.
        trace?.end({ reason: 'error', iterations: 0, usage: { promptTokens: 0, completionTokens: 0 } });
      }
      // On the edge the turn's spans go out now, within waitUntil (the isolate may go once it settles); a
      // long-lived process leaves them to the batch processor, one export per OTEL_BSP_SCHEDULE_DELAY.
      if (tracing && waitUntil) waitUntil(tracing.flush());
      return ended;
    },
  });
  if (watch) watchForStop(agent.storage.sessions, live);
  return live;
}

/**
 * A stop asked for on another instance reaches this producer through the turn row, checked about once
 * a second. Each check comes after a random 75–100% of STOP_POLL_MS, as keepalives do (http/sse.ts), so
 * the turns started in one busy moment do not all query at the same instant ever after.
 */
function watchForStop(sessions: SessionStore, live: LiveTurn): void {
  const turnId = live.log.turnId;
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
