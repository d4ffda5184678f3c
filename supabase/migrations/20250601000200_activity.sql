-- One row per tool call the model proposed. Column names are ActivityRow's field names, so sinks insert
-- rows as they are. No foreign keys: the log must accept a row even when its session lives elsewhere,
-- and a log write must never fail on ordering between tables.
-- category has no check constraint on purpose: a category added to the gate later must not make whole
-- batches fail at the database.

create table public.agent_activity (
  id text primary key,
  turn_id text not null,
  session_id text not null,
  user_id text,
  iteration integer not null,
  model text not null,
  call_id text not null,
  tool_requested text not null,
  tool_resolved text,
  verdict text not null check (verdict in ('pass', 'repaired', 'blocked')),
  category text not null,
  problems jsonb not null default '[]',
  repairs jsonb not null default '[]',
  suggestions jsonb not null default '[]',
  invented_params jsonb not null default '[]',
  arguments text not null default '',
  error text,
  duration_ms double precision not null default 0,
  created_at timestamptz not null default now()
);

-- Dashboard access paths: a time range (all users locally), a time range for one user (RLS on the
-- edge), the calls of one turn in order (self-correction), phantom names.
create index agent_activity_created_idx on public.agent_activity (created_at);
create index agent_activity_user_created_idx on public.agent_activity (user_id, created_at);
create index agent_activity_turn_idx on public.agent_activity (turn_id, iteration, created_at);
create index agent_activity_phantom_idx on public.agent_activity (tool_requested) where category = 'phantom_tool';

alter table public.agent_activity enable row level security;
revoke all on table public.agent_activity from public, anon, authenticated;
grant select on table public.agent_activity to authenticated;
grant select, insert, update, delete on table public.agent_activity to service_role;

create policy agent_activity_owner_read on public.agent_activity
  for select to authenticated using (user_id = (select auth.uid())::text);
create policy agent_activity_service on public.agent_activity
  for all to service_role using (true) with check (true);
