// The AI SDK's UI message stream protocol, so that a `useChat` app talks to Rebound unchanged (README,
// "From a useChat app"). POST /v1/ui/chat takes what useChat's default transport sends and streams the
// turn as UI message chunks (ui-stream/mapper.ts); GET /v1/ui/chat/:id/stream is where
// `useChat({resume: true})` reattaches on mount: the chat's running turn, replayed from its first
// event, or 204. The turn is the same durable turn as POST /v1/chat's: a client that leaves (useChat's
// stop() aborts its fetch) ends only its reader; POST /v1/turns/:id/stop ends the turn. Asked for a
// handle (handoff.ts: a Worker whose turns run in Durable Objects), both answer where the turn streams.
import { Hono, type Context } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../deps.ts';
import { readJson } from '../body.ts';
import { ApiError } from '../errors.ts';
import { turnHandle, wantsHandle } from '../handoff.ts';
import { turnStream } from '../turn-stream.ts';
import type { TurnTokens } from '../turn-token.ts';
import { chatSessionId } from '../ui-stream/chat-session.ts';
import { uiMessageStreamFormat } from '../ui-stream/mapper.ts';
import { turnStartOptions } from '../wait-until.ts';
import { authenticate, type AuthEnv } from '../auth/middleware.ts';
import { quote } from '../../quote.ts';
import type { TurnReader, TurnService } from '../../turns/service.ts';

/**
 * useChat sends the whole conversation with every message (tool outputs included), though only the
 * last message is read: the history comes from the store. So the cap is higher than the API's 256 KB,
 * and an app with long chats can send the last message alone (prepareSendMessagesRequest).
 */
export const MAX_UI_BODY_BYTES = 4 * 1024 * 1024;

const MAX_CHAT_ID_CHARS = 256;

const chatId = z
  .string({ error: 'id (the chat id useChat sends) is required and must be a string' })
  .min(1, 'id must not be empty')
  .max(MAX_CHAT_ID_CHARS, `id must be at most ${MAX_CHAT_ID_CHARS} characters`);

const UiChatRequest = z.object({
  id: chatId,
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['system', 'user', 'assistant'], { error: 'role must be "user", "assistant" or "system"' }),
        parts: z.array(z.looseObject({ type: z.string({ error: 'each part needs a type' }) }), { error: 'each message needs a parts array (a UIMessage)' }),
      }),
      { error: 'messages must be an array of UIMessages ({id, role, parts})' },
    )
    .min(1, 'messages must not be empty: the last one is the user message to answer'),
  trigger: z.enum(['submit-message', 'regenerate-message'], { error: 'trigger must be "submit-message" or "regenerate-message"' }).default('submit-message'),
  messageId: z.string().optional(),
});
type UiChatBody = z.infer<typeof UiChatRequest>;

