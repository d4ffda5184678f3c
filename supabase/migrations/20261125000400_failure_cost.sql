-- What failures cost (issue 24), additive: new columns with defaults, so rows and writers from before
-- read as "no cost recorded". The formula (src/calls/wasted.ts, docs/dashboard.md § What failures cost):
--   A model call is wasted when it proposed at least one tool call, every call it proposed failed
--   (blocked, withheld, denied, or run and errored) and it gave no answer text.
--   agent_activity.prompt_tokens / completion_tokens / model_ms: this call's equal share (whole numbers,
--   the remainder on the first calls) of the tokens and wall time of the model call that proposed it;
--   wasted: that model call was wasted. The gateway writes the same on its rows (source = 'gateway'),
--   one model call per attempt, so the usage of its retries is on its own rows.
--   agent_turns.wasted_*: the turn's wasted model calls, their prompt and completion tokens and ms.
--   A row's share is an integer (one model call's tokens never near 2^31; a count past it is stored as
--   0, src/activity/sinks/storable.ts); the turn's sums are bigint like its other token counts.
alter table public.agent_activity
  add column prompt_tokens integer not null default 0,
  add column completion_tokens integer not null default 0,
  add column model_ms double precision not null default 0,
  add column wasted boolean not null default false;

alter table public.agent_turns
  add column wasted_calls integer not null default 0,
  add column wasted_prompt_tokens bigint not null default 0,
  add column wasted_completion_tokens bigint not null default 0,
  add column wasted_ms double precision not null default 0;
