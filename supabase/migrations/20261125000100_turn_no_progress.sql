-- A turn whose model kept repeating calls that fail the same way ends early with a forced summary:
-- the outcome `no_progress` (src/loop/turn.ts, NO_PROGRESS_ITERATIONS). Additive: the check allows
-- one more value.

alter table public.agent_turns drop constraint agent_turns_outcome_check;
alter table public.agent_turns add constraint agent_turns_outcome_check
  check (outcome in ('completed', 'iteration_limit', 'time_budget', 'no_progress', 'aborted', 'error', 'interrupted'));
