// The agent_turns outcome row of a turn, from its result: what the dashboard counts per turn.
import type { TurnRow } from '../activity/types.ts';
import type { TurnResult } from './turn-state.ts';

export interface TurnRowInput {
  turn: { id: string; sessionId: string; userId: string | null };
  model: string;
  result: TurnResult;
  started: Date;
  finished: Date;
  /** Its running time when it differs from finished − started: a turn that paused for approval does not count the wait. */
  runningMs?: number;
}

export function turnRow({ turn, model, result, started, finished, runningMs }: TurnRowInput): TurnRow {
  return {
    id: turn.id,
    session_id: turn.sessionId,
    user_id: turn.userId,
    model,
    outcome: result.reason,
    iterations: result.iterations,
    tool_calls: result.messages.filter((m) => m.role === 'tool').length,
    prompt_tokens: result.usage.promptTokens,
    completion_tokens: result.usage.completionTokens,
    duration_ms: runningMs ?? finished.getTime() - started.getTime(),
    started_at: started.toISOString(),
    finished_at: finished.toISOString(),
    wasted_calls: result.wasted?.calls ?? 0,
    wasted_prompt_tokens: result.wasted?.promptTokens ?? 0,
    wasted_completion_tokens: result.wasted?.completionTokens ?? 0,
    wasted_ms: Math.round(result.wasted?.ms ?? 0),
  };
}
