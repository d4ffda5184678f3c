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
// the assistant's with `approval-responded` parts. Nothing in them is trusted: each must name an approval
// that waits in THIS user's chat, for the same call, tool and arguments (and carry this server's
// signature when it has one); the decision goes through the turn service as POST
// /v1/turns/:turnId/approvals/:approvalId's does, and the response streams the rest of the turn.
import { Hono, type Context } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../deps.ts';
import { readJson } from '../body.ts';
import { ApiError } from '../errors.ts';
import { FORWARD_HEADER, turnHandle, wantsHandle } from '../handoff.ts';
import { turnStream } from '../turn-stream.ts';
import type { TurnTokens } from '../turn-token.ts';
import { chatSessionId } from '../ui-stream/chat-session.ts';
import { turnStartOptions, waitUntilFor } from '../wait-until.ts';
import { authenticate, type AuthEnv } from '../auth/middleware.ts';
import { quote } from '../../quote.ts';
import type { ApprovalRecord, TurnRecord } from '../../store/types.ts';
import { APPROVAL_ID, argumentsHash } from '../../tools/approval.ts';
import type { TurnReader, TurnService } from '../../turns/service.ts';
import { pausedUiStream } from '../ui-stream/approval-pause.ts';
import type { ApprovalSigner } from '../ui-stream/approval-signature.ts';
import { decisionError, MAX_REASON_CHARS } from './turns.ts';

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

/** Approval responses one message may carry: more than a turn's batch of calls could ever wait for. */
const MAX_APPROVAL_RESPONSES = 64;

/** A tool part useChat's addToolApprovalResponse answered: `dynamic-tool` (Rebound's) or `tool-<name>`. */
const ApprovalResponsePart = z.object({
  type: z.string(),
  toolCallId: z.string().max(256, 'toolCallId must be at most 256 characters'),
  toolName: z.string().max(256, 'toolName must be at most 256 characters').optional(),
  input: z.unknown(),
  approval: z.object({
    id: z.string().max(64, 'approval.id must be at most 64 characters'),
    approved: z.boolean({ error: 'approval.approved must be true or false' }),
    reason: z.string().max(MAX_REASON_CHARS, `approval.reason must be at most ${MAX_REASON_CHARS} characters`).optional(),
    signature: z.string().max(128, 'approval.signature must be at most 128 characters').optional(),
  }),
});
type ApprovalResponse = z.infer<typeof ApprovalResponsePart>;

/** Approval responses matched to the calls that wait, all of one turn. */
interface Matched {
  turn: TurnRecord;
  matched: Array<{ approval: ApprovalRecord; response: ApprovalResponse }>;
}

export interface UiChatOptions {
  tokens: TurnTokens;
  turns: TurnService;
  /** Signs the approval requests the stream sends, and checks the signatures that come back. */
  signer: ApprovalSigner;
}

