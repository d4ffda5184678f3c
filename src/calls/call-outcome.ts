// What became of one proposed call, as data: the gate blocked it, the loop breaker refused it (its
// tool is withheld for the rest of the turn), or it ran. handleCall in loop/turn.ts produces one; the pure
// functions here say what each party is told of it: the client (the tool_result event) and the model
// (the tool message, one ToolResultPayload shape for every outcome). The activity row is built from
// the same outcome by activityRow (activity-row.ts), with the same category and error.
import { blockedToolResult, bound, type Category, MAX_NAME, type ProposedCall } from 'rebound-gate';
import type { ChatMessage, ToolResultPayload, TurnEvent } from '../vocabulary.ts';
import type { BlockedVerdict, Escalation, Execution, PassedVerdict } from './types.ts';

export type CallOutcome =
  /** The gate refused the call; nothing ran. `escalation` when it repeats an earlier failure of the turn. */
  | { kind: 'blocked'; call: ProposedCall; verdict: BlockedVerdict; escalation: Escalation | null; durationMs: number }
  /** Neither gated nor run: its tool is withheld (loop/loop-breaker.ts); `refusal` is what the model is told. */
  | { kind: 'withheld'; call: ProposedCall; refusal: string; durationMs: number }
  /** The call passed the gate, perhaps repaired, and ran. `escalation` when its failure repeats an earlier one. */
  | { kind: 'executed'; call: ProposedCall; verdict: PassedVerdict; execution: Execution; escalation: Escalation | null; durationMs: number };

/**
 * The call's category as the client and the activity log see it: a repeat is its own category, a call
 * that passed the gate and then failed an execution error, a repaired one keeps what was wrong.
 */
export function categoryOf(outcome: CallOutcome): Category {
  if (outcome.kind === 'withheld' || outcome.escalation) return 'repeated_failure';
  if (outcome.kind === 'executed' && !outcome.execution.ok && outcome.verdict.verdict === 'pass') return 'execution_error';
  return outcome.verdict.category;
}

/** What went wrong, for the client and the activity log (an escalation's note on its own line), or null. */
export function errorOf(outcome: CallOutcome): string | null {
  if (outcome.kind === 'withheld') return outcome.refusal;
  const error = outcome.kind === 'blocked' ? outcome.verdict.message : outcome.execution.ok ? null : outcome.execution.error;
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
  const { verdict, execution } = outcome;
  return {
    event: 'tool_result',
    data: {
      ...base,
      name: verdict.call.name,
      verdict: verdict.verdict,
      ok: execution.ok,
      ...(execution.ok
        ? {
            result: execution.result,
            ...(execution.truncated ? { truncated: execution.truncated } : {}),
            ...(execution.diffs ? { diffs: execution.diffs } : {}),
          }
        : { error: errorOf(outcome)! }),
      ...(verdict.verdict === 'repaired' ? { repairs: verdict.repairs } : {}),
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
