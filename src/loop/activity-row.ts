// Builds the agent_activity row for one call from what the gate, the tool and the loop breaker said.
import type { ActivityRow, ActivitySource } from '../activity/types.ts';
import type { ProposedCall, Verdict } from '../gate/types.ts';
import type { Execution } from './execute.ts';
import type { Escalation } from './loop-breaker.ts';

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

export type CallOutcome =
  | {
      verdict: Verdict;
      /** Null when the gate blocked the call. */
      execution: Execution | null;
      /** When the call repeated an earlier failure of the turn: its category becomes repeated_failure. */
      escalation?: Escalation | null;
      durationMs: number;
    }
  /** Neither gated nor run: its tool was withheld by the loop breaker. `withheld` is what the model was told. */
  | { withheld: string; durationMs: number };

export function activityRow(ctx: CallContext, call: ProposedCall, outcome: CallOutcome): ActivityRow {
  const common = {
    id: crypto.randomUUID(),
    turn_id: ctx.turnId,
    session_id: ctx.sessionId,
    user_id: ctx.userId,
    iteration: ctx.iteration,
    model: ctx.model,
    call_id: call.id,
    tool_requested: call.name,
    arguments: call.arguments.length > MAX_ARGUMENT_CHARS ? call.arguments.slice(0, MAX_ARGUMENT_CHARS) : call.arguments,
    duration_ms: Math.round(outcome.durationMs),
    created_at: new Date().toISOString(),
    source: ctx.source ?? 'loop',
  };
  if ('withheld' in outcome) {
    return {
      ...common,
      tool_resolved: null,
      verdict: 'blocked',
      category: 'repeated_failure',
      problems: ['$name: the tool was withheld for the rest of the turn after repeated identical failures'],
      repairs: [],
      suggestions: [],
      invented_params: [],
      error: outcome.withheld,
    };
  }
  const { verdict, execution, escalation } = outcome;
  const failed = execution !== null && !execution.ok;
  // A call that passed the gate and then threw is an execution error; a repaired one keeps what was wrong.
  const category = failed && verdict.verdict === 'pass' ? 'execution_error' : verdict.category;
  const problems = verdict.verdict === 'blocked' ? verdict.problems.map((p) => `${p.path}: ${p.message}`) : [];
  const error = verdict.verdict === 'blocked' ? verdict.message : failed ? execution.error : null;
  return {
    ...common,
    tool_resolved: verdict.verdict === 'blocked' ? null : verdict.call.name,
    verdict: verdict.verdict,
    // A repeat is its own category; the original problems stay, with one more line saying what was repeated.
    category: escalation ? 'repeated_failure' : category,
    problems: escalation ? [...problems, `$: ${repeatedProblem(failed ? 'execution_error' : category, escalation)}`] : problems,
    repairs: verdict.verdict === 'repaired' ? verdict.repairs : [],
    suggestions: verdict.verdict === 'blocked' ? verdict.suggestions : [],
    invented_params: verdict.invented,
    error: escalation && error !== null ? `${error}\n${escalation.note}` : error,
  };
}

function repeatedProblem(category: string, escalation: Escalation): string {
  const then = escalation.withheld ? 'the tool was withheld for the rest of the turn' : escalation.shown ? 'the schema and an example were sent' : 'the model was told';
  return `the same call failed with ${category} ${escalation.repeats} times in this turn; ${then}`;
}
