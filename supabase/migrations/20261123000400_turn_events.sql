-- Durable turns: the log of each turn's events, so a reader on any instance can replay a turn from a
-- position (Last-Event-ID) and follow it while it runs. One row per event, except that a run of text
-- deltas is one row (seq .. last_seq) holding each delta's text in data.texts: a fast model costs a
-- few rows a second, and a replay is still event for event. Written by the server (service role);
-- the turn's owner may read it; anon has no grant.
create table public.agent_turn_events (
  turn_id text not null references public.agent_turns (id) on delete cascade,
  seq integer not null check (seq >= 1),
  last_seq integer not null,
  event text not null,
  data jsonb not null,
  created_at timestamptz not null default now(),
  primary key (turn_id, seq),
  check (last_seq >= seq)
);

-- A stop asked for on one instance reaches the producer on another through the turn row.
alter table public.agent_turns add column stop_requested_at timestamptz;

alter table public.agent_turn_events enable row level security;
revoke all on table public.agent_turn_events from public, anon, authenticated;
grant select on table public.agent_turn_events to authenticated;
grant select, insert, update, delete on table public.agent_turn_events to service_role;

create policy agent_turn_events_owner_read on public.agent_turn_events
  for select to authenticated using (
    exists (
      select 1 from public.agent_turns t
      where t.id = agent_turn_events.turn_id and t.user_id = (select auth.uid())::text
    )
  );
create policy agent_turn_events_service on public.agent_turn_events
  for all to service_role using (true) with check (true);
