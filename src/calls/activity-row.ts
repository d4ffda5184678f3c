// Builds the agent_activity row for one call from its outcome (call-outcome.ts): what the gate, the
// tool and the loop breaker said. The gateway's calls, gated and handed on unrun, get rows the same way.
import type { ActivityRow } from '../activity/types.ts';
import type { ActivitySource } from '../vocabulary.ts';
import type { ProposedCall } from 'rebound-gate';
import { bound, MAX_NAME } from 'rebound-gate/internal';
import { categoryOf, errorOf, type CallOutcome } from './call-outcome.ts';
import type { Escalation, PassedVerdict } from './types.ts';

const MAX_ARGUMENT_CHARS = 4_000;

export interface CallContext {
  turnId: string;
  sessionId: string;
  userId: string | null;
  iteration: number;
  model: string;
  /** Who proposed the call through whom: the loop (default) or an app behind the gateway. */
  source?: ActivitySource;
}

/** A call that passed the gate and was handed on to run elsewhere (the gateway's client runs it). */
export interface HandedOn {
  kind: 'handed_on';
  call: ProposedCall;
  verdict: PassedVerdict;
  durationMs: number;
}

export function activityRow(ctx: CallContext, outcome: CallOutcome | HandedOn): ActivityRow {
  const { call } = outcome;
  const common = {
    id: crypto.randomUUID(),
    turn_id: ctx.turnId,
    session_id: ctx.sessionId,
    user_id: ctx.userId,
    iteration: ctx.iteration,
    model: ctx.model,
    call_id: call.id,
    tool_requested: bound(call.name, MAX_NAME),
    arguments: call.arguments.length > MAX_ARGUMENT_CHARS ? call.arguments.slice(0, MAX_ARGUMENT_CHARS) : call.arguments,
    duration_ms: Math.round(outcome.durationMs),
    created_at: new Date().toISOString(),
    source: ctx.source ?? 'loop',
  };
  if (outcome.kind === 'withheld') {
    return {
      ...common,
      tool_resolved: null,
      verdict: 'blocked',
      category: 'repeated_failure',
      problems: ['$name: the tool was withheld for the rest of the turn after repeated identical failures'],
      repairs: [],
      suggestions: [],
      invented_params: [],
      error: outcome.refusal,
    };
  }
  if (outcome.kind === 'denied' || outcome.kind === 'expired') {
    const { verdict } = outcome;
    return {
      ...common,
      tool_resolved: verdict.call.name,
      verdict: verdict.verdict,
      category: categoryOf(outcome),
      problems: [],
      repairs: verdict.verdict === 'repaired' ? verdict.repairs : [],
      suggestions: [],
      invented_params: verdict.invented,
      error: errorOf(outcome),
      approval: outcome.approval,
    };
  }
  if (outcome.kind === 'handed_on') {
    const { verdict } = outcome;
    return {
      ...common,
      tool_resolved: verdict.call.name,
      verdict: verdict.verdict,
      category: verdict.category,
      problems: [],
      repairs: verdict.verdict === 'repaired' ? verdict.repairs : [],
      suggestions: [],
      invented_params: verdict.invented,
      error: null,
    };
  }
  const { verdict, escalation } = outcome;
  const problems = verdict.verdict === 'blocked' ? verdict.problems.map((p) => `${p.path}: ${p.message}`) : [];
  // The original problems stay, with one more line saying what failed again.
  const repeated = outcome.kind === 'executed' && !outcome.execution.ok ? 'execution_error' : verdict.category;
  return {
    ...common,
    tool_resolved: verdict.verdict === 'blocked' ? null : verdict.call.name,
    verdict: verdict.verdict,
    category: categoryOf(outcome),
    problems: escalation ? [...problems, `$: ${repeatedProblem(repeated, escalation)}`] : problems,
    repairs: verdict.verdict === 'repaired' ? verdict.repairs : [],
    suggestions: verdict.verdict === 'blocked' ? verdict.suggestions : [],
    invented_params: verdict.invented,
    error: errorOf(outcome),
    ...(outcome.kind === 'executed' && outcome.approval ? { approval: outcome.approval } : {}),
    ...(outcome.kind === 'executed' && outcome.elicitation ? { elicitation: outcome.elicitation } : {}),
  };
}

function repeatedProblem(category: string, escalation: Escalation): string {
  const then = escalation.withheld
    ? 'the tool was withheld for the rest of the turn'
    : escalation.shown
      ? 'the schema and an example were sent'
      : 'the model was told';
  return `the same call failed with ${category} ${escalation.repeats} times in this turn; ${then}`;
}
