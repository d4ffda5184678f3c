-- The files the workspace tools work on (one workspace per user and session) and the memories a user's
-- agent saves across sessions. user_id is null in local single-user mode; NULLS NOT DISTINCT keeps one
-- row per path there too.

create table public.workspace_files (
  id bigint generated always as identity primary key,
  user_id text,
  session_id text not null,
  path text not null check (path <> '' and left(path, 1) <> '/'),
  content text not null,
  encoding text not null default 'utf-8' check (encoding in ('utf-8', 'base64')),
  -- Listing a workspace must not ship every file body.
  size integer generated always as (char_length(content)) stored,
  updated_at timestamptz not null default now(),
  constraint workspace_files_scope_path_key unique nulls not distinct (user_id, session_id, path)
);

create table public.agent_memories (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: created_at can tie within one transaction.
  seq bigint generated always as identity,
  user_id text,
  session_id text,
  memory_type text not null,
  content text not null,
  created_at timestamptz not null default now()
);
create index agent_memories_user_idx on public.agent_memories (user_id, seq desc);

alter table public.workspace_files enable row level security;
alter table public.agent_memories enable row level security;
revoke all on table public.workspace_files, public.agent_memories from public, anon, authenticated;
grant select on table public.workspace_files, public.agent_memories to authenticated;
grant select, insert, update, delete on table public.workspace_files, public.agent_memories to service_role;
grant usage, select on all sequences in schema public to service_role;

create policy workspace_files_owner_read on public.workspace_files
  for select to authenticated using (user_id = (select auth.uid())::text);
create policy workspace_files_service on public.workspace_files
  for all to service_role using (true) with check (true);

create policy agent_memories_owner_read on public.agent_memories
  for select to authenticated using (user_id = (select auth.uid())::text);
create policy agent_memories_service on public.agent_memories
  for all to service_role using (true) with check (true);
