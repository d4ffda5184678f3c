// What became of one proposed call, as data (its `kind` is vocabulary.ts's CallOutcomeKind): the gate
// blocked it, the loop breaker refused it (its tool is withheld for the rest of the turn), it ran (after
// a person's approval, when it needed one), or a person denied it or let it expire (docs/approval.md § Denied or expired). handleCall in loop/turn.ts produces one; the pure
// functions here say what each party is told of it: the client (the tool_result event) and the model
// (the tool message, one ToolResultPayload shape for every outcome). The activity row is built from
// the same outcome by activityRow (activity-row.ts), with the same category and error.
import type { Category, ProposedCall } from 'rebound-gate';
import { blockedToolResult } from 'rebound-gate/host';
import { bound, MAX_NAME } from 'rebound-gate/internal';
import type { ChatMessage, Elicitation, ToolResultPayload, TurnEvent } from '../vocabulary.ts';
import type { BlockedVerdict, Escalation, Execution, PassedVerdict } from './types.ts';

export type CallOutcome =
  /** The gate refused the call; nothing ran. `escalation` when it repeats an earlier failure of the turn. */
  | { kind: 'blocked'; call: ProposedCall; verdict: BlockedVerdict; escalation: Escalation | null; durationMs: number }
  /** Neither gated nor run: its tool is withheld (loop/loop-breaker.ts); `refusal` is what the model is told. */
  | { kind: 'withheld'; call: ProposedCall; refusal: string; durationMs: number }
  /**
   * The call passed the gate, perhaps repaired, and ran. `escalation` when its failure repeats an earlier
   * one; `approval` when it waited for a person's yes (and ran with the arguments they approved).
   */
  | {
      kind: 'executed';
      call: ProposedCall;
      verdict: PassedVerdict;
      execution: Execution;
      escalation: Escalation | null;
      approval?: 'approved';
      /** Its MCP server asked the person a question first (docs/approval.md § A server's question): their answer, or why there was none. */
      elicitation?: Elicitation;
      durationMs: number;
    }
  /**
   * The call passed the gate and waited for a person, and never ran: they denied it (`reason`, when they
   * gave one), nobody decided within APPROVAL_TIMEOUT_MS (expired), or the turn was stopped while it
   * waited (denied, `approval: 'requested'`: asked, never answered).
   */
  | Unapproved<'denied'>
  | Unapproved<'expired'>;

/** A call that waited for a person and never ran (see CallOutcome). */
export interface Unapproved<K extends 'denied' | 'expired'> {
  kind: K;
  call: ProposedCall;
  verdict: PassedVerdict;
  /** `requested` (with kind denied): the turn was stopped before anyone answered. */
  approval: K | 'requested';
  reason: string | null;
  /** Never a repeat: a denial is not a failure the loop breaker counts. */
  escalation: null;
  durationMs: number;
}

/** What the model, the client and the log are told of a call that waited for a person and never ran. */
export function unapprovedError(outcome: Unapproved<'denied'> | Unapproved<'expired'>): string {
  const name = `"${bound(outcome.verdict.call.name, MAX_NAME)}"`;
  if (outcome.approval === 'requested') return `Tool call ${name} was not executed: the turn was stopped while it waited for the user's approval.`;
  if (outcome.kind === 'expired') {
    return `Tool call ${name} was not executed: nobody approved it in time, so it counts as denied by the user. Do not call it again unless the user asks; continue without it or ask the user.`;
  }
  return `Tool call ${name} was not executed: it was denied by the user. Do not call it again unless the user asks; continue without it, or ask the user what to do instead.`;
}

/**
 * The call's category as the client and the activity log see it: a repeat is its own category, a call
 * that passed the gate and then failed an execution error, a repaired one keeps what was wrong.
 */
export function categoryOf(outcome: CallOutcome): Category {
  if (outcome.kind === 'withheld' || outcome.escalation) return 'repeated_failure';
  if (outcome.kind === 'executed' && !outcome.execution.ok && outcome.verdict.verdict === 'pass') return 'execution_error';
  // A denial is not a hallucination: the call keeps the gate's category.
  return outcome.verdict.category;
}

