-- Where a call came from: 'loop' (Rebound's own agent loop) or 'gateway' (an app calling
-- POST /v1/chat/completions, Rebound in front of its model). The dashboard filters by it. Existing
-- rows are the loop's; a writer that leaves the column out still writes a loop row.
-- A gateway row has no session or turn in the loop's sense: turn_id and session_id hold the id of
-- the gateway request, and iteration the attempt (1, then 2 and 3 for the gateway's own retries), so
-- self-correction on the dashboard counts a retry the gateway made the way it counts the loop's.
alter table public.agent_activity
  add column source text not null default 'loop' check (source in ('loop', 'gateway'));

create index agent_activity_source_created_idx on public.agent_activity (source, created_at);
