-- Sessions, the conversation and the turns of the agent.
-- Ids are text: session ids may come from the client and turn ids from the app. user_id is text holding
-- the JWT `sub` (a uuid on Supabase) and is null in local single-user mode.
-- Access model, repeated on every table: the service role (the server) writes; an authenticated user
-- reads only their own rows; anon has no grant at all, so PostgREST refuses it before RLS is consulted.

create table public.agent_sessions (
  id text primary key,
  user_id text,
  created_at timestamptz not null default now()
);
create index agent_sessions_user_idx on public.agent_sessions (user_id, created_at);

-- One row per message in OpenAI chat shape; the identity column is the conversation order.
create table public.agent_messages (
  id bigint generated always as identity primary key,
  session_id text not null references public.agent_sessions (id) on delete cascade,
  turn_id text,
  role text not null check (role in ('system', 'user', 'assistant', 'tool')),
  content text,
  tool_calls jsonb,
  tool_call_id text,
  created_at timestamptz not null default now()
);
create index agent_messages_session_idx on public.agent_messages (session_id, id);

-- A turn is created by POST (pending), claimed once by the GET that streams it (running), then finished.
-- The outcome columns are TurnRow's: the activity writer upserts them when the turn ends. No foreign key
-- to agent_sessions, so an outcome can be logged even when sessions live elsewhere (in-memory storage).
create table public.agent_turns (
  id text primary key,
  session_id text not null,
  user_id text,
  message text not null default '',
  status text not null default 'pending' check (status in ('pending', 'running', 'finished')),
  created_at timestamptz not null default now(),
  claimed_at timestamptz,
  model text,
  outcome text check (outcome in ('completed', 'iteration_limit', 'time_budget', 'aborted', 'error')),
  iterations integer,
  tool_calls integer,
  prompt_tokens integer,
  completion_tokens integer,
  duration_ms double precision,
  started_at timestamptz,
  finished_at timestamptz
);
create index agent_turns_session_idx on public.agent_turns (session_id);
create index agent_turns_finished_idx on public.agent_turns (finished_at) where outcome is not null;
create index agent_turns_user_finished_idx on public.agent_turns (user_id, finished_at) where outcome is not null;

alter table public.agent_sessions enable row level security;
alter table public.agent_messages enable row level security;
alter table public.agent_turns enable row level security;

revoke all on table public.agent_sessions, public.agent_messages, public.agent_turns from public, anon, authenticated;
grant select on table public.agent_sessions, public.agent_messages, public.agent_turns to authenticated;
grant select, insert, update, delete on table public.agent_sessions, public.agent_messages, public.agent_turns to service_role;
grant usage, select on all sequences in schema public to service_role;

-- `(select auth.uid())` is evaluated once per statement instead of once per row.
create policy agent_sessions_owner_read on public.agent_sessions
  for select to authenticated using (user_id = (select auth.uid())::text);
create policy agent_sessions_service on public.agent_sessions
  for all to service_role using (true) with check (true);

create policy agent_messages_owner_read on public.agent_messages
  for select to authenticated using (
    exists (
      select 1 from public.agent_sessions s
      where s.id = agent_messages.session_id and s.user_id = (select auth.uid())::text
    )
  );
create policy agent_messages_service on public.agent_messages
  for all to service_role using (true) with check (true);

create policy agent_turns_owner_read on public.agent_turns
  for select to authenticated using (user_id = (select auth.uid())::text);
create policy agent_turns_service on public.agent_turns
  for all to service_role using (true) with check (true);
