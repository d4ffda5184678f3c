// Builds the agent_activity row for one call from what the gate and the tool said.
import type { ActivityRow, ActivitySource } from '../activity/types.ts';
import type { ProposedCall, Verdict } from '../gate/types.ts';
import type { Execution } from './execute.ts';

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

export function activityRow(ctx: CallContext, call: ProposedCall, verdict: Verdict, execution: Execution | null, durationMs: number): ActivityRow {
  const failed = execution !== null && !execution.ok;
  return {
    id: crypto.randomUUID(),
    turn_id: ctx.turnId,
    session_id: ctx.sessionId,
    user_id: ctx.userId,
    iteration: ctx.iteration,
    model: ctx.model,
    call_id: call.id,
    tool_requested: call.name,
    tool_resolved: verdict.verdict === 'blocked' ? null : verdict.call.name,
    verdict: verdict.verdict,
    // A call that passed the gate and then threw is an execution error; a repaired one keeps what was wrong.
    category: failed && verdict.verdict === 'pass' ? 'execution_error' : verdict.category,
    problems: verdict.verdict === 'blocked' ? verdict.problems.map((p) => `${p.path}: ${p.message}`) : [],
    repairs: verdict.verdict === 'repaired' ? verdict.repairs : [],
    suggestions: verdict.verdict === 'blocked' ? verdict.suggestions : [],
    invented_params: verdict.invented,
    arguments: call.arguments.length > MAX_ARGUMENT_CHARS ? call.arguments.slice(0, MAX_ARGUMENT_CHARS) : call.arguments,
    error: verdict.verdict === 'blocked' ? verdict.message : failed ? execution.error : null,
    duration_ms: Math.round(durationMs),
    created_at: new Date().toISOString(),
    source: ctx.source ?? 'loop',
  };
}
