-- Dashboard SQL: views for the SQL editor and agent_dashboard() for the app (both Supabase through
-- PostgREST and embedded PGlite call it). Everything is security_invoker, so RLS decides what a user
-- sees: through the user's JWT a user's dashboard covers only their own rows.
-- This file is the source; migrations carry a verbatim copy (the newest *_dashboard.sql must equal it,
-- a test checks), so change it here and copy it into a new migration.
--
-- Definitions
--   hallucinated     the model proposed something wrong: any category but valid and execution_error
--                    (repaired calls count: the gate fixed a mistake the model made). A repeated_failure
--                    repeats an earlier failure of its turn and counts as that one did: yes when the gate
--                    blocked or repaired it, no when it passed the gate untouched and then failed to run
--                    (verdict pass). A call to a withheld tool is blocked, and counts.
--   repeated failure a call that failed as an earlier call of the same turn did (same tool, category and
--                    normalised arguments; src/loop/loop-breaker.ts): the 2nd such call is sent the
--                    tool's schema and an example, the 3rd withholds the tool for the rest of the turn.
--                    Its category is repeated_failure (its first failure's problems stay in problems),
--                    so an identical mistake repeated within a turn counts once in the other categories
--                    and in the phantom tools.
--   repair rate      repaired calls / calls
--   retry            a later call (higher iteration) in the same turn of the same tool, or of a tool the
--                    gate suggested; the first and second such calls are the first and second retry
--   self-correction  a blocked call whose first retry passed the gate (pass or repaired); "second" is
--                    cumulative: corrected on the first or on the second retry
--   forced summary   a turn that ended on iteration_limit, time_budget or no_progress
--   no progress      a turn stopped because NO_PROGRESS_ITERATIONS iterations in a row only repeated failures
--   wasted call      a model call that proposed tool calls, all of which failed (blocked, withheld, denied or
--                    errored), and gave no answer text (src/calls/wasted.ts). Each activity row carries its
--                    equal share of its model call's tokens and ms and whether that call was wasted.
--   failure cost     the wasted rows' tokens and ms, by model, category and tool; share = their tokens over
--                    all tokens: the loop's turns' tokens plus the gateway rows' (an attempt without a tool
--                    call writes no row, so the gateway's all is the attempts that proposed calls)
--   interrupted      a turn whose process died while it ran, closed later (src/store/interrupted.ts)
--   source           'loop' (Rebound's own agent loop) or 'gateway' (an app calling POST /v1/chat/completions);
--                    a gateway row's turn is its request and its iteration the attempt, so the gateway's
--                    own retries count as retries. Turns are the loop's only: filtered to the gateway,
--                    the turn figures are empty.
--   tool server      the MCP server (its MCP_SERVERS name) whose tool a call named, also when the gate
--                    blocked a name carrying that server's `<server>__` prefix; null for the app's own
--                    tools (functions/). byServer groups the calls by it.
--   approval         a call that needed a person's yes (APPROVAL_TOOLS, needsApproval; docs/approval.md § On the dashboard): one
--                    row of agent_approvals, counted in the range of its request. Approval rate = approved /
--                    the requests that ended (approved, denied or expired; pending ones are left out). Time
--                    to a decision: from the request to a person's approve or deny (expired ones had none),
--                    the median. Denials by tool: denied requests by the tool as it would have run. The
--                    loop's only: filtered to the gateway, the approval figures are empty.
--   question         an MCP server's question to the person (elicitation; docs/approval.md § A server's
--                    question): a row of agent_approvals with an `inp_` id (an approval's is `apr_`),
--                    counted apart from approvals: asked, answered (accept), declined (decline or cancel),
--                    expired, waiting.

-- One row per call with the derived columns every dashboard query needs.
create or replace view public.agent_activity_facts with (security_invoker = true) as
select
  a.id, a.turn_id, a.session_id, a.user_id, a.iteration, a.model, a.call_id,
  a.tool_requested, a.tool_resolved, a.verdict, a.category, a.suggestions, a.invented_params,
  a.duration_ms, a.created_at,
  coalesce(a.tool_resolved, a.tool_requested) as tool,
  a.category not in ('valid', 'execution_error') and not (a.category = 'repeated_failure' and a.verdict = 'pass') as hallucinated,
  (a.created_at at time zone 'UTC')::date as day,
  a.source,
  a.tool_server,
  a.prompt_tokens,
  a.completion_tokens,
  a.model_ms,
  a.wasted
from public.agent_activity a;

-- Per tool, the calls sent to a person and what became of them; decision_ms_median over approvals and denials.
create or replace view public.dashboard_approvals with (security_invoker = true) as
select
  a.tool_name as tool,
  count(*) as requested,
  count(*) filter (where a.status = 'approved') as approved,
  count(*) filter (where a.status = 'denied') as denied,
  count(*) filter (where a.status = 'expired') as expired,
  count(*) filter (where a.status = 'pending') as pending,
  percentile_cont(0.5) within group (order by extract(epoch from a.decided_at - a.created_at) * 1000)
    filter (where a.status in ('approved', 'denied')) as decision_ms_median
from public.agent_approvals a
where left(a.id, 4) <> 'inp_'
group by a.tool_name;

-- One row per blocked call with the verdicts of its first two retries (null: no such retry).
create or replace view public.dashboard_blocked_retries with (security_invoker = true) as
select
  b.id, b.turn_id, b.user_id, b.model, b.created_at, b.tool_requested,
  r.verdicts[1] as first_retry,
  r.verdicts[2] as second_retry,
  b.source
from public.agent_activity b
left join lateral (
  select array_agg(c.verdict order by c.iteration, c.created_at, c.id) as verdicts
  from (
    select c.verdict, c.iteration, c.created_at, c.id
    from public.agent_activity c
    where c.turn_id = b.turn_id
      and c.iteration > b.iteration
      and (
        c.tool_requested = b.tool_requested
        or c.tool_resolved = b.tool_requested
        or b.suggestions ? c.tool_requested
        or b.suggestions ? coalesce(c.tool_resolved, '')
      )
    order by c.iteration, c.created_at, c.id
    limit 2
  ) c
) r on true
where b.verdict = 'blocked';

create or replace view public.dashboard_hallucination_daily with (security_invoker = true) as
select day, model, tool,
  count(*) as calls,
  count(*) filter (where hallucinated) as hallucinated,
  (count(*) filter (where hallucinated))::float8 / count(*) as rate
from public.agent_activity_facts
group by day, model, tool;

create or replace view public.dashboard_categories with (security_invoker = true) as
select category, count(*) as count
from public.agent_activity
group by category;

create or replace view public.dashboard_phantom_tools with (security_invoker = true) as
select tool_requested as name, count(*) as count
from public.agent_activity
where category = 'phantom_tool'
group by tool_requested;

create or replace view public.dashboard_invented_params with (security_invoker = true) as
select f.tool, p.param, count(*) as count, count(*) >= 5 as candidate
from public.agent_activity_facts f
cross join lateral jsonb_array_elements_text(f.invented_params) as p(param)
group by f.tool, p.param;

create or replace view public.dashboard_self_correction with (security_invoker = true) as
select
  count(*) as blocked,
  count(*) filter (where first_retry <> 'blocked') as corrected_first_retry,
  count(*) filter (where first_retry <> 'blocked' or second_retry <> 'blocked') as corrected_second_retry,
  coalesce((count(*) filter (where first_retry <> 'blocked'))::float8 / nullif(count(*), 0), 0) as rate_first,
  coalesce((count(*) filter (where first_retry <> 'blocked' or second_retry <> 'blocked'))::float8 / nullif(count(*), 0), 0) as rate_second
from public.dashboard_blocked_retries;

create or replace view public.dashboard_repair_rate with (security_invoker = true) as
select
  count(*) as calls,
  count(*) filter (where verdict = 'repaired') as repaired,
  coalesce((count(*) filter (where verdict = 'repaired'))::float8 / nullif(count(*), 0), 0) as rate
from public.agent_activity;

create or replace view public.dashboard_turn_outcomes with (security_invoker = true) as
select
  count(*) as turns,
  count(*) filter (where outcome in ('iteration_limit', 'time_budget', 'no_progress')) as forced_summary,
  count(*) filter (where outcome = 'aborted') as aborted,
  coalesce((count(*) filter (where outcome in ('iteration_limit', 'time_budget', 'no_progress')))::float8 / nullif(count(*), 0), 0) as forced_summary_rate,
  coalesce((count(*) filter (where outcome = 'aborted'))::float8 / nullif(count(*), 0), 0) as aborted_rate,
  coalesce(avg(iterations)::float8, 0) as avg_iterations,
  count(*) filter (where outcome = 'interrupted') as interrupted,
  coalesce((count(*) filter (where outcome = 'interrupted'))::float8 / nullif(count(*), 0), 0) as interrupted_rate
from public.agent_turns
where outcome is not null;

create or replace view public.dashboard_iterations_per_turn with (security_invoker = true) as
select iterations, count(*) as turns
from public.agent_turns
where outcome is not null
group by iterations;

-- Everything DashboardData holds except `range`, for calls created (turns finished) in [p_from, p_to).
-- p_user narrows to one user on top of RLS (null: every row the caller may see), p_source to the
-- loop's or the gateway's calls (null: both).
-- The four-argument version (before p_source) is dropped: PostgREST could not choose between the two.
drop function if exists public.agent_dashboard(timestamptz, timestamptz, text, text);
create or replace function public.agent_dashboard(
  p_from timestamptz,
  p_to timestamptz,
  p_bucket text default 'day',
  p_user text default null,
  p_source text default null
) returns jsonb
language sql stable security invoker
set search_path = ''
as $$
with calls as (
  select * from public.agent_activity_facts f
  where f.created_at >= p_from and f.created_at < p_to and (p_user is null or f.user_id = p_user)
    and (p_source is null or f.source = p_source)
),
turns as (
  select * from public.agent_turns t
  where t.outcome is not null and t.finished_at >= p_from and t.finished_at < p_to
    and (p_user is null or t.user_id = p_user) and (p_source is null or p_source = 'loop')
),
blocked as (
  select * from public.dashboard_blocked_retries b
  where b.created_at >= p_from and b.created_at < p_to and (p_user is null or b.user_id = p_user)
    and (p_source is null or b.source = p_source)
),
waiting as (
  select * from public.agent_approvals a
  where a.created_at >= p_from and a.created_at < p_to and (p_user is null or a.user_id = p_user)
    and (p_source is null or p_source = 'loop')
),
approvals as (
  select * from waiting a where left(a.id, 4) <> 'inp_'
),
questions as (
  select * from waiting a where left(a.id, 4) = 'inp_'
)
select jsonb_build_object(
  'totals', (
    select jsonb_build_object(
      'calls', count(*),
      'hallucinated', count(*) filter (where c.hallucinated),
      'hallucinationRate', coalesce((count(*) filter (where c.hallucinated))::float8 / nullif(count(*), 0), 0),
      'repaired', count(*) filter (where c.verdict = 'repaired'),
      'repairRate', coalesce((count(*) filter (where c.verdict = 'repaired'))::float8 / nullif(count(*), 0), 0),
      'blocked', count(*) filter (where c.verdict = 'blocked'),
      'repeatedFailures', count(*) filter (where c.category = 'repeated_failure'),
      'repeatedFailureTurns', count(distinct c.turn_id) filter (where c.category = 'repeated_failure')
    ) from calls c
  ) || (
    select jsonb_build_object(
      'turns', count(*),
      'forcedSummaryRate', coalesce((count(*) filter (where t.outcome in ('iteration_limit', 'time_budget', 'no_progress')))::float8 / nullif(count(*), 0), 0),
      'abortedRate', coalesce((count(*) filter (where t.outcome = 'aborted'))::float8 / nullif(count(*), 0), 0),
      'interrupted', count(*) filter (where t.outcome = 'interrupted'),
      'noProgress', count(*) filter (where t.outcome = 'no_progress'),
      'interruptedRate', coalesce((count(*) filter (where t.outcome = 'interrupted'))::float8 / nullif(count(*), 0), 0),
      'avgIterations', coalesce(avg(t.iterations)::float8, 0)
    ) from turns t
  ),
  'ratesOverTime', coalesce((
    select jsonb_agg(jsonb_build_object('bucket', x.bucket, 'model', x.model, 'calls', x.calls,
      'hallucinated', x.hallucinated, 'rate', x.hallucinated::float8 / x.calls) order by x.bucket, x.model)
    from (
      select to_char(date_trunc(case p_bucket when 'hour' then 'hour' else 'day' end, c.created_at at time zone 'UTC'),
               'YYYY-MM-DD"T"HH24:MI:SS"Z"') as bucket,
        c.model, count(*) as calls, count(*) filter (where c.hallucinated) as hallucinated
      from calls c group by 1, 2
    ) x
  ), '[]'::jsonb),
  'byTool', coalesce((
    select jsonb_agg(jsonb_build_object('tool', x.tool, 'calls', x.calls, 'hallucinated', x.hallucinated,
      'rate', x.hallucinated::float8 / x.calls) order by x.calls desc, x.tool)
    from (
      select c.tool, count(*) as calls, count(*) filter (where c.hallucinated) as hallucinated
      from calls c group by c.tool
    ) x
  ), '[]'::jsonb),
  'byServer', coalesce((
    select jsonb_agg(jsonb_build_object('server', x.server, 'calls', x.calls, 'hallucinated', x.hallucinated,
      'rate', x.hallucinated::float8 / x.calls, 'blocked', x.blocked) order by x.server nulls first)
    from (
      select c.tool_server as server, count(*) as calls, count(*) filter (where c.hallucinated) as hallucinated,
        count(*) filter (where c.verdict = 'blocked') as blocked
      from calls c group by c.tool_server
    ) x
  ), '[]'::jsonb),
  'categories', coalesce((
    select jsonb_agg(jsonb_build_object('category', x.category, 'count', x.n) order by x.n desc, x.category)
    from (select c.category, count(*) as n from calls c group by c.category) x
  ), '[]'::jsonb),
  'phantomTools', coalesce((
    select jsonb_agg(jsonb_build_object('name', x.name, 'count', x.n) order by x.n desc, x.name)
    from (select c.tool_requested as name, count(*) as n from calls c where c.category = 'phantom_tool' group by 1) x
  ), '[]'::jsonb),
  'inventedParams', coalesce((
    select jsonb_agg(jsonb_build_object('tool', x.tool, 'param', x.param, 'count', x.n, 'candidate', x.n >= 5)
      order by x.n desc, x.tool, x.param)
    from (
      select c.tool, p.param, count(*) as n
      from calls c cross join lateral jsonb_array_elements_text(c.invented_params) as p(param)
      group by c.tool, p.param
    ) x
  ), '[]'::jsonb),
  'failureCost', (
    select jsonb_build_object(
      'wastedModelCalls', (select count(*) from (select distinct c.turn_id, c.iteration from calls c where c.wasted) w),
      'promptTokens', coalesce(sum(c.prompt_tokens) filter (where c.wasted), 0),
      'completionTokens', coalesce(sum(c.completion_tokens) filter (where c.wasted), 0),
      'ms', coalesce(sum(c.model_ms) filter (where c.wasted), 0),
      'totalTokens', a.total,
      'share', coalesce(coalesce(sum(c.prompt_tokens + c.completion_tokens) filter (where c.wasted), 0)::float8 / nullif(a.total, 0), 0),
      'byModel', coalesce((
        select jsonb_agg(jsonb_build_object('key', x.k, 'calls', x.calls, 'promptTokens', x.p, 'completionTokens', x.cp, 'ms', x.ms,
          'share', coalesce((x.p + x.cp)::float8 / nullif(a.total, 0), 0)) order by x.p + x.cp desc, x.k)
        from (select w.model as k, count(*) as calls, sum(w.prompt_tokens) as p, sum(w.completion_tokens) as cp, sum(w.model_ms) as ms
              from calls w where w.wasted group by w.model) x
      ), '[]'::jsonb),
      'byCategory', coalesce((
        select jsonb_agg(jsonb_build_object('key', x.k, 'calls', x.calls, 'promptTokens', x.p, 'completionTokens', x.cp, 'ms', x.ms,
          'share', coalesce((x.p + x.cp)::float8 / nullif(a.total, 0), 0)) order by x.p + x.cp desc, x.k)
        from (select w.category as k, count(*) as calls, sum(w.prompt_tokens) as p, sum(w.completion_tokens) as cp, sum(w.model_ms) as ms
              from calls w where w.wasted group by w.category) x
      ), '[]'::jsonb),
      'byTool', coalesce((
        select jsonb_agg(jsonb_build_object('key', x.k, 'calls', x.calls, 'promptTokens', x.p, 'completionTokens', x.cp, 'ms', x.ms,
          'share', coalesce((x.p + x.cp)::float8 / nullif(a.total, 0), 0)) order by x.p + x.cp desc, x.k)
        from (select w.tool as k, count(*) as calls, sum(w.prompt_tokens) as p, sum(w.completion_tokens) as cp, sum(w.model_ms) as ms
              from calls w where w.wasted group by w.tool) x
      ), '[]'::jsonb)
    )
    -- The totals first and the calls left-joined: a range without calls still has one row (zeros), not null.
    from (
      select
        coalesce((select sum(coalesce(t.prompt_tokens, 0) + coalesce(t.completion_tokens, 0)) from turns t), 0)
        + coalesce((select sum(g.prompt_tokens + g.completion_tokens) from calls g where g.source = 'gateway'), 0) as total
    ) a
    left join calls c on true
    group by a.total
  ),
  'selfCorrection', (
    select jsonb_build_object(
      'blocked', count(*),
      'correctedFirstRetry', count(*) filter (where b.first_retry <> 'blocked'),
      'correctedSecondRetry', count(*) filter (where b.first_retry <> 'blocked' or b.second_retry <> 'blocked'),
      'rateFirst', coalesce((count(*) filter (where b.first_retry <> 'blocked'))::float8 / nullif(count(*), 0), 0),
      'rateSecond', coalesce((count(*) filter (where b.first_retry <> 'blocked' or b.second_retry <> 'blocked'))::float8 / nullif(count(*), 0), 0)
    ) from blocked b
  ),
  'approvals', (
    select jsonb_build_object(
      'requested', count(*),
      'approved', count(*) filter (where a.status = 'approved'),
      'denied', count(*) filter (where a.status = 'denied'),
      'expired', count(*) filter (where a.status = 'expired'),
      'pending', count(*) filter (where a.status = 'pending'),
      'approvalRate', coalesce((count(*) filter (where a.status = 'approved'))::float8 / nullif(count(*) filter (where a.status <> 'pending'), 0), 0),
      'medianDecisionMs', percentile_cont(0.5) within group (order by extract(epoch from a.decided_at - a.created_at) * 1000)
        filter (where a.status in ('approved', 'denied')),
      'deniedByTool', coalesce((
        select jsonb_agg(jsonb_build_object('tool', x.tool, 'denied', x.n, 'requested', x.requested) order by x.n desc, x.tool)
        from (
          select d.tool_name as tool, count(*) filter (where d.status = 'denied') as n, count(*) as requested
          from approvals d group by d.tool_name
        ) x
        where x.n > 0
      ), '[]'::jsonb)
    ) from approvals a
  ),
  'questions', (
    select jsonb_build_object(
      'asked', count(*),
      'answered', count(*) filter (where q.status = 'approved'),
      'declined', count(*) filter (where q.status = 'denied'),
      'expired', count(*) filter (where q.status = 'expired'),
      'pending', count(*) filter (where q.status = 'pending')
    ) from questions q
  )
)
$$;

revoke all on table
  public.agent_activity_facts, public.dashboard_blocked_retries, public.dashboard_hallucination_daily,
  public.dashboard_categories, public.dashboard_phantom_tools, public.dashboard_invented_params,
  public.dashboard_self_correction, public.dashboard_repair_rate, public.dashboard_turn_outcomes,
  public.dashboard_iterations_per_turn, public.dashboard_approvals
from public, anon, authenticated;
grant select on table
  public.agent_activity_facts, public.dashboard_blocked_retries, public.dashboard_hallucination_daily,
  public.dashboard_categories, public.dashboard_phantom_tools, public.dashboard_invented_params,
  public.dashboard_self_correction, public.dashboard_repair_rate, public.dashboard_turn_outcomes,
  public.dashboard_iterations_per_turn, public.dashboard_approvals
to authenticated, service_role;
revoke all on function public.agent_dashboard(timestamptz, timestamptz, text, text, text) from public, anon;
grant execute on function public.agent_dashboard(timestamptz, timestamptz, text, text, text) to authenticated, service_role;
