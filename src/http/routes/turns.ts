// POST /v1/chat streams a turn in the response (fetch clients); POST /v1/turns + GET …/stream lets a
// native EventSource do the same with a GET and a stateless token. A turn outlives its connections: a
// stream is a reader that replays after Last-Event-ID and follows, and POST …/stop is how a turn ends early.
// `format=ui` streams the same turn as the AI SDK's UI message stream (a /v1/ui/chat turn read from its
// Durable Object: handoff.ts).
import { Hono, type Context } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../deps.ts';
import { readJson } from '../body.ts';
import { AuthError } from '../../auth-error.ts';
import { quote } from '../../quote.ts';
import { ApiError } from '../errors.ts';
import { SSE_HEADERS } from '../sse.ts';
import { turnStream, type StreamFormat } from '../turn-stream.ts';
import type { TurnTokens } from '../turn-token.ts';
import { pausedUiStream } from '../ui-stream/approval-pause.ts';
import type { ApprovalSigner } from '../ui-stream/approval-signature.ts';
import { uiMessageStreamFormat } from '../ui-stream/mapper.ts';
import { turnStartOptions, waitUntilFor } from '../wait-until.ts';
import { authenticate, type AuthEnv } from '../auth/middleware.ts';
import type { TurnRecord } from '../../store/types.ts';
import type { Refusal } from '../../turns/approvals.ts';
import type { TurnReader, TurnService } from '../../turns/service.ts';
import { assertNever } from '../../vocabulary.ts';

const TurnRequest = (maxChars: number) =>
  z.object({
    message: z
      .string({ error: 'message is required and must be a string' })
      .trim()
      .min(1, 'message must not be empty')
      .max(maxChars, `message must be at most ${maxChars} characters`),
    sessionId: z.uuid({ error: 'sessionId must be a UUID returned by an earlier turn' }).optional(),
  });

/** The position a reader resumes after: EventSource's Last-Event-ID header, or ?lastEventId= for clients that cannot set it. */
function lastEventId(header: string | undefined, query: string | undefined): number {
  const raw = (header ?? query ?? '').trim();
  if (raw === '') return 0;
  if (!/^\d{1,9}$/.test(raw))
    throw new ApiError(
      400,
      'invalid_request',
      `Last-Event-ID must be the id of an event this stream sent (a whole number), not ${JSON.stringify(raw.slice(0, 40))}. Omit it to replay the turn from its start.`,
    );
  return Number(raw);
}

/** How the stream writes the turn: Rebound's SSE events, or with `format=ui` the UI message stream. */
function streamFormat(format: string | undefined): StreamFormat {
  if (format === undefined) return {};
  if (format === 'ui') return uiMessageStreamFormat();
  throw new ApiError(
    400,
    'invalid_request',
    `format must be "ui" (the AI SDK's UI message stream) or left out (Rebound's SSE events), not ${JSON.stringify(format.slice(0, 40))}.`,
  );
}

/** The longest reason a person may give with a decision (it reaches the model's tool message and the log). */
export const MAX_REASON_CHARS = 1_000;

const Decision = z.object({
  approved: z.boolean({ error: 'approved is required: true to run the call, false to deny it' }),
  reason: z.string({ error: 'reason must be a string' }).max(MAX_REASON_CHARS, `reason must be at most ${MAX_REASON_CHARS} characters`).optional(),
  arguments: z.record(z.string(), z.unknown(), { error: "arguments must be a JSON object: the call's arguments as they should run" }).optional(),
});

/** An answer to a server's question: any JSON object here; the approval desk checks it against the question (src/tools/input.ts). */
const InputAnswerBody = z.record(z.string(), z.unknown(), { error: 'the body must be a JSON object {action, content}' });

const notFound = (id: string) => new ApiError(404, 'not_found', `No turn ${id}. Create one with POST /v1/turns.`);

export interface TurnRoutesOptions {
  tokens: TurnTokens;
  turns: TurnService;
  /** Signs the approval requests of a `format=ui` stream (ui-stream/approval-signature.ts). */
  signer: ApprovalSigner;
}

