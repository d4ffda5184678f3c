-- A turn closed as interrupted gets a `done {reason: "interrupted"}` at the end of its stored log, in
-- the same statement that closes it: a reader that replays the turn after a restart (EventSource,
-- useChat's resume) sees it end, as it sees every other turn end, instead of a stream that stops with
-- no `done` (and, for the UI message stream, no finish and no [DONE]). Its seq follows the last event
-- stored; iterations are what the activity log holds, usage is not known (0).
-- agent_close_interrupted is otherwise as in 20261123000200.
create or replace function public.agent_close_interrupted(
  p_before timestamptz,
  p_note text,
  p_session text default null,
  p_limit integer default 100
) returns table (id text, session_id text, user_id text, message text, status text, created_at timestamptz)
language sql volatile security invoker
set search_path = ''
as $$
with stale as (
  select t.id
  from public.agent_turns t
  where t.status = 'running' and coalesce(t.claimed_at, t.created_at) < p_before
  order by (t.session_id = p_session) is true desc, coalesce(t.claimed_at, t.created_at), t.id
  limit greatest(p_limit, 0)
  for update skip locked
),
facts as (
  select s.id, max(a.iteration) as iterations, count(a.id) as calls, max(a.model) as model
  from stale s left join public.agent_activity a on a.turn_id = s.id
  group by s.id
),
closed as (
  update public.agent_turns t set
    status = 'finished',
    outcome = 'interrupted',
    model = coalesce(t.model, f.model),
    iterations = coalesce(f.iterations, 0),
    tool_calls = f.calls,
    started_at = coalesce(t.claimed_at, t.created_at),
    finished_at = now(),
    duration_ms = extract(epoch from now() - coalesce(t.claimed_at, t.created_at)) * 1000
  from facts f
  where t.id = f.id and t.status = 'running'
  returning t.id, t.session_id, t.user_id, t.message, t.status, t.created_at, t.started_at, t.iterations
),
notes as (
  insert into public.agent_messages (session_id, turn_id, role, content)
  select c.session_id, c.id, m.role, case m.role when 'user' then c.message else p_note end
  from closed c
  cross join (values (1, 'user'), (2, 'assistant')) as m(n, role)
  where exists (select 1 from public.agent_sessions s where s.id = c.session_id)
  order by c.started_at, c.id, m.n
),
done as (
  insert into public.agent_turn_events (turn_id, seq, last_seq, event, data)
  select c.id, n.seq, n.seq, 'done',
    jsonb_build_object('reason', 'interrupted', 'iterations', c.iterations, 'usage', jsonb_build_object('promptTokens', 0, 'completionTokens', 0))
  from closed c
  cross join lateral (select coalesce(max(e.last_seq), 0) + 1 as seq from public.agent_turn_events e where e.turn_id = c.id) n
  on conflict (turn_id, seq) do nothing
)
select c.id, c.session_id, c.user_id, c.message, c.status, c.created_at from closed c order by c.started_at, c.id
$$;

revoke all on function public.agent_close_interrupted(timestamptz, text, text, integer) from public, anon, authenticated;
grant execute on function public.agent_close_interrupted(timestamptz, text, text, integer) to service_role;
