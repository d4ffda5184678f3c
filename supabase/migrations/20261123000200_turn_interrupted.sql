-- A turn whose process was killed stays `running` for ever unless someone closes it. This adds the
-- outcome `interrupted` and agent_close_interrupted(), the one statement that closes such turns
-- (src/store/interrupted.ts decides when: at start-up on Node, by age on every turn creation).

alter table public.agent_turns drop constraint agent_turns_outcome_check;
alter table public.agent_turns add constraint agent_turns_outcome_check
  check (outcome in ('completed', 'iteration_limit', 'time_budget', 'aborted', 'error', 'interrupted'));

-- Only running turns are in it: a handful at any time, so the sweep on every turn creation stays an
-- index scan over a few rows however many turns the table holds.
create index agent_turns_running_idx on public.agent_turns (coalesce(claimed_at, created_at)) where status = 'running';

-- Closes up to p_limit turns still running that were claimed before p_before (p_session's first, then
-- the oldest): status finished, outcome interrupted, the outcome columns from what the activity log
-- holds of the turn, and in its session the user's message then p_note (the history loses nothing the
-- user typed, and the model reads what happened). The update re-checks status = 'running' and locked
-- rows are skipped, so two callers racing close each turn once and append its messages once.
-- Returns the closed turns (the columns the store reads, whatever columns later migrations add).
create function public.agent_close_interrupted(
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
  returning t.id, t.session_id, t.user_id, t.message, t.status, t.created_at, t.started_at
),
notes as (
  insert into public.agent_messages (session_id, turn_id, role, content)
  select c.session_id, c.id, m.role, case m.role when 'user' then c.message else p_note end
  from closed c
  cross join (values (1, 'user'), (2, 'assistant')) as m(n, role)
  where exists (select 1 from public.agent_sessions s where s.id = c.session_id)
  order by c.started_at, c.id, m.n
)
select c.id, c.session_id, c.user_id, c.message, c.status, c.created_at from closed c order by c.started_at, c.id
$$;

revoke all on function public.agent_close_interrupted(timestamptz, text, text, integer) from public, anon, authenticated;
grant execute on function public.agent_close_interrupted(timestamptz, text, text, integer) to service_role;
