// POST /v1/chat streams a turn in the response (fetch clients); POST /v1/turns + GET …/stream lets a
// native EventSource do the same with a GET and a stateless token. A turn outlives its connections: a
// stream is a reader that replays after Last-Event-ID and follows, and POST …/stop is how a turn ends early.
// `format=ui` streams the same turn as the AI SDK's UI message stream (a /v1/ui/chat turn read from its
// Durable Object: handoff.ts).
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppDeps, Principal } from '../deps.ts';
import { readJson } from '../body.ts';
import { AuthError } from '../../auth-error.ts';
import { ApiError } from '../errors.ts';
import { liveStream, persistedStream, startTurn, type StreamFormat } from '../run-turn-stream.ts';
import { SSE_HEADERS } from '../sse.ts';
import type { TurnTokens } from '../turn-token.ts';
import { uiMessageStreamFormat } from '../ui-stream/mapper.ts';
import { authenticate, type AuthEnv } from '../middleware/auth.ts';
import { closeStaleTurns } from '../../store/interrupted.ts';
import type { LiveTurns } from '../../turns/live-turns.ts';

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

const notFound = (id: string) => new ApiError(404, 'not_found', `No turn ${id}. Create one with POST /v1/turns.`);

export function turnRoutes(deps: AppDeps, tokens: TurnTokens, turns: LiveTurns) {
  const app = new Hono<AuthEnv>();
  const schema = TurnRequest(deps.config.maxMessageChars);
  const authenticated = authenticate(deps.auth);

  async function createTurn(principal: Principal, body: z.infer<typeof schema>) {
    // Another user's sessionId: SessionForbiddenError, a 403 (toApiError).
    const sessionId = await deps.storage.sessions.ensureSession(principal.userId, body.sessionId);
    // Turns a killed process left running are closed here, by age, on every runtime (src/store/interrupted.ts),
    // this session's first: its interrupted turn reaches the history before the new one does.
    await closeStaleTurns(deps.storage.sessions, { timeBudgetMs: deps.config.timeBudgetMs, sessionId });
    return deps.storage.sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId: principal.userId, message: body.message });
  }

  app.post('/v1/chat', authenticated, async (c) => {
    const body = await readJson(c, schema);
    const turn = await createTurn(c.get('principal'), body);
    const claimed = await deps.storage.sessions.claimTurn(turn.id);
    if (!claimed) throw new ApiError(409, 'conflict', 'The turn was already started.');
    return liveStream(deps, startTurn(deps, turns, claimed, c), 0, c);
  });

  app.post('/v1/turns', authenticated, async (c) => {
    const body = await readJson(c, schema);
    const turn = await createTurn(c.get('principal'), body);
    const token = await tokens.issue(turn.id, turn.userId);
    // Relative to wherever the app is mounted (a Supabase function serves it under /<name>).
    const prefix = c.req.path.slice(0, c.req.path.length - '/v1/turns'.length);
    const streamUrl = `${prefix}/v1/turns/${turn.id}/stream?token=${encodeURIComponent(token)}`;
    return c.json({ turnId: turn.id, sessionId: turn.sessionId, streamUrl }, 201);
  });

  app.get('/v1/turns/:id/stream', async (c) => {
    const id = c.req.param('id');
    if (!z.uuid().safeParse(id).success) throw notFound(id);
    const turn = await deps.storage.sessions.getTurn(id);
    if (!turn) throw notFound(id);
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
      const claimed = await deps.storage.sessions.claimTurn(turn.id);
      if (claimed) return liveStream(deps, startTurn(deps, turns, claimed, c), after, c, format);
    }
    // Started (here, elsewhere, or by a racing request a moment ago) or finished: a reader of its log.
    const live = turns.get(turn.id);
    if (live) {
      // A reconnect after the end that has seen everything gets 204, which stops EventSource for good.
      if (live.log.finished && after >= live.log.lastSeq) return c.body(null, 204);
      return head ? headOk() : liveStream(deps, live, after, c, format);
    }
    const current = (await deps.storage.sessions.getTurn(turn.id)) ?? turn;
    if (current.status === 'finished' && (await deps.storage.turnEvents.eventsAfter(turn.id, after)).length === 0) return c.body(null, 204);
    return head ? headOk() : persistedStream(deps, current, after, c, format);
  });

  // Ends a turn early for every reader (done{reason:"aborted"}); only its owner may. Idempotent.
  app.post('/v1/turns/:id/stop', authenticated, async (c) => {
    const id = c.req.param('id');
    if (!z.uuid().safeParse(id).success) throw notFound(id);
    const turn = await deps.storage.sessions.getTurn(id);
    if (!turn) throw notFound(id);
    if (turn.userId !== c.get('principal').userId) throw new ApiError(403, 'forbidden', 'This turn belongs to another user.');
    const live = turns.get(id);
    if (turn.status === 'finished' || live?.log.finished) {
      throw new ApiError(409, 'conflict', 'This turn has already finished: there is nothing to stop. Its stream still replays it.');
    }
    if (live) live.stop();
    else if (turn.status === 'pending' && (await deps.storage.sessions.claimTurn(id))) {
      // Never started: start it stopped, so it ends as aborted like any other, its message in the history.
      const started = startTurn(deps, turns, turn, c);
      started.stop();
    } else await deps.storage.sessions.requestStop(id); // running on another instance: it polls for this
    return c.json({ turnId: id, status: 'stopping' }, 202);
  });

  return app;
}
