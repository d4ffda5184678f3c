-- Human approval of tool calls (docs/approval.md). A call that needs a person's yes pauses its turn:
-- the turn becomes `awaiting_approval` with what it needs to go on anywhere (paused_state: the loop's
-- state as JSON, paused_seq: its log's last seq), and each waiting call is a row of agent_approvals,
-- whose random id is bound to the turn, its user, the tool call id and a hash of the arguments. While it
-- waits nothing runs: no process, no model connection, no open request. Every change is one
-- conditional statement in the functions below, shared by PGlite and Supabase (PostgREST rpc), and
-- timed by the database's clock, so two instances racing decide, expire or resume a turn once.

alter table public.agent_turns drop constraint agent_turns_status_check;
alter table public.agent_turns add constraint agent_turns_status_check
  check (status in ('pending', 'running', 'awaiting_approval', 'finished'));
alter table public.agent_turns add column paused_state jsonb;
alter table public.agent_turns add column paused_seq integer check (paused_seq >= 0);

create table public.agent_approvals (
  id text primary key,
  -- The order the calls were asked in (one pause inserts several rows at the same now()).
  seq bigint generated always as identity,
  turn_id text not null references public.agent_turns (id) on delete cascade,
  session_id text not null,
  user_id text,
  tool_call_id text not null,
  tool_name text not null,
  arguments jsonb not null,
  args_hash text not null,
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied', 'expired')),
  reason text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  decided_at timestamptz,
  unique (turn_id, tool_call_id)
);
create index agent_approvals_turn_idx on public.agent_approvals (turn_id, seq);
create index agent_approvals_session_pending_idx on public.agent_approvals (session_id, seq) where status = 'pending';
-- The expiry sweep (a timer and start-up on Node): an index scan over the few pending rows.
create index agent_approvals_pending_expiry_idx on public.agent_approvals (expires_at) where status = 'pending';

-- The call's approval on its activity row: its own column, not a gate category (a denial is not a hallucination).
alter table public.agent_activity add column approval text check (approval in ('requested', 'approved', 'denied', 'expired'));

alter table public.agent_approvals enable row level security;
revoke all on table public.agent_approvals from public, anon, authenticated;
grant select on table public.agent_approvals to authenticated;
grant select, insert, update, delete on table public.agent_approvals to service_role;
create policy agent_approvals_owner_read on public.agent_approvals
  for select to authenticated using (user_id = (select auth.uid())::text);
create policy agent_approvals_service on public.agent_approvals
  for all to service_role using (true) with check (true);

-- Pauses a running turn: its state saved, its approvals inserted (p_approvals: a JSON array of
-- {id, tool_call_id, tool_name, arguments, args_hash, expires_at}). Nothing is written unless the turn
-- was running. Returns whether it paused.
create function public.agent_pause_turn(p_turn text, p_state jsonb, p_seq integer, p_approvals jsonb)
returns boolean
language sql volatile security invoker
set search_path = ''
as $$
with paused as (
  update public.agent_turns t set status = 'awaiting_approval', paused_state = p_state, paused_seq = p_seq
  where t.id = p_turn and t.status = 'running'
  returning t.id, t.session_id, t.user_id
),
asked as (
  insert into public.agent_approvals (id, turn_id, session_id, user_id, tool_call_id, tool_name, arguments, args_hash, expires_at)
  select a.v->>'id', p.id, p.session_id, p.user_id, a.v->>'tool_call_id', a.v->>'tool_name', a.v->'arguments', a.v->>'args_hash',
    (a.v->>'expires_at')::timestamptz
  from paused p
  cross join jsonb_array_elements(p_approvals) with ordinality as a(v, n)
  order by a.n
)
select exists (select 1 from paused)
$$;

-- A person's decision on a pending approval not yet past its expiry; with p_arguments, the edited
-- arguments (already gated) and their hash replace the call's. Returns the row, or nothing.
create function public.agent_decide_approval(p_id text, p_status text, p_reason text, p_arguments jsonb default null, p_hash text default null)
returns setof public.agent_approvals
language sql volatile security invoker
set search_path = ''
as $$
update public.agent_approvals a set
  status = p_status,
  reason = p_reason,
  decided_at = now(),
  arguments = coalesce(p_arguments, a.arguments),
  args_hash = coalesce(p_hash, a.args_hash)
where a.id = p_id and a.status = 'pending' and a.expires_at > now() and p_status in ('approved', 'denied')
returning a.*
$$;

-- Pending approvals past their expiry become expired: one turn's, one session's, or any (oldest
-- first, at most p_limit). Locked rows are skipped: a racing caller expires them.
create function public.agent_expire_approvals(p_turn text default null, p_session text default null, p_limit integer default 100)
returns setof public.agent_approvals
language sql volatile security invoker
set search_path = ''
as $$
with due as (
  select a.id from public.agent_approvals a
  where a.status = 'pending' and a.expires_at <= now()
    and (p_turn is null or a.turn_id = p_turn) and (p_session is null or a.session_id = p_session)
  order by a.expires_at, a.id
  limit greatest(p_limit, 0)
  for update skip locked
)
update public.agent_approvals a set status = 'expired', decided_at = now()
from due where a.id = due.id and a.status = 'pending'
returning a.*
$$;

-- Claims a paused turn to go on, once: running again (claimed now, so the stale-turn sweep counts
-- from here), its state handed back and cleared. Only when none of its approvals is pending, unless
-- p_force (a stop). Returns the turn's row with the state, or nothing.
create function public.agent_resume_turn(p_turn text, p_force boolean default false)
returns table (id text, session_id text, user_id text, message text, status text, created_at timestamptz, paused_state jsonb, paused_seq integer)
language sql volatile security invoker
set search_path = ''
as $$
with prev as (
  select t.id, t.paused_state, t.paused_seq from public.agent_turns t
  where t.id = p_turn and t.status = 'awaiting_approval'
    and (p_force or not exists (select 1 from public.agent_approvals a where a.turn_id = t.id and a.status = 'pending'))
  for update
)
update public.agent_turns t set status = 'running', claimed_at = now(), paused_state = null, paused_seq = null
from prev
where t.id = prev.id and t.status = 'awaiting_approval'
returning t.id, t.session_id, t.user_id, t.message, t.status, t.created_at, prev.paused_state, prev.paused_seq
$$;

revoke all on function public.agent_pause_turn(text, jsonb, integer, jsonb) from public, anon, authenticated;
revoke all on function public.agent_decide_approval(text, text, text, jsonb, text) from public, anon, authenticated;
revoke all on function public.agent_expire_approvals(text, text, integer) from public, anon, authenticated;
revoke all on function public.agent_resume_turn(text, boolean) from public, anon, authenticated;
grant execute on function public.agent_pause_turn(text, jsonb, integer, jsonb) to service_role;
grant execute on function public.agent_decide_approval(text, text, text, jsonb, text) to service_role;
grant execute on function public.agent_expire_approvals(text, text, integer) to service_role;
grant execute on function public.agent_resume_turn(text, boolean) to service_role;
