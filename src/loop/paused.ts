// A turn paused for approval, as data (docs/approval.md § The pause is stored state): what the loop needs to go on in any process
// once every waiting call has a decision. It is stored as JSON (agent_turns.paused_state, through
// Storage.approvals.pause) and read back by runTurn's `resume`: the turn's state (messages so far with
// the assistant message and the batch's other results, iteration, usage, loop breaker memory), the batch
// whose calls wait (its activity rows held back so the batch's cost shares are split once, over all its
// calls), and the running time so far, so that waiting does not count toward TIME_BUDGET_MS.
import type { ProposedCall } from 'rebound-gate';
import type { ActivityRow } from '../activity/types.ts';
import type { PassedVerdict } from '../calls/types.ts';
import type { ModelCallCost } from '../calls/wasted.ts';
import type { TraceCarrier } from '../telemetry/index.ts';
import type { InputQuestion } from '../tools/input.ts';
import type { FileDiff } from '../vocabulary.ts';
import type { TurnStateSnapshot } from './turn-state.ts';

/** The calls one model call proposed, while they are handled; kept whole while some of them wait. */
export interface Batch {
  /** The model call's visible text and cost: the wasted formula (src/calls/wasted.ts) reads them. */
  visibleText: string;
  cost: ModelCallCost;
  /** For each call handled so far: whether it failed (wasted formula) and repeated a failure (no progress, the nudge). */
  marks: Array<{ failed: boolean; repeated: boolean }>;
  /** Their activity rows, recorded once the whole batch has outcomes. */
  rows: ActivityRow[];
  /** `_next_action` directives of the calls that ran. */
  directives: string[];
  /** The calls that wait for a person, in the order proposed. */
  waiting: WaitingCall[];
}

/**
 * A call that passed the gate and waits for a person; `expiresAt` is set when the turn pauses. Two kinds:
 * its approval (an `apr_` id), or, with `input`, the answer to the question its MCP server asked when it
 * was called (an `inp_` id: docs/approval.md § A server's question).
 */
export interface WaitingCall {
  call: ProposedCall;
  /** The gate's verdict: `verdict.call` is the call as it will run (repaired name and arguments). */
  verdict: PassedVerdict;
  approvalId: string;
  argsHash: string;
  expiresAt: string;
  /** What it would change in the workspace (src/loop/preview.ts), for the person. */
  diffs?: FileDiff[];
  /** The server's question (its stored record's `arguments` are this question, then the person's answer). */
  input?: InputQuestion;
  /** The gate's time, and the preview's. */
  durationMs: number;
}

/** What a paused turn stores. */
export interface PausedLoop {
  version: 1;
  state: TurnStateSnapshot;
  batch: Batch;
  /** When the turn first started (its agent_turns row's started_at). */
  startedAt: string;
  /** Running time before the pause: the time budget left is TIME_BUDGET_MS minus this. */
  elapsedMs: number;
  /** The paused turn's span (tracing on): the continuation's span is its child and links to it. */
  trace?: TraceCarrier;
}

/** A stored state this code can resume, or null (another version, or not a paused loop at all). */
export function readPaused(state: unknown): PausedLoop | null {
  const s = state as Partial<PausedLoop> | null;
  return s && s.version === 1 && s.state && s.batch && Array.isArray(s.batch.waiting) ? (s as PausedLoop) : null;
}