/** What went wrong, for the client and the activity log (an escalation's note on its own line), or null. */
export function errorOf(outcome: CallOutcome): string | null {
  if (outcome.kind === 'withheld') return outcome.refusal;
  if (outcome.kind === 'denied' || outcome.kind === 'expired') return unapprovedError(outcome);
  if (outcome.kind === 'blocked') return outcome.escalation ? `${outcome.verdict.message}\n${outcome.escalation.note}` : outcome.verdict.message;
  const error = outcome.execution.ok ? null : outcome.execution.error;
  return error !== null && outcome.escalation ? `${error}\n${outcome.escalation.note}` : error;
}

export function toolResultEvent(outcome: CallOutcome): Extract<TurnEvent, { event: 'tool_result' }> {
  const base = { id: outcome.call.id, category: categoryOf(outcome), durationMs: Math.round(outcome.durationMs) };
  if (outcome.kind === 'withheld') {
    return {
      event: 'tool_result',
      data: { ...base, name: bound(outcome.call.name, MAX_NAME), verdict: 'blocked', ok: false, error: outcome.refusal, suggestions: [] },
    };
  }
  if (outcome.kind === 'blocked') {
    return {
      event: 'tool_result',
      data: {
        ...base,
        name: bound(outcome.call.name, MAX_NAME),
        verdict: 'blocked',
        ok: false,
        error: errorOf(outcome)!,
        suggestions: outcome.verdict.suggestions,
      },
    };
  }
  // A call that passed the gate: its name and verdict as the gate made them, then what became of it.
  const { verdict } = outcome;
  const passed = { ...base, name: verdict.call.name, verdict: verdict.verdict };
  const repairs = verdict.verdict === 'repaired' ? { repairs: verdict.repairs } : {};
  if (outcome.kind === 'denied' || outcome.kind === 'expired') {
    const approval = outcome.approval === 'requested' ? {} : { approval: outcome.approval };
    const reason = outcome.reason ? { reason: outcome.reason } : {};
    return { event: 'tool_result', data: { ...passed, ok: false, error: unapprovedError(outcome), ...repairs, ...approval, ...reason } };
  }
  const { execution } = outcome;
  return {
    event: 'tool_result',
    data: {
      ...passed,
      ok: execution.ok,
      ...(execution.ok
        ? {
            result: execution.result,
            ...(execution.truncated ? { truncated: execution.truncated } : {}),
            ...(execution.diffs ? { diffs: execution.diffs } : {}),
          }
        : { error: errorOf(outcome)! }),
      ...repairs,
      ...(outcome.approval ? { approval: outcome.approval } : {}),
    },
  };
}

/** The tool message that answers the call, its content a ToolResultPayload as JSON. */
export function toolMessage(outcome: CallOutcome): Extract<ChatMessage, { role: 'tool' }> {
  return { role: 'tool', tool_call_id: outcome.call.id, content: toolMessageContent(outcome) };
}

function toolMessageContent(outcome: CallOutcome): string {
  if (outcome.kind === 'withheld') return JSON.stringify({ ok: false, error: outcome.refusal } satisfies ToolResultPayload);
  if (outcome.kind === 'blocked') return JSON.stringify(blockedToolResult(outcome.verdict, outcome.escalation));
  if (outcome.kind === 'denied' || outcome.kind === 'expired') {
    const payload: ToolResultPayload = { ok: false, error: unapprovedError(outcome), ...(outcome.reason ? { reason: outcome.reason } : {}) };
    return JSON.stringify(payload);
  }
  const { execution, escalation } = outcome;
  if (execution.ok) return resultContent(execution);
  // A repeated failure's hint is the escalation: the usual "correct the arguments and call again" no longer holds.
  const payload: ToolResultPayload = { ok: false, error: execution.error, hint: escalation ? escalation.note : execution.hint, ...escalation?.shown };
  return JSON.stringify(payload);
}

/** `{"ok":true,"result":…}` around the (bounded) result's JSON, spliced rather than serialised again. */
function resultContent(execution: Extract<Execution, { ok: true }>): string {
  const note = execution.truncated === undefined ? '' : `,"truncated":${JSON.stringify(execution.truncated)}`;
  return `{"ok":true,"result":${execution.json}${note}}`;
}