export function uiChatRoutes(deps: AppDeps, { tokens, turns, signer }: UiChatOptions) {
  const app = new Hono<AuthEnv>();
  const authenticated = authenticate(deps.auth);
  /** The turn's stream from its first event, ending at a pause for approval; `answered`: a continuation's decisions. */
  const stream = (c: Context, reader: TurnReader, turn: TurnRecord, answered?: Set<string>) => {
    const ui = pausedUiStream(reader, { turn, turns, signer, ...(answered ? { answered } : {}) });
    return turnStream(ui.reader, {
      keepaliveMs: deps.config.keepaliveMs,
      stallMs: deps.config.readerStallMs,
      requestSignal: c.req.raw.signal,
      format: ui.format,
    });
  };

  app.post('/v1/ui/chat', authenticated, async (c) => {
    const body = await readBody(c);
    const responses = approvalResponses(body);
    const typed = body.trigger === 'submit-message' && !responses ? userText(body, deps.config.maxMessageChars) : null;
    const { userId } = c.get('principal');
    // SessionForbiddenError: a 403 (toApiError). As on every turn creation, stale turns are closed, this chat's first.
    const sessionId = await turns.openSession(userId, await chatSessionId(userId, body.id), { waitUntil: waitUntilFor(c, deps) });
    if (responses) {
      const matched = await matchResponses({ sessionId, responses });
      // A Worker (handoff.ts): the checks are made here, so errors wake no object, and the decision is
      // taken in the turn's object, where the continuation runs and outlives this client.
      if (wantsHandle(c)) return c.body(null, 200, { [FORWARD_HEADER]: matched.turn.id });
      const { turn, answered } = await decideResponses(c, { userId, ...matched });
      const reader = await turns.reader(turn, 0);
      if (!reader) throw new ApiError(409, 'conflict', `Turn ${turn.id} has nothing more to stream.`);
      return stream(c, reader, turn, answered);
    }
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
    return stream(c, turns.liveReader(live, 0), turn);
  });

  app.get('/v1/ui/chat/:id/stream', authenticated, async (c) => {
    const id = chatId.safeParse(c.req.param('id'));
    if (!id.success) throw new ApiError(400, 'invalid_request', `Invalid chat id: ${id.error.issues[0]!.message}.`);
    const { userId } = c.get('principal');
    const found = await turns.resumable(userId, await chatSessionId(userId, id.data), { waitUntil: waitUntilFor(c, deps) });
    if (found.kind === 'forbidden') throw new ApiError(403, 'forbidden', 'This chat belongs to another user.');
    if (found.kind === 'none') return c.body(null, 204);
    if (wantsHandle(c)) return c.json(await turnHandle(c, found.turn, { tokens, route: '/v1/ui/chat', format: 'ui' }), 200);
    const reader = await turns.reader(found.turn, 0);
    return reader ? stream(c, reader, found.turn) : c.body(null, 204);
  });

  /**
   * Matches each response against the calls that wait in this chat (never the client's account of them):
   * all of one turn, and every call of it that waits, since the turn goes on only once each has a
   * decision (lastAssistantMessageIsCompleteWithApprovalResponses sends exactly that).
   */
  async function matchResponses({ sessionId, responses }: { sessionId: string; responses: ApprovalResponse[] }): Promise<Matched> {
    const pending = new Map((await turns.pendingApprovals(sessionId)).map((a) => [a.id, a]));
    const matched: Array<{ approval: ApprovalRecord; response: ApprovalResponse }> = [];
    for (const response of distinctResponses(responses)) {
      const approval = pending.get(response.approval.id);
      if (!approval) throw await notWaiting(response.approval.id, sessionId);
      await checkResponse(response, approval, signer);
      matched.push({ approval, response });
    }
    const turnId = matched[0]!.approval.turnId;
    if (matched.some((m) => m.approval.turnId !== turnId))
      throw new ApiError(400, 'invalid_request', 'Invalid request: the approval responses belong to different turns. Answer the calls of the last turn only.');
    const unanswered = [...pending.values()].filter((a) => a.turnId === turnId && !matched.some((m) => m.approval.id === a.id));
    if (unanswered.length > 0) {
      throw new ApiError(
        400,
        'invalid_request',
        `Invalid request: ${unanswered.length} more ${unanswered.length === 1 ? 'call' : 'calls'} of this turn ${unanswered.length === 1 ? 'waits' : 'wait'} for a decision (${unanswered
          .slice(0, 5)
          .map((a) => quote(a.toolName, 60))
          .join(', ')}). Answer every approval of the turn before sending (sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses does).`,
      );
    }
    const turn = await turns.find(turnId);
    if (!turn) throw new ApiError(404, 'not_found', `No turn ${turnId}.`);
    return { turn, matched };
  }

  /** The matched responses decided through the turn service, as POST /v1/turns/:turnId/approvals/:approvalId decides. */
  async function decideResponses(
    c: Context,
    { userId, turn, matched }: Matched & { userId: string | null },
  ): Promise<{ turn: TurnRecord; answered: Set<string> }> {
    const turnId = turn.id;
    for (const { approval, response } of matched) {
      const result = await turns.decide(
        { turn, approvalId: approval.id, userId, approved: response.approval.approved, reason: response.approval.reason },
        turnStartOptions(c, deps),
      );
      if (result.kind !== 'accepted') throw decisionError(result, { turnId, approvalId: approval.id });
    }
    return { turn, answered: new Set(matched.map((m) => m.approval.id)) };
  }

  /** Why an approval id is not one that waits in this chat: decided or expired already here (409, 410), else unknown (404). */
  async function notWaiting(approvalId: string, sessionId: string): Promise<ApiError> {
    const record = APPROVAL_ID.test(approvalId) ? await deps.storage.approvals.get(approvalId) : null;
    if (record?.sessionId === sessionId && record.status === 'expired')
      return new ApiError(410, 'expired', `The approval ${quote(approvalId)} expired at ${record.expiresAt}: the call did not run, and the model was told.`);
    if (record?.sessionId === sessionId)
      return new ApiError(
        409,
        'conflict',
        `The approval ${quote(approvalId)} was already ${record.status}: a decision is final (a response sent twice is refused).`,
      );
    return new ApiError(
      404,
      'not_found',
      `No call of this chat waits for approval ${quote(approvalId, 80)}. Answer the tool-approval-request this chat's stream sent (GET /v1/ui/chat/{id}/stream resumes to it).`,
    );
  }

  return app;
}

