// The loop's side of a pause for a person (docs/approval.md): a call that must wait is set aside with
// the preview of what it would change (ask), the turn's state and what it waits for are stored in one
// step and announced (pause), and when the turn goes on each waiting call is settled by the answer the
// store has (answered). The person's side, deciding and going on, is src/turns/approvals.ts.
//
// One mechanism for every kind of person's answer: the pause stores the turn's state and what it waits
// for, announces each, and settles each on resume by its kind. Two kinds: a call's approval, and a
// server's question to the person (MCP elicitation: WaitingCall.input, made by `question`), stored,
// announced (approval_required / input_required) and settled through these functions, and answered at
// the same desk. A question's stored record holds the question as its `arguments`, and the person's
// answer ({action, content}) replaces them when it is recorded, as an approval's edit does.
import type { ProposedCall } from 'rebound-gate';
import { quote } from '../quote.ts';
import type { CallOutcome } from '../calls/call-outcome.ts';
import type { Escalation, Execution, PassedVerdict } from '../calls/types.ts';
import type { ApprovalRecord, ApprovalStore } from '../store/types.ts';
import type { TurnTrace } from '../telemetry/index.ts';
import { type ApprovalNames, argumentsHash, needsApproval, newApprovalId } from '../tools/approval.ts';
import { type InputAnswer, type InputQuestion, type InputReply, newInputId } from '../tools/input.ts';
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

/** A call whose MCP server asked the person a question (src/tools/input.ts) set aside until they answer. */
export async function question(
  { call, verdict, question }: { call: ProposedCall; verdict: PassedVerdict; question: InputQuestion },
  { startedAt }: { startedAt: number },
): Promise<WaitingCall> {
  return {
    call,
    verdict,
    approvalId: newInputId(),
    argsHash: await argumentsHash(questionRecord(question)),
    expiresAt: '', // set when the turn pauses
    input: question,
    durationMs: performance.now() - startedAt,
  };
}

/** A question as its stored record's `arguments`. */
function questionRecord(q: InputQuestion): Record<string, unknown> {
  return { ...q };
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
    arguments: w.input ? questionRecord(w.input) : w.verdict.call.args,
    argsHash: w.argsHash,
    expiresAt,
  }));
  // Traced: the span's context goes with the state, so the continuation's span links to this one wherever it runs.
  const carrier = trace?.carrier;
  const state = carrier?.traceparent ? { ...paused, trace: carrier } : paused;
  const stored = await approvals.pause({ turnId, paused: { state, lastSeq: lastSeq + waiting.length }, approvals: asked });
  if (!stored) throw new Error('the turn is no longer running, so it could not pause for approval');
  for (const w of waiting) {
    if (w.input) {
      const { server, tool, message, mode, requestedSchema, url } = w.input;
      sink({
        event: 'input_required',
        data: {
          inputId: w.approvalId,
          toolCallId: w.call.id,
          name: w.verdict.call.name,
          server,
          tool,
          mode,
          message,
          ...(requestedSchema ? { requestedSchema } : {}),
          ...(url ? { url } : {}),
          expiresAt,
        },
      });
      continue;
    }
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
    /** Runs the approved call (sent again with the person's answer to its server's question): its execution, and the loop breaker's escalation when it failed. */
    execute: (approved: PassedVerdict, input?: InputReply) => Promise<{ execution: Execution; escalation: Escalation | null }>;
  },
): Promise<CallOutcome> {
  traceDecision(trace, waiting, record);
  const { call, verdict, durationMs } = waiting;
  if (waiting.input) return answeredQuestion(waiting, waiting.input, record, { turnId, log, execute });
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

/**
 * A call whose server asked the person a question, settled by the answer: sent again with it (accept,
 * decline and cancel alike: the server decides what each means), or, unanswered (expired, or the turn
 * stopped), not sent, the model told why. A decline or cancel is an error the model reads with what the
 * server said, so that it does not take the call as done.
 */
async function answeredQuestion(
  waiting: WaitingCall,
  q: InputQuestion,
  record: ApprovalRecord | undefined,
  {
    turnId,
    log,
    execute,
  }: {
    turnId: string;
    log: (line: string) => void;
    execute: (approved: PassedVerdict, input?: InputReply) => Promise<{ execution: Execution; escalation: Escalation | null }>;
  },
): Promise<CallOutcome> {
  const { call, verdict, durationMs } = waiting;
  const asked = `the MCP server ${quote(q.server)} asked the user ${quote(q.message, 200)} before running ${quote(q.tool)}`;
  const notRun = (why: string, elicitation: 'expired' | 'unanswered'): CallOutcome => ({
    kind: 'executed',
    call,
    verdict,
    elicitation,
    execution: {
      ok: false,
      error: `${asked}, and ${why}: the tool did not run.`,
      hint: 'Do not call it again unless the user asks; continue without it, or ask the user.',
      timedOut: false,
    },
    escalation: null,
    durationMs,
  });
  if (!record || record.status === 'pending') return notRun('the turn was stopped before they answered', 'unanswered');
  if (record.status === 'expired') return notRun('nobody answered in time', 'expired');
  const answer = record.arguments as Partial<InputAnswer>;
  if (record.toolCallId !== call.id || record.turnId !== turnId || record.argsHash !== (await argumentsHash(record.arguments)) || !isAnswer(answer)) {
    log(`rebound: turn ${turnId}: input ${record.id} does not match call ${quote(call.id)}; not sent`);
    return notRun('the answer did not match this call', 'unanswered');
  }
  const t0 = performance.now();
  const { execution, escalation } = await execute(verdict, { question: q, answer });
  const spent = durationMs + performance.now() - t0;
  const elicitation = answer.action;
  if (answer.action === 'accept') return { kind: 'executed', call, verdict, execution, escalation, elicitation, durationMs: spent };
  if (!execution.ok) {
    const said = { ...execution, error: `${asked}, and they chose ${answer.action}. ${execution.error}` };
    return { kind: 'executed', call, verdict, execution: said, escalation, elicitation, durationMs: spent };
  }
  const why = answer.action === 'decline' ? 'they declined' : 'they dismissed the question';
  return {
    kind: 'executed',
    call,
    verdict,
    execution: {
      ok: false,
      error: `${asked}, and ${why}. The server answered: ${execution.json.slice(0, 2_000)}`,
      hint: 'Do not call it again unless the user asks; continue without it, or ask the user.',
      timedOut: false,
    },
    escalation: null,
    elicitation,
    durationMs: spent,
  };
}

function isAnswer(a: Partial<InputAnswer>): a is InputAnswer {
  return (
    (a.action === 'accept' || a.action === 'decline' || a.action === 'cancel') &&
    (a.content === undefined || (typeof a.content === 'object' && a.content !== null))
  );
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
