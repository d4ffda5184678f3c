// GET /v1/sessions/:id/messages: the conversation so far, so a page can show a session after a reload.
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppDeps } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { SessionForbiddenError } from '../../store/types.ts';

export function sessionRoutes(deps: AppDeps) {
  const app = new Hono();
  app.get('/v1/sessions/:id/messages', async (c) => {
    const id = c.req.param('id');
    if (!z.uuid().safeParse(id).success) throw new ApiError(404, 'not_found', `No session ${id}.`);
    const principal = await deps.auth.authenticate(c.req.raw);
    try {
      // Checks ownership; an unknown id becomes an empty session of this caller.
      await deps.storage.sessions.ensureSession(principal.userId, id);
    } catch (err) {
      if (err instanceof SessionForbiddenError) throw new ApiError(403, 'forbidden', 'This session belongs to another user.');
      throw err;
    }
    return c.json({ sessionId: id, messages: await deps.storage.sessions.history(id) });
  });
  return app;
}