export function turnRoutes(deps: AppDeps, { tokens, turns, signer }: TurnRoutesOptions) {
  const app = new Hono<AuthEnv>();
  const schema = TurnRequest(deps.config.maxMessageChars);
  const authenticated = authenticate(deps.auth);
  /** A stream URL with a fresh token, relative to wherever the app is mounted (a Supabase function serves it under /<name>). */
  async function streamUrlOf(c: Context, route: string, turn: { id: string; userId: string | null }) {
    const token = await tokens.issue(turn.id, turn.userId);
    const prefix = c.req.path.slice(0, c.req.path.length - route.length);
    return `${prefix}/v1/turns/${turn.id}/stream?token=${encodeURIComponent(token)}`;
  }
  const stream = (c: Context, reader: TurnReader, format?: StreamFormat) =>
    turnStream(reader, {
      keepaliveMs: deps.config.keepaliveMs,
      stallMs: deps.config.readerStallMs,
      requestSignal: c.req.raw.signal,
      format,
      sink: deps.sseSink?.(c),
    });
  /** The stream in `format`; a UI message stream (format=ui) ends at a pause for approval, as /v1/ui/chat's does. */
  const streamAs = (c: Context, reader: TurnReader, { format, turn }: { format: StreamFormat; turn: TurnRecord }) => {
    if (!format.frame) return stream(c, reader, format);
    const ui = pausedUiStream(reader, { turn, turns, signer });
    return stream(c, ui.reader, ui.format);
  };

  /** The turn's record, or 404 for an id that is not a turn's (where requests are the clock, its due waits expired first). */
  async function findTurn(c: Context, id: string) {
    const turn = z.uuid().safeParse(id).success ? await turns.find(id, { waitUntil: waitUntilFor(c, deps) }) : null;
    if (!turn) throw notFound(id);
    return turn;
  }

  async function createTurn(c: Context, userId: string | null, body: z.infer<typeof schema>) {
    // Another user's sessionId: SessionForbiddenError, a 403 (toApiError).
    const sessionId = await turns.openSession(userId, body.sessionId, { waitUntil: waitUntilFor(c, deps) });
    return turns.createTurn({ sessionId, userId, message: body.message });
  }

  app.post('/v1/chat', authenticated, async (c) => {
    const body = await readJson(c, schema);
    const turn = await createTurn(c, c.get('principal').userId, body);
    const live = await turns.claimAndStart(turn, turnStartOptions(c, deps));
    if (!live) throw new ApiError(409, 'conflict', 'The turn was already started.');
    return stream(c, turns.liveReader(live, 0));
  });

  app.post('/v1/turns', authenticated, async (c) => {
    const body = await readJson(c, schema);
    const turn = await createTurn(c, c.get('principal').userId, body);
    const streamUrl = await streamUrlOf(c, '/v1/turns', turn);
    return c.json({ turnId: turn.id, sessionId: turn.sessionId, streamUrl }, 201);
  });

  app.get('/v1/turns/:id/stream', async (c) => {
    const turn = await findTurn(c, c.req.param('id'));
    const check = await tokens.verify(c.req.query('token'), turn.id, turn.userId);
    if (!check.ok) throw new AuthError(check.message, { status: check.status });
    const after = lastEventId(c.req.header('last-event-id'), c.req.query('lastEventId'));
    const format = streamFormat(c.req.query('format'));
    if (format.frame && after > 0)
      throw new ApiError(
        400,
        'invalid_request',
        "A UI message stream (format=ui) is read from the turn's start, its chunks make one message: leave out Last-Event-ID and lastEventId.",
      );
    // HEAD (Hono hands it to this GET handler) runs and claims nothing: the status and headers a GET would get now.
    const head = c.req.method === 'HEAD';
    const headOk = () => new Response(null, { status: 200, headers: { ...SSE_HEADERS, ...format.headers } });
    if (turn.status === 'pending') {
      if (head) return headOk();
      const live = await turns.claimAndStart(turn, turnStartOptions(c, deps));
      if (live) return streamAs(c, turns.liveReader(live, after), { format, turn });
    }
    // Started (here, elsewhere, or by a racing request a moment ago) or finished: a reader of its log.
    const reader = await turns.reader(turn, after);
    // A reconnect after the end that has seen everything gets 204, which stops EventSource for good.
    if (!reader) return c.body(null, 204);
    return head ? headOk() : streamAs(c, reader, { format, turn });
  });

  // Ends a turn early for every reader (done{reason:"aborted"}); only its owner may. Idempotent.
  app.post('/v1/turns/:id/stop', authenticated, async (c) => {
    const turn = await findTurn(c, c.req.param('id'));
    if (turn.userId !== c.get('principal').userId) throw new ApiError(403, 'forbidden', 'This turn belongs to another user.');
    if ((await turns.stop(turn, { waitUntil: waitUntilFor(c, deps) })) === 'finished') {
      throw new ApiError(409, 'conflict', 'This turn has already finished: there is nothing to stop. Its stream still replays it.');
    }
    return c.json({ turnId: turn.id, status: 'stopping' }, 202);
  });

  // A person's decision on a call that waits (docs/approval.md § The decision): only the turn's user, once, before it expires.
  app.post('/v1/turns/:id/approvals/:approvalId', authenticated, async (c) => {
    const turn = await findTurn(c, c.req.param('id'));
    const approvalId = c.req.param('approvalId');
    const body = await readJson(c, Decision, { example: '{"approved": true}' });
    const result = await turns.approvals.decide(
      { turn, approvalId, userId: c.get('principal').userId, approved: body.approved, reason: body.reason, arguments: body.arguments },
      { waitUntil: waitUntilFor(c, deps) },
    );
    if (result.kind !== 'accepted') throw decisionError(result, { turnId: turn.id, approvalId });
    const streamUrl = await streamUrlOf(c, `/v1/turns/${c.req.param('id')}/approvals/${approvalId}`, turn);
    return c.json({ turnId: turn.id, approvalId, status: result.approval.status, streamUrl }, 202);
  });

  // A person's answer to the question a call's MCP server asked (docs/approval.md § A server's question):
  // MCP's ElicitResult {action, content}, checked against the server's schema; the approval rules otherwise.
  app.post('/v1/turns/:id/inputs/:inputId', authenticated, async (c) => {
    const turn = await findTurn(c, c.req.param('id'));
    const inputId = c.req.param('inputId');
    const body = await readJson(c, InputAnswerBody, { example: '{"action": "accept", "content": {…}}' });
    const result = await turns.approvals.answer({ turn, inputId, userId: c.get('principal').userId, body }, { waitUntil: waitUntilFor(c, deps) });
    if (result.kind !== 'accepted') throw decisionError(result, { turnId: turn.id, approvalId: inputId, input: true });
    const streamUrl = await streamUrlOf(c, `/v1/turns/${c.req.param('id')}/inputs/${inputId}`, turn);
    return c.json({ turnId: turn.id, inputId, action: (result.approval.arguments as { action?: string }).action, streamUrl }, 202);
  });

  return app;
}

