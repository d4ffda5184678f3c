-- The MCP server a call's tool belongs to: its name in MCP_SERVERS, which the model sees as the
-- `<server>__` prefix of the tool's name. Also set for a blocked call to a name carrying a configured
-- server's prefix (a tool the model invented for that server). Null for the app's own tools
-- (functions/) and for gateway calls. The dashboard groups by it.
alter table public.agent_activity add column tool_server text;

create index agent_activity_tool_server_created_idx on public.agent_activity (tool_server, created_at)
  where tool_server is not null;
