import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { hostName } from './host-guard.ts';
import { localGuard } from './local-guard.ts';

describe('localGuard: the Host', () => {
  const app = new Hono();
  app.use('*', localGuard({ allowedHosts: ['dev.example.test', '[fd00::1]'], allowedOrigins: [] }));
  app.get('/health', (c) => c.text('ok'));
  app.post('/v1/turns', (c) => c.text('created', 201));

  const request = (host: string | undefined, init: RequestInit = {}, path = '/health') =>
    app.request(`http://127.0.0.1:8787${path}`, { ...init, headers: host === undefined ? {} : { host } });

  it.each(['127.0.0.1', '127.0.0.1:8787', 'localhost', 'LOCALHOST:8787', '[::1]', '[::1]:8787', 'dev.example.test', 'Dev.Example.Test:443', '[fd00::1]:80'])(
    'serves Host %s',
    async (host) => {
      const res = await request(host);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('ok');
    },
  );

  it('falls back to the URL when there is no Host header (app.request, HTTP/1.0)', async () => {
    expect((await request(undefined)).status).toBe(200);
    expect((await app.request('http://evil.example/health')).status).toBe(403);
  });

  it.each([
    'evil.example',
    'evil.example:8787',
    'localhost.evil.example',
    '127.0.0.1.nip.io',
    'localhost.',
    'sub.dev.example.test',
    'evil@127.0.0.1',
    '127.0.0.1:port',
    '',
  ])('refuses Host %j with a JSON error that names it and ALLOWED_HOSTS', async (host) => {
    const res = await request(host);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await res.json()) as { error: { status: number; code: string; message: string } };
    expect(body.error).toMatchObject({ status: 403, code: 'host_not_allowed' });
    expect(body.error.message).toContain(JSON.stringify(host));
    expect(body.error.message).toMatch(/ALLOWED_HOSTS/);
  });

  it('refuses before the handler runs, whatever the method', async () => {
    let ran = false;
    const guarded = new Hono();
    guarded.use('*', localGuard({ allowedHosts: [], allowedOrigins: [] }));
    guarded.post('/v1/turns', (c) => {
      ran = true;
      return c.text('created', 201);
    });
    const res = await guarded.request('http://127.0.0.1/v1/turns', { method: 'POST', headers: { host: 'evil.example' } });
    expect(res.status).toBe(403);
    expect(ran).toBe(false);
    expect((await request('localhost', { method: 'POST' }, '/v1/turns')).status).toBe(201);
  });
});

describe('localGuard: both checks in one step', () => {
  const app = new Hono();
  app.use('*', localGuard({ allowedHosts: [], allowedOrigins: [] }));
  app.post('/v1/turns', (c) => c.text('created', 201));
  const post = (headers: Record<string, string>) => app.request('http://127.0.0.1/v1/turns', { method: 'POST', headers });

  it('refuses a foreign Host first, a foreign Origin on a served Host next, and lets the rest through', async () => {
    const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;
    expect(await code(await post({ host: 'evil.example', origin: 'https://evil.example' }))).toBe('host_not_allowed');
    expect(await code(await post({ host: '127.0.0.1', origin: 'https://evil.example' }))).toBe('origin_not_allowed');
    expect((await post({ host: '127.0.0.1', origin: 'http://127.0.0.1' })).status).toBe(201);
  });

  it('checks each Host as it comes, the one served before as any other', async () => {
    // Alternating a served Host and foreign ones: the one it last served never lets another through.
    for (const host of ['127.0.0.1', 'evil.example', '127.0.0.1', '127.0.0.1:80', '127.0.0.1.evil.example', 'localhost', 'LOCALHOST.', '127.0.0.1']) {
      const served = host === '127.0.0.1' || host === '127.0.0.1:80' || host === 'localhost';
      expect((await post({ host })).status, host).toBe(served ? 201 : 403);
      // Its Origin is still checked on a Host served before.
      if (served) expect((await post({ host, origin: 'https://evil.example' })).status, host).toBe(403);
    }
  });
});

describe('hostName', () => {
  it.each([
    ['localhost:8787', 'localhost'],
    ['[::1]:8787', '[::1]'],
    ['[::1]', '[::1]'],
    ['Example.COM', 'example.com'],
    ['example.com:', null],
    ['example.com:123456', null],
    ['::1', null],
    ['a/b', null],
    ['[::1]x', null],
  ])('%s → %s', (host, name) => {
    expect(hostName(host)).toBe(name);
  });
});
