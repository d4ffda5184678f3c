// The loop's side of a pause for a person (docs/approval.md): a call that must wait is set aside with
// the preview of what it would change (ask), the turn's state and what it waits for are stored in one
// step and announced (pause), and when the turn goes on each waiting call is settled by the answer the
// store has (answered). The person's side, deciding and going on, is src/turns/approvals.ts.
//
// One mechanism for every kind of person's answer: the pause stores the turn's state and what it waits
// for, announces each, and settles each on resume by its kind. Today the one kind is a call's approval;
// a server's question to the person (MCP elicitation) is a second kind of WaitingCall (`kind`), stored,
// announced and settled through these three functions, and decided at the same desk.
import type { ProposedCall } from 'rebound-gate';
import { quote } from '../quote.ts';
import type { CallOutcome } from '../calls/call-outcome.ts';
import type { Escalation, Execution, PassedVerdict } from '../calls/types.ts';
import type { ApprovalRecord, ApprovalStore } from '../store/types.ts';
import type { TurnTrace } from '../telemetry/index.ts';
import { type ApprovalNames, argumentsHash, needsApproval, newApprovalId } from '../tools/approval.ts';
import type { Tool, ToolContext } from '../tools/types.ts';
import type { Emit } from '../vocabulary.ts';
import type { PausedLoop, WaitingCall } from './paused.ts';
import { previewDiffs } from './preview.ts';

/** APPROVAL_TIMEOUT_MS's default, for deps that name no approval policy. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 900_000;

/** A turn paused for approval, going on: its stored state and the decisions on its waiting calls. */
export interface TurnResume {
  paused: PausedLoop;
  /** The turn's approvals as the store has them (decided, or still pending when the turn was stopped). */
  decisions: ApprovalRecord[];
  /** The seq of the last event the turn logged before it paused: the events go on from there. */
  lastSeq: number;
}

/** Which calls wait for a person, and for how long (TurnDeps.approval). */
export interface ApprovalPolicy {
  names: ApprovalNames;
  timeoutMs: number;
}

/**
 * A call that passed the gate, set aside for a person when the policy or its tool says it waits (with
 * the diffs it would make, rehearsed on an overlay of the workspace); null when it runs at once.
 */
export async function ask(
  { call, verdict, tool, ctx }: { call: ProposedCall; verdict: PassedVerdict; tool: Tool; ctx: Omit<ToolContext, 'signal'> },
  { policy, timeoutMs, signal, startedAt }: { policy: ApprovalPolicy | undefined; timeoutMs: number; signal: AbortSignal; startedAt: number },
): Promise<WaitingCall | null> {
  if (!policy || !(await needsApproval(tool, verdict.call.args, { names: policy.names, context: { scope: ctx.scope } }))) return null;
  const diffs = await previewDiffs(tool, verdict.call.args, ctx, { timeoutMs, signal });
  return {
    call,
    verdict,
    approvalId: newApprovalId(),
    argsHash: await argumentsHash(verdict.call.args),
    expiresAt: '', // set when the turn pauses
    ...(diffs ? { diffs } : {}),
    durationMs: performance.now() - startedAt,
  };
}

/**
 * Pauses the turn: its state and what it waits for stored in one step (the turn becomes
 * awaiting_approval), then `approval_required` for each waiting call, so a decision never finds its
 * approval missing. Throws when the turn could not pause (it is no longer running): the loop ends it
 * as an error.
 */
export async function pause(
  turnId: string,
  { paused, sink, lastSeq }: { paused: PausedLoop; sink: Emit; lastSeq: number },
  { approvals, timeoutMs, trace }: { approvals: ApprovalStore; timeoutMs: number; trace?: TurnTrace },
): Promise<void> {
  const { waiting } = paused.batch;
  const expiresAt = new Date(Date.now() + timeoutMs).toISOString();
  for (const w of waiting) w.expiresAt = expiresAt;
  const asked = waiting.map((w) => ({
    id: w.approvalId,
    toolCallId: w.call.id,
    toolName: w.verdict.call.name,
    arguments: w.verdict.call.args,
    argsHash: w.argsHash,
    expiresAt,
  }));
  // Traced: the span's context goes with the state, so the continuation's span links to this one wherever it runs.
  const carrier = trace?.carrier;
  const state = carrier?.traceparent ? { ...paused, trace: carrier } : paused;
  const stored = await approvals.pause({ turnId, paused: { state, lastSeq: lastSeq + waiting.length }, approvals: asked });
  if (!stored) throw new Error('the turn is no longer running, so it could not pause for approval');
  for (const w of waiting) {
    sink({
      event: 'approval_required',
      data: {
        approvalId: w.approvalId,
        toolCallId: w.call.id,
        name: w.verdict.call.name,
        arguments: w.verdict.call.args,
        ...(w.diffs ? { diffs: w.diffs } : {}),
        expiresAt,
      },
    });
  }
  trace?.end({ reason: 'awaiting_approval', iterations: paused.state.iteration, usage: paused.state.usage, waiting: waiting.length });
}

/**
 * A waiting call settled by its answer (`record`: the store's, absent or pending for a turn stopped
 * while it waited): run with the approved arguments through `execute` (bound to the call by their hash:
 * a record that does not match this call is taken as a denial), or not run, saying why. Traced on the
 * turn's span with how long the person took.
 */
export async function answered(
  waiting: WaitingCall,
  record: ApprovalRecord | undefined,
  {
    turnId,
    trace,
    log,
    execute,
  }: {
    turnId: string;
    trace?: TurnTrace;
    log: (line: string) => void;
    /** Runs the approved call: its execution, and the loop breaker's escalation when it failed. */
    execute: (approved: PassedVerdict) => Promise<{ execution: Execution; escalation: Escalation | null }>;
  },
): Promise<CallOutcome> {
  traceDecision(trace, waiting, record);
  const { call, verdict, durationMs } = waiting;
  const denied = (approval: 'denied' | 'requested', reason: string | null): CallOutcome => ({
    kind: 'denied',
    call,
    verdict,
    approval,
    reason,
    escalation: null,
    durationMs,
  });
  if (!record || record.status === 'pending') return denied('requested', null);
  if (record.status === 'denied') return denied('denied', record.reason);
  if (record.status === 'expired') return { kind: 'expired', call, verdict, approval: 'expired', reason: null, escalation: null, durationMs };
  if (record.toolCallId !== call.id || record.turnId !== turnId || record.argsHash !== (await argumentsHash(record.arguments))) {
    log(`rebound: turn ${turnId}: approval ${record.id} does not match call ${quote(call.id)}; not run`);
    return denied('denied', 'The approval did not match this call.');
  }
  const approved: PassedVerdict = { ...verdict, call: { ...verdict.call, args: record.arguments } };
  const t0 = performance.now();
  const { execution, escalation } = await execute(approved);
  return { kind: 'executed', call, verdict: approved, execution, escalation, approval: 'approved', durationMs: durationMs + performance.now() - t0 };
}

/** A decision the continuation applies, on the turn's span: which, and how long the person took. */
function traceDecision(trace: TurnTrace | undefined, waiting: WaitingCall, record: ApprovalRecord | undefined): void {
  if (!trace) return;
  const decided = record && record.status !== 'pending' && record.decidedAt ? Date.parse(record.decidedAt) - Date.parse(record.createdAt) : undefined;
  trace.approval({
    approvalId: waiting.approvalId,
    toolCallId: waiting.call.id,
    toolName: waiting.verdict.call.name,
    decision: !record || record.status === 'pending' ? 'requested' : record.status,
    ...(decided !== undefined && decided >= 0 ? { waitMs: decided } : {}),
  });
}
