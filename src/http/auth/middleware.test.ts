import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../auth-error.ts';
import { MemoryActivityWriter } from '../../activity/memory-writer.ts';
import { loadConfig } from '../../config.ts';
import { createModel } from '../../model/index.ts';
import { createMemoryStorage } from '../../store/memory.ts';
import { createApp } from '../app.ts';
import { AuthConfigError } from './env.ts';
import type { Authenticator } from '../deps.ts';
import { onApiError } from '../errors.ts';
import { authenticate, type AuthEnv } from './middleware.ts';

/** Lets user "alice" in (X-User: alice), refuses anyone else, and counts its calls. */
function counting(): Authenticator & { calls: number } {
  const auth = {
    calls: 0,
    async authenticate(request: Request) {
      auth.calls++;
      const user = request.headers.get('x-user');
      if (user !== 'alice') throw new AuthError('Missing credentials: send a bearer token.');
      return { userId: user };
    },
  };
  return auth;
}

/** A JSON body that records whether anything read it. */
function watchedBody() {
  const body = { read: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        body.read = true;
        controller.enqueue(new TextEncoder().encode('{"message":"hi"}'));
        controller.close();
      },
    },
    { highWaterMark: 0 },
  ); // pulled only when read
  return { body, init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit };
}

describe('authenticate', () => {
  const auth = counting();
  const app = new Hono<AuthEnv>().onError(onApiError);
  app.post('/v1/echo', authenticate(auth), async (c) => c.json({ principal: c.get('principal'), body: await c.req.json() }));

  it('sets the principal for the handler', async () => {
    const { init } = watchedBody();
    const res = await app.request('/v1/echo', { ...init, headers: { ...init.headers, 'x-user': 'alice' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ principal: { userId: 'alice' }, body: { message: 'hi' } });
  });

  it('refuses an unauthenticated request before its body is read', async () => {
    const { body, init } = watchedBody();
    const res = await app.request('/v1/echo', init);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { status: 401, code: 'unauthorized', message: 'Missing credentials: send a bearer token.' } });
    expect(body.read).toBe(false);
  });

  it('answers a deployment without auth settings with its 503', async () => {
    const refuse: Authenticator = {
      authenticate: async () => {
        throw new AuthConfigError('Authentication is not configured: set SUPABASE_URL.');
      },
    };
    const refusing = new Hono<AuthEnv>().onError(onApiError);
    refusing.get('/v1/data', authenticate(refuse), (c) => c.text('data'));
    const res = await refusing.request('/v1/data');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('auth_not_configured');
  });
});

describe('on every /v1 route of createApp', () => {
  const config = loadConfig({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
  const auth = counting();
  const app = createApp({ config, model: createModel(config), storage: createMemoryStorage(), activity: new MemoryActivityWriter(), tools: [], auth });
  const UUID = '00000000-0000-4000-8000-000000000000';
  // Routes with a scheme of their own, or nothing to guard: the stream GET takes its token, and the
  // unsupported gateway endpoint answers a 400 to anyone.
  const open = ['GET /v1/turns/:id/stream', 'POST /v1/completions'];
  const routes = [...new Set(app.routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/v1/')).map((r) => `${r.method} ${r.path}`))];

  it('finds the routes', () => {
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /v1/turns',
        'POST /v1/chat',
        'POST /v1/chat/completions',
        'POST /v1/messages',
        'POST /v1/responses',
        'GET /v1/dashboard',
        ...open,
      ]),
    );
  });

  it('refuses a request without credentials before reading its body, except on the open routes', async () => {
    for (const route of routes.filter((r) => !open.includes(r))) {
      const [method, path] = route.split(' ') as [string, string];
      const { body, init } = watchedBody();
      const res = await app.request(path.replace(/:\w+/g, UUID), method === 'GET' ? {} : init);
      expect(res.status, route).toBe(401);
      expect(body.read, route).toBe(false);
    }
  });

  it('leaves the open routes and unknown routes to their own answers', async () => {
    const before = auth.calls;
    expect((await app.request(`/v1/turns/${UUID}/stream?token=x`)).status).toBe(404);
    expect((await app.request('/v1/completions', watchedBody().init)).status).toBe(400);
    expect((await app.request('/v1/turns')).status).toBe(404);
    expect((await app.request('/v1/nothing', watchedBody().init)).status).toBe(404);
    expect(auth.calls).toBe(before);
  });
});