/** The approval-responded parts of the last message, when it is the assistant's (a continuation), else null. */
function approvalResponses(body: UiChatBody): ApprovalResponse[] | null {
  const last = body.messages.at(-1)!;
  if (body.trigger !== 'submit-message' || last.role !== 'assistant') return null;
  const parts = last.parts.filter((p) => p.state === 'approval-responded');
  if (parts.length === 0) {
    throw new ApiError(
      400,
      'invalid_request',
      'Invalid request: the last message must be the user\'s (role "user"), not "assistant", unless it answers an approval (a tool part in state "approval-responded", as addToolApprovalResponse leaves it). Send the new user message last, or use trigger "regenerate-message" to answer the last one again.',
    );
  }
  if (parts.length > MAX_APPROVAL_RESPONSES)
    throw new ApiError(
      400,
      'invalid_request',
      `Invalid request: at most ${MAX_APPROVAL_RESPONSES} approval responses per message (this one has ${parts.length}).`,
    );
  return parts.map((part, i) => {
    const parsed = ApprovalResponsePart.safeParse(part);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ApiError(400, 'invalid_request', `Invalid request: approval response ${i + 1}: ${issue.path.join('.') || 'part'}: ${issue.message}.`);
    }
    return parsed.data;
  });
}

/**
 * The responses, each approval once: a repeat with the same decision counts once; the same approval
 * answered two ways is refused before anything is decided (a batch is decided whole or not at all).
 */
function distinctResponses(responses: ApprovalResponse[]): ApprovalResponse[] {
  const byId = new Map<string, ApprovalResponse>();
  for (const response of responses) {
    const { id, approved, reason } = response.approval;
    const first = byId.get(id);
    if (!first) byId.set(id, response);
    else if (first.approval.approved !== approved || (first.approval.reason ?? '') !== (reason ?? ''))
      throw new ApiError(
        400,
        'invalid_request',
        `Invalid request: the message answers approval ${quote(id, 80)} twice, differently. Nothing was decided: answer each approval once.`,
      );
  }
  return [...byId.values()];
}

/**
 * A response applies to exactly the call that waits: the same call id, tool and arguments (by their
 * hash, as the server bound them), and, when it carries a signature, this server's for that approval.
 */
async function checkResponse(response: ApprovalResponse, approval: ApprovalRecord, signer: ApprovalSigner): Promise<void> {
  const toolName = response.type === 'dynamic-tool' ? response.toolName : response.type.startsWith('tool-') ? response.type.slice(5) : undefined;
  const input = response.input;
  // Arguments nested too deep to hash (canonicalJson's RangeError) match nothing the server issued.
  const argsHash =
    input !== null && typeof input === 'object' && !Array.isArray(input) ? await argumentsHash(input as Record<string, unknown>).catch(() => null) : null;
  const signature = response.approval.signature;
  if (response.toolCallId !== approval.toolCallId || toolName !== approval.toolName || argsHash !== approval.argsHash) {
    throw new ApiError(
      403,
      'forbidden',
      `The response to approval ${quote(approval.id)} does not match the call that waits (its call id, tool or arguments differ): a decision applies to exactly that call.`,
    );
  }
  if (
    signature !== undefined &&
    !(await signer.verify(signature, {
      approvalId: approval.id,
      toolCallId: approval.toolCallId,
      toolName: approval.toolName,
      argsHash: approval.argsHash,
      expiresAt: approval.expiresAt,
    }))
  ) {
    throw new ApiError(403, 'forbidden', `The signature of approval ${quote(approval.id)} is not this server's for that call: the response was refused.`);
  }
}

/**
 * The body, its conversation cut to the last message before it is parsed (readJson's keepLast): only
 * that one is validated and read, so a history of any length costs one scan of its text.
 */
function readBody(c: Context): Promise<UiChatBody> {
  return readJson(c, UiChatRequest, {
    maxBytes: MAX_UI_BODY_BYTES,
    keepLast: 'messages',
    tooLarge: `The body is larger than ${MAX_UI_BODY_BYTES / (1024 * 1024)} MB. The server keeps the chat's history, so send only the last message (prepareSendMessagesRequest, see docs/use-chat.md).`,
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
