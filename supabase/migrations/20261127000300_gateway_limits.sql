-- The gateway's limits (GATEWAY_RPM, GATEWAY_TOKENS_PER_DAY; src/gateway/limits.ts): what each caller
-- has used in the current window, counted by the database so that the limits hold across isolates and
-- processes. A caller (subject) is a gateway key's hash (`key:…`, never the key), a user (`user:<id>`)
-- or the local user. Windows are fixed, by the database's clock: a UTC minute for requests, a UTC day for
-- tokens. Every change is one statement of agent_gateway_meter, shared by PGlite and Supabase (PostgREST
-- rpc), which also drops the caller's past windows, so the table holds about one row per caller and kind.

create table public.agent_gateway_usage (
  subject text not null,
  kind text not null check (kind in ('requests', 'tokens')),
  window_start timestamptz not null,
  amount bigint not null default 0 check (amount >= 0),
  -- Whether the last agent_gateway_meter call on the row added its amount (it was under the limit).
  last_allowed boolean not null default true,
  primary key (subject, kind, window_start)
);

alter table public.agent_gateway_usage enable row level security;
revoke all on table public.agent_gateway_usage from public, anon, authenticated;
grant select, insert, update, delete on table public.agent_gateway_usage to service_role;
create policy agent_gateway_usage_service on public.agent_gateway_usage
  for all to service_role using (true) with check (true);

-- Adds p_add to the caller's count in the current window, only while that count is under p_limit (null:
-- always). Returns whether it added, the count (after adding, or as it stands), and the seconds until the
-- window ends (what Retry-After says). Every call updates the row, so concurrent callers serialise on its
-- lock and each reads the count as the one before it left it: of N racing requests with room for M,
-- exactly M are allowed.
create function public.agent_gateway_meter(p_subject text, p_kind text, p_add bigint, p_limit bigint default null)
returns table (allowed boolean, amount bigint, retry_after_s integer)
language sql volatile security invoker
set search_path = ''
as $$
with win as (
  select date_trunc(case when p_kind = 'requests' then 'minute' else 'day' end, now(), 'UTC') as start,
    case when p_kind = 'requests' then interval '1 minute' else interval '1 day' end as length
),
past as (
  delete from public.agent_gateway_usage u using win
  where u.subject = p_subject and u.kind = p_kind and u.window_start < win.start
),
added as (
  insert into public.agent_gateway_usage as u (subject, kind, window_start, amount)
  select p_subject, p_kind, win.start, p_add from win
  on conflict (subject, kind, window_start) do update set
    amount = u.amount + case when p_limit is null or u.amount < p_limit then excluded.amount else 0 end,
    last_allowed = p_limit is null or u.amount < p_limit
  returning u.amount, u.last_allowed
)
select a.last_allowed, a.amount, greatest(1, ceil(extract(epoch from (win.start + win.length - now()))))::integer
from added a, win
$$;

revoke all on function public.agent_gateway_meter(text, text, bigint, bigint) from public, anon, authenticated;
grant execute on function public.agent_gateway_meter(text, text, bigint, bigint) to service_role;