/**
 * A decision the approval desk did not take, as the API's error: the same statuses wherever a decision
 * comes from (this route, /v1/ui/chat's batch: `chat` names where its approval ids are looked up).
 */
export function decisionError(
  refusal: Refusal,
  { turnId, approvalId, chat, input }: { turnId?: string; approvalId?: string; chat?: boolean; input?: boolean },
): ApiError {
  switch (refusal.kind) {
    case 'forbidden':
      return new ApiError(403, 'forbidden', 'This turn belongs to another user.');
    case 'not_found':
      return chat
        ? new ApiError(
            404,
            'not_found',
            `No call of this chat waits for approval ${quote(refusal.approvalId, 80)}. Answer the tool-approval-request this chat's stream sent (GET /v1/ui/chat/{id}/stream resumes to it).`,
          )
        : input
          ? new ApiError(
              404,
              'not_found',
              `No question ${quote(approvalId ?? refusal.approvalId)} of turn ${turnId}. Use the inputId of an input_required event of this turn's stream.`,
            )
          : new ApiError(
              404,
              'not_found',
              `No approval ${quote(approvalId ?? refusal.approvalId)} of turn ${turnId}. Use the approvalId of an approval_required event of this turn's stream.`,
            );
    case 'conflict':
      return new ApiError(
        409,
        'conflict',
        refusal.reason === 'ended'
          ? 'This turn has ended: no call of it waits for a decision any more.'
          : `${refusal.approval ? `The approval ${quote(refusal.approval.id)}` : 'This call'} was already ${refusal.approval?.status ?? 'decided'}${refusal.approval?.decidedAt ? ` at ${refusal.approval.decidedAt}` : ''}: a decision is final.`,
      );
    case 'expired':
      return new ApiError(
        410,
        'expired',
        `The approval ${quote(refusal.approval.id)} expired at ${refusal.approval.expiresAt} (APPROVAL_TIMEOUT_MS): the call did not run, and the model was told it was not approved.`,
      );
    case 'invalid_arguments':
      return new ApiError(400, 'invalid_arguments', `${refusal.message} Nothing was decided: send arguments the tool accepts, or approve the call as it is.`);
    case 'mismatch':
      return new ApiError(403, 'forbidden', refusal.message);
    case 'invalid_batch':
      return new ApiError(400, 'invalid_request', `Invalid request: ${refusal.message}`);
    case 'invalid_input':
      return new ApiError(
        400,
        'invalid_input',
        `The answer does not fit the server's question: ${refusal.message}. Nothing was recorded: send {"action": "accept", "content": {…}} with the fields it asked for, or {"action": "decline"}.`,
      );
    default:
      return assertNever(refusal, 'refusal');
  }
}
