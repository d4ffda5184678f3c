// SQL for writing activity rows through a driver that takes one parameter per statement: the batch goes
// in as one JSON array and jsonb_to_recordset spreads it, so a batch is one statement of any size.
import type { ActivityRow, TurnRow } from '../types.ts';

export function insertActivitySql(rows: ActivityRow[]): { sql: string; params: unknown[] } {
  return {
    sql: `insert into public.agent_activity
      (id, turn_id, session_id, user_id, iteration, model, call_id, tool_requested, tool_resolved, verdict, category,
       problems, repairs, suggestions, invented_params, arguments, error, duration_ms, created_at, source, tool_server,
       prompt_tokens, completion_tokens, model_ms, wasted, approval, protocol, mcp_protocol, elicitation)
      select id, turn_id, session_id, user_id, iteration, model, call_id, tool_requested, tool_resolved, verdict, category,
       coalesce(problems, '[]'), coalesce(repairs, '[]'), coalesce(suggestions, '[]'), coalesce(invented_params, '[]'),
       coalesce(arguments, ''), error, coalesce(duration_ms, 0), coalesce(created_at, now()), coalesce(source, 'loop'), tool_server,
       coalesce(prompt_tokens, 0), coalesce(completion_tokens, 0), coalesce(model_ms, 0), coalesce(wasted, false), approval, protocol,
       mcp_protocol, elicitation
      from jsonb_to_recordset($1::jsonb) as r(
        id text, turn_id text, session_id text, user_id text, iteration integer, model text, call_id text,
        tool_requested text, tool_resolved text, verdict text, category text, problems jsonb, repairs jsonb,
        suggestions jsonb, invented_params jsonb, arguments text, error text, duration_ms double precision,
        created_at timestamptz, source text, tool_server text, prompt_tokens integer, completion_tokens integer,
        model_ms double precision, wasted boolean, approval text, protocol text, mcp_protocol text, elicitation text)
      on conflict (id) do nothing`,
    params: [JSON.stringify(rows)],
  };
}

export function upsertTurnsSql(rows: TurnRow[]): { sql: string; params: unknown[] } {
  return {
    sql: `insert into public.agent_turns
      (id, session_id, user_id, status, model, outcome, iterations, tool_calls, prompt_tokens, completion_tokens,
       duration_ms, started_at, finished_at, wasted_calls, wasted_prompt_tokens, wasted_completion_tokens, wasted_ms)
      select id, session_id, user_id, 'finished', model, outcome, iterations, tool_calls, prompt_tokens,
       completion_tokens, duration_ms, started_at, finished_at, coalesce(wasted_calls, 0), coalesce(wasted_prompt_tokens, 0),
       coalesce(wasted_completion_tokens, 0), coalesce(wasted_ms, 0)
      from jsonb_to_recordset($1::jsonb) as r(
        id text, session_id text, user_id text, model text, outcome text, iterations integer, tool_calls integer,
        prompt_tokens bigint, completion_tokens bigint, duration_ms double precision, started_at timestamptz,
        finished_at timestamptz, wasted_calls integer, wasted_prompt_tokens bigint, wasted_completion_tokens bigint,
        wasted_ms double precision)
      on conflict (id) do update set
        status = 'finished', model = excluded.model, outcome = excluded.outcome, iterations = excluded.iterations,
        tool_calls = excluded.tool_calls, prompt_tokens = excluded.prompt_tokens,
        completion_tokens = excluded.completion_tokens, duration_ms = excluded.duration_ms,
        started_at = excluded.started_at, finished_at = excluded.finished_at, wasted_calls = excluded.wasted_calls,
        wasted_prompt_tokens = excluded.wasted_prompt_tokens, wasted_completion_tokens = excluded.wasted_completion_tokens,
        wasted_ms = excluded.wasted_ms`,
    params: [JSON.stringify(rows)],
  };
}
