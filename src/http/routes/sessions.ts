// GET /v1/sessions/:id/messages: the conversation so far, so a page can show a session after a reload.
// Read-only: an unknown session is a 404, never a new row.
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { authenticate, type AuthEnv } from '../auth/middleware.ts';

export function sessionRoutes(deps: AppDeps) {
  const app = new Hono<AuthEnv>();
  app.get('/v1/sessions/:id/messages', authenticate(deps.auth), async (c) => {
    const id = c.req.param('id');
    const unknown = () => new ApiError(404, 'not_found', `No session ${id}. A session is created by POST /v1/turns; use the sessionId it returned.`);
    if (!z.uuid().safeParse(id).success) throw unknown();
    const session = await deps.storage.sessions.getSession(id);
    if (!session) throw unknown();
    if (session.userId !== c.get('principal').userId)
      throw new ApiError(403, 'forbidden', 'This session belongs to another user. Use a sessionId from your own turns.');
    return c.json({ sessionId: id, messages: await deps.storage.sessions.history(id) });
  });
  return app;
}
