// POST /v1/ui/chat and GET /v1/ui/chat/:id/stream's handlers (ui-chat.ts, which says what the routes
// do, registers them): loaded on the first request to either, out of the Worker's startup script
// (test/runtimes/worker-bundle.test.ts), as a deployment that serves only the gateway or the turns API
// never needs them.
import type { Context } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../deps.ts';
import { readJson } from '../body.ts';
import { ApiError } from '../errors.ts';
import { FORWARD_HEADER, turnHandle, wantsHandle } from '../handoff.ts';
import { turnStream } from '../turn-stream.ts';
import { chatSessionId } from '../ui-stream/chat-session.ts';
import { turnStartOptions, waitUntilFor } from '../wait-until.ts';
import type { AuthEnv } from '../auth/middleware.ts';
import { quote } from '../../quote.ts';
import type { ApprovalRecord, TurnRecord } from '../../store/types.ts';
import { argumentsHash } from '../../tools/approval.ts';
import type { Answer, MatchedBatch } from '../../turns/approvals.ts';
import type { TurnReader, TurnService } from '../../turns/service.ts';
import { pausedUiStream } from '../ui-stream/approval-pause.ts';
import type { ApprovalSigner } from '../ui-stream/approval-signature.ts';
import { decisionError, MAX_REASON_CHARS } from './turns.ts';
import { MAX_UI_BODY_BYTES, type UiChatOptions } from './ui-chat.ts';

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

/** The two routes' handlers (ui-chat.ts registers them, behind authentication). */
export type UiChatHandlers = ReturnType<typeof uiChatHandlers>;

export function uiChatHandlers(deps: AppDeps, { tokens, turns, signer }: UiChatOptions) {
  /** The turn's stream from its first event, ending at a pause for approval; `answered`: a continuation's decisions. */
  const stream = (c: Context, reader: TurnReader, turn: TurnRecord, answered?: Set<string>) => {
    const ui = pausedUiStream(reader, { turn, turns, signer, ...(answered ? { answered } : {}) });
    return turnStream(ui.reader, {
      keepaliveMs: deps.config.keepaliveMs,
      stallMs: deps.config.readerStallMs,
      requestSignal: c.req.raw.signal,
      format: ui.format,
      sink: deps.sseSink?.(c),
    });
  };

  /** POST /v1/ui/chat: a new turn, a regenerated one, or a batch of approval responses and the rest of the turn. */
  async function send(c: Context<AuthEnv>): Promise<Response> {
    const body = await readBody(c);
    const responses = approvalResponses(body);
    const typed = body.trigger === 'submit-message' && !responses ? userText(body, deps.config.maxMessageChars) : null;
    const { userId } = c.get('principal');
    // SessionForbiddenError: a 403 (toApiError). As on every turn creation, stale turns are closed, this chat's first.
    const sessionId = await turns.openSession(userId, await chatSessionId(userId, body.id), { waitUntil: waitUntilFor(c, deps) });
    if (responses) {
      const batch = await matchResponses(sessionId, responses);
      // A Worker (handoff.ts): the checks are made here, so errors wake no object, and the decision is
      // taken in the turn's object, where the continuation runs and outlives this client.
      if (wantsHandle(c)) return c.body(null, 200, { [FORWARD_HEADER]: batch.turn.id });
      const decided = await turns.approvals.decideBatch(batch, userId, turnStartOptions(c, deps));
      if (decided.kind !== 'accepted') throw decisionError(decided, { chat: true });
      const { turn } = batch;
      const answered = new Set(batch.answers.map((a) => a.approval.id));
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
  }

  /** GET /v1/ui/chat/:id/stream: the chat's running turn from its first event, or 204. */
  async function resume(c: Context<AuthEnv>): Promise<Response> {
    const id = chatId.safeParse(c.req.param('id'));
    if (!id.success) throw new ApiError(400, 'invalid_request', `Invalid chat id: ${id.error.issues[0]!.message}.`);
    const { userId } = c.get('principal');
    const found = await turns.resumable(userId, await chatSessionId(userId, id.data), { waitUntil: waitUntilFor(c, deps) });
    if (found.kind === 'forbidden') throw new ApiError(403, 'forbidden', 'This chat belongs to another user.');
    if (found.kind === 'none') return c.body(null, 204);
    if (wantsHandle(c)) return c.json(await turnHandle(c, found.turn, { tokens, route: '/v1/ui/chat', format: 'ui' }), 200);
    const reader = await turns.reader(found.turn, 0);
    return reader ? stream(c, reader, found.turn) : c.body(null, 204);
  }

  /** The responses matched at the approval desk against the calls that wait in this chat (never the client's account of them), all checked before any is decided. */
  async function matchResponses(sessionId: string, responses: ApprovalResponse[]): Promise<MatchedBatch> {
    const answers: Array<Answer<ApprovalResponse>> = responses.map((r) => ({
      approvalId: r.approval.id,
      approved: r.approval.approved,
      ...(r.approval.reason !== undefined ? { reason: r.approval.reason } : {}),
      said: r,
    }));
    const matched = await turns.approvals.match({ sessionId, answers }, (approval, response) => mismatch(response, approval, signer));
    if (matched.kind !== 'matched') throw decisionError(matched, { chat: true });
    return matched.batch;
  }

  return { send, resume };
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
 * Why a response does not apply to the call that waits (null: it does): it must name the same call id,
 * tool and arguments (by their hash, as the server bound them), and, when it carries a signature, be
 * this server's for that approval.
 */
async function mismatch(response: ApprovalResponse, approval: ApprovalRecord, signer: ApprovalSigner): Promise<string | null> {
  const toolName = response.type === 'dynamic-tool' ? response.toolName : response.type.startsWith('tool-') ? response.type.slice(5) : undefined;
  const input = response.input;
  // Arguments nested too deep to hash (canonicalJson's RangeError) match nothing the server issued.
  const argsHash =
    input !== null && typeof input === 'object' && !Array.isArray(input) ? await argumentsHash(input as Record<string, unknown>).catch(() => null) : null;
  const signature = response.approval.signature;
  if (response.toolCallId !== approval.toolCallId || toolName !== approval.toolName || argsHash !== approval.argsHash) {
    return `The response to approval ${quote(approval.id)} does not match the call that waits (its call id, tool or arguments differ): a decision applies to exactly that call.`;
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
    return `The signature of approval ${quote(approval.id)} is not this server's for that call: the response was refused.`;
  }
  return null;
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
