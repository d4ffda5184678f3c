-- The protocol a gateway call came in (docs/gateway.md § Protocols): 'chat' (POST /v1/chat/completions),
-- 'messages' (Anthropic's Messages API, POST /v1/messages) or 'responses' (the Responses API, POST
-- /v1/responses). Null on the loop's rows, and on gateway rows written before it existed (all Chat
-- Completions then).
alter table public.agent_activity
  add column protocol text check (protocol in ('chat', 'messages', 'responses'));
