-- A long message over several rows (issue 32, docs/configuration.md § The embedded database's memory):
-- the embedded PGlite writes at most 256 KB of a message's text per row, so that one statement's working
-- set, and with it PGlite's WASM memory (which never shrinks), does not follow the longest answer a model
-- streamed. A row marked continued holds the start of the text that the session's next row (by id) goes
-- on with; the last row of a message is not marked and carries its other columns. Readers join them
-- (db-rows.ts joinMessageParts). Rows written whole, as the Supabase store writes them, are unmarked.
alter table public.agent_messages add column continued boolean not null default false;
