// POST /v1/chat streams a turn in the response (fetch clients); POST /v1/turns + GET …/stream lets a
// native EventSource do the same with a GET and a stateless token.
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppDeps, Principal } from '../deps.ts';
import { readJson } from '../body.ts';
import { ApiError } from '../errors.ts';
import { turnStream } from '../run-turn-stream.ts';
import { SSE_HEADERS } from '../sse.ts';
import type { TurnTokens } from '../turn-token.ts';
import { SessionForbiddenError } from '../../store/types.ts';
import { closeStaleTurns } from '../../store/interrupted.ts';

const TurnRequest = (maxChars: number) =>
  z.object({
    message: z.string({ error: 'message is required and must be a string' }).trim().min(1, 'message must not be empty').max(maxChars, `message must be at most ${maxChars} characters`),
    sessionId: z.uuid({ error: 'sessionId must be a UUID returned by an earlier turn' }).optional(),
  });

export function turnRoutes(deps: AppDeps, tokens: TurnTokens) {
  const app = new Hono<{ Variables: { principal: Principal } }>();
  const schema = TurnRequest(deps.config.maxMessageChars);

  async function createTurn(principal: Principal, body: z.infer<typeof schema>) {
    let sessionId: string;
    try {
      sessionId = await deps.storage.sessions.ensureSession(principal.userId, body.sessionId);
    } catch (err) {
      if (err instanceof SessionForbiddenError) throw new ApiError(403, 'forbidden', 'This session belongs to another user. Omit sessionId to start a new session.');
      throw err;
    }
    // Turns a killed process left running are closed here, by age, on every runtime (src/store/interrupted.ts),
    // this session's first: its interrupted turn reaches the history before the new one does.
    await closeStaleTurns(deps.storage.sessions, { timeBudgetMs: deps.config.timeBudgetMs, sessionId });
    return deps.storage.sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId: principal.userId, message: body.message });
  }

  app.post('/v1/chat', async (c) => {
    const body = await readJson(c, schema);
    const principal = await deps.auth.authenticate(c.req.raw);
    const turn = await createTurn(principal, body);
    const claimed = await deps.storage.sessions.claimTurn(turn.id);
    if (!claimed) throw new ApiError(409, 'conflict', 'The turn was already started.');
    return turnStream(deps, claimed, c);
  });

  app.post('/v1/turns', async (c) => {
    const body = await readJson(c, schema);
    const principal = await deps.auth.authenticate(c.req.raw);
    const turn = await createTurn(principal, body);
    const token = await tokens.issue(turn.id, turn.userId);
    // Relative to wherever the app is mounted (a Supabase function serves it under /<name>).
    const prefix = c.req.path.slice(0, c.req.path.length - '/v1/turns'.length);
    const streamUrl = `${prefix}/v1/turns/${turn.id}/stream?token=${encodeURIComponent(token)}`;
    return c.json({ turnId: turn.id, sessionId: turn.sessionId, streamUrl }, 201);
  });

  app.get('/v1/turns/:id/stream', async (c) => {
    const id = c.req.param('id');
    if (!z.uuid().safeParse(id).success) throw new ApiError(404, 'not_found', `No turn ${id}. Create one with POST /v1/turns.`);
    const turn = await deps.storage.sessions.getTurn(id);
    if (!turn) throw new ApiError(404, 'not_found', `No turn ${id}. Create one with POST /v1/turns.`);
    const check = await tokens.verify(c.req.query('token'), turn.id, turn.userId);
    if (!check.ok) throw new ApiError(check.status, check.status === 401 ? 'unauthorized' : 'forbidden', check.message);
    // HEAD (Hono hands it to this GET handler) runs and claims nothing: the status and headers a GET would get now.
    if (c.req.method === 'HEAD') return turn.status === 'pending' ? new Response(null, { status: 200, headers: SSE_HEADERS }) : c.body(null, 204);
    // A turn runs once: a reconnect (EventSource retries on its own) to a started or finished turn gets 204, which stops it.
    const claimed = await deps.storage.sessions.claimTurn(turn.id);
    if (!claimed) return c.body(null, 204);
    return turnStream(deps, claimed, c);
  });

  return app;
}
