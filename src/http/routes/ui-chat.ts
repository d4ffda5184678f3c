// The AI SDK's UI message stream protocol, so that a `useChat` app talks to Rebound unchanged (docs/use-chat.md). POST /v1/ui/chat takes what useChat's default transport sends and streams the
// turn as UI message chunks (ui-stream/mapper.ts); GET /v1/ui/chat/:id/stream is where
// `useChat({resume: true})` reattaches on mount: the chat's running turn, replayed from its first
// event, or 204. The turn is the same durable turn as POST /v1/chat's: a client that leaves (useChat's
// stop() aborts its fetch) ends only its reader; POST /v1/turns/:id/stop ends the turn. Asked for a
// handle (handoff.ts: a Worker whose turns run in Durable Objects), both answer where the turn streams.
//
// Approval (docs/use-chat.md § Approval; ai ≥ 6): a turn that waits for a person ends its
// stream at the pause with `tool-approval-request` (ui-stream/approval-pause.ts), and a reload resumes
// to it. useChat's addToolApprovalResponse (sendAutomaticallyWhen:
// lastAssistantMessageIsCompleteWithApprovalResponses) then posts the conversation whose last message is
// the assistant's with `approval-responded` parts. Nothing in them is trusted: the approval desk
// (turns/approvals.ts) matches the batch against what waits in THIS user's chat, each part for the
// same call, tool and arguments (and carrying this server's signature when it has one: checked here),
// decides it whole or not at all, and the response streams the rest of the turn.
import { Hono } from 'hono';
import type { AppDeps } from '../deps.ts';
import { authenticate, type AuthEnv } from '../auth/middleware.ts';
import type { TurnTokens } from '../turn-token.ts';
import type { TurnService } from '../../turns/service.ts';
import type { ApprovalSigner } from '../ui-stream/approval-signature.ts';
import type { UiChatHandlers } from './ui-chat-handlers.ts';

/**
 * useChat sends the whole conversation with every message (tool outputs included), though only the
 * last message is read: the history comes from the store. So the cap is higher than the API's 256 KB,
 * and an app with long chats can send the last message alone (prepareSendMessagesRequest).
 */
export const MAX_UI_BODY_BYTES = 4 * 1024 * 1024;

export interface UiChatOptions {
  tokens: TurnTokens;
  turns: TurnService;
  /** Signs the approval requests the stream sends, and checks the signatures that come back. */
  signer: ApprovalSigner;
}

export function uiChatRoutes(deps: AppDeps, options: UiChatOptions) {
  const app = new Hono<AuthEnv>();
  const authenticated = authenticate(deps.auth);
  // The handlers (ui-chat-handlers.ts) load on the first request, after its authentication.
  let handlers: Promise<UiChatHandlers> | undefined;
  const load = () => (handlers ??= import('./ui-chat-handlers.ts').then((m) => m.uiChatHandlers(deps, options)));
  app.post('/v1/ui/chat', authenticated, async (c) => (await load()).send(c));
  app.get('/v1/ui/chat/:id/stream', authenticated, async (c) => (await load()).resume(c));
  return app;
}