export function uiChatRoutes(deps: AppDeps, tokens: TurnTokens, turns: TurnService) {
  const app = new Hono<AuthEnv>();
  const authenticated = authenticate(deps.auth);
  const stream = (c: Context, reader: TurnReader) =>
    turnStream(reader, {
      keepaliveMs: deps.config.keepaliveMs,
      stallMs: deps.config.readerStallMs,
      requestSignal: c.req.raw.signal,
      format: uiMessageStreamFormat(),
    });

  app.post('/v1/ui/chat', authenticated, async (c) => {
    const body = await readBody(c);
    const typed = body.trigger === 'submit-message' ? userText(body, deps.config.maxMessageChars) : null;
    const { userId } = c.get('principal');
    // SessionForbiddenError: a 403 (toApiError). As on every turn creation, stale turns are closed, this chat's first.
    const sessionId = await turns.openSession(userId, await chatSessionId(userId, body.id));
    // One turn at a time per chat: the next one reads the history, which holds a turn only once it has ended.
    const running = await turns.runningTurn(sessionId);
    if (running) {
      throw new ApiError(
        409,
        'conflict',
        `A turn is still running in this chat (turn ${running.id}). Wait for it (GET /v1/ui/chat/{id}/stream follows it) or stop it (POST /v1/turns/${running.id}/stop), then send again.`,
      );
    }
    const message = typed ?? (await lastTurnMessage(turns, sessionId));
    const turn = await turns.createTurn({ sessionId, userId, message });
    if (wantsHandle(c)) return c.json(await turnHandle(c, turn, { tokens, route: '/v1/ui/chat', format: 'ui' }), 201);
    const live = await turns.claimAndStart(turn, turnStartOptions(c, deps));
    if (!live) throw new ApiError(409, 'conflict', 'The turn was already started.');
    return stream(c, turns.liveReader(live, 0));
  });

  app.get('/v1/ui/chat/:id/stream', authenticated, async (c) => {
    const id = chatId.safeParse(c.req.param('id'));
    if (!id.success) throw new ApiError(400, 'invalid_request', `Invalid chat id: ${id.error.issues[0]!.message}.`);
    const { userId } = c.get('principal');
    const found = await turns.resumable(userId, await chatSessionId(userId, id.data));
    if (found.kind === 'forbidden') throw new ApiError(403, 'forbidden', 'This chat belongs to another user.');
    if (found.kind === 'none') return c.body(null, 204);
    if (wantsHandle(c)) return c.json(await turnHandle(c, found.turn, { tokens, route: '/v1/ui/chat', format: 'ui' }), 200);
    const reader = await turns.reader(found.turn, 0);
    return reader ? stream(c, reader) : c.body(null, 204);
  });

  return app;
}

/**
 * The body, its conversation cut to the last message before it is parsed (readJson's keepLast): only
 * that one is validated and read, so a history of any length costs one scan of its text.
 */
function readBody(c: Context): Promise<UiChatBody> {
  return readJson(c, UiChatRequest, {
    maxBytes: MAX_UI_BODY_BYTES,
    keepLast: 'messages',
    tooLarge: `The body is larger than ${MAX_UI_BODY_BYTES / (1024 * 1024)} MB. The server keeps the chat's history, so send only the last message (prepareSendMessagesRequest, see the README's "From a useChat app").`,
  });
}

/** The turn's message: the text parts of the last message, which must be the user's. */
function userText(body: UiChatBody, maxChars: number): string {
  const last = body.messages.at(-1)!;
  if (last.role !== 'user') {
    throw new ApiError(
      400,
      'invalid_request',
      `Invalid request: the last message must be the user's (role "user"), not ${quote(last.role)}. Send the new user message last, or use trigger "regenerate-message" to answer the last one again.`,
    );
  }
  const texts = last.parts.flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []));
  const text = texts.join('\n\n').trim();
  if (text === '') {
    const kinds = [...new Set(last.parts.map((p) => p.type))];
    const had = kinds.length
      ? `it has only ${kinds
          .slice(0, 5)
          .map((k) => quote(k, 40))
          .join(', ')}${kinds.length > 5 ? ` and ${kinds.length - 5} more kinds of` : ''} parts`
      : 'it has no parts';
    throw new ApiError(
      400,
      'invalid_request',
      `Invalid request: the last message has no text (${had}). Rebound answers text parts; files and other parts are not read.`,
    );
  }
  if (text.length > maxChars)
    throw new ApiError(400, 'invalid_request', `Invalid request: the message must be at most ${maxChars} characters (its text parts have ${text.length}).`);
  return text;
}

/** regenerate-message runs the chat's last turn again: its message is the last user message in the stored history. */
async function lastTurnMessage(turns: TurnService, sessionId: string): Promise<string> {
  const last = await turns.lastUserMessage(sessionId);
  if (last === null)
    throw new ApiError(400, 'invalid_request', 'Invalid request: this chat has no turn to regenerate yet. Send a message with trigger "submit-message".');
  return last;
}
