import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { localGuard } from './local-guard.ts';

describe('localGuard: the Origin', () => {
  let runs = 0;
  const app = new Hono();
  app.use('*', localGuard({ allowedHosts: [], allowedOrigins: ['https://chat.example'] }));
  app.get('/v1/dashboard', (c) => c.text('figures'));
  app.post('/v1/turns', (c) => {
    runs++;
    return c.text('created', 201);
  });

  const post = (headers: Record<string, string>) =>
    app.request('http://127.0.0.1:8787/v1/turns', { method: 'POST', headers: { host: '127.0.0.1:8787', ...headers } });

  it.each([
    ['no Origin (curl, SDKs, server-side callers)', {}],
    ['the same origin', { origin: 'http://127.0.0.1:8787' }],
    ['the same host over https (behind a TLS proxy)', { origin: 'https://127.0.0.1:8787' }],
    ['an origin in CORS_ORIGINS', { origin: 'https://chat.example' }],
  ])('accepts a POST with %s', async (_, headers) => {
    const before = runs;
    const res = await post(headers);
    expect(res.status).toBe(201);
    expect(runs).toBe(before + 1);
  });

  it('compares an explicit default port equal to none', async () => {
    const res = await app.request('http://localhost/v1/turns', { method: 'POST', headers: { host: 'localhost:80', origin: 'http://localhost' } });
    expect(res.status).toBe(201);
  });

  it.each([
    ['another site', 'https://evil.example'],
    ['another port of this host', 'http://127.0.0.1:9999'],
    ['localhost for 127.0.0.1', 'http://localhost:8787'],
    ['an opaque origin (sandboxed frame, file://)', 'null'],
    ['an unparseable origin', 'not an origin'],
    ['a listed origin with a trailing slash', 'https://chat.example/'],
  ])('refuses a POST from %s with a JSON error that names the origin and CORS_ORIGINS', async (_, origin) => {
    const before = runs;
    const res = await post({ origin });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await res.json()) as { error: { status: number; code: string; message: string } };
    expect(body.error).toMatchObject({ status: 403, code: 'origin_not_allowed' });
    expect(body.error.message).toContain(JSON.stringify(origin));
    expect(body.error.message).toMatch(/CORS_ORIGINS/);
    expect(runs).toBe(before);
  });

  it('lets safe methods through from anywhere (CORS decides who reads the answer)', async () => {
    const res = await app.request('http://127.0.0.1:8787/v1/dashboard', { headers: { host: '127.0.0.1:8787', origin: 'https://evil.example' } });
    expect(res.status).toBe(200);
  });
});
