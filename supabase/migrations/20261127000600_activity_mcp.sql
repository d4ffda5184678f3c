-- MCP's record on a call's activity row (docs/tools.md, docs/approval.md § A server's question): the
-- protocol revision its MCP server spoke (mcp_protocol: 2026-07-28, 2025-11-25, …; null for the app's
-- own tools and gateway rows), and, when the server asked the person a question first, what came of it
-- (elicitation: the person's accept / decline / cancel, expired, or unanswered when the turn was
-- stopped while it waited). Null for every other call.
alter table public.agent_activity
  add column mcp_protocol text,
  add column elicitation text check (elicitation in ('accept', 'decline', 'cancel', 'expired', 'unanswered'));
