-- Token counts are a turn's sum over its model calls, and an upstream may report anything: an integer
-- column refused a count past 2^31 and, the batch being one statement, every other turn row with it.
-- bigint holds any sum of safe integers the writer passes on (src/activity/sinks/storable.ts).
alter table public.agent_turns
  alter column prompt_tokens type bigint,
  alter column completion_tokens type bigint;
