// CORS says what it does (issue 35): a page whose Origin is "null" (a sandboxed iframe, a file: page,
// which any site can make) is never allowed, whatever CORS_ORIGINS lists, and CORS_ORIGINS cannot name
// it (nor "*"): the start is refused (src/config.test.ts). Against a running app in local mode, where
// the Origin check is what stands between a visited page and the local server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startApp, type TestApp } from '../support/app-server.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ CORS_ORIGINS: 'https://chat.example' });
});
afterAll(() => app?.close());

const post = (origin: string) =>
  fetch(`${app.url}/v1/chat`, { method: 'POST', headers: { origin, 'content-type': 'text/plain' }, body: JSON.stringify({ message: 'hi' }) });
const preflight = (origin: string) =>
  fetch(`${app.url}/v1/chat`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });

describe('Origin: null', () => {
  it('is refused a POST and gets no CORS grant, where a listed origin gets both', async () => {
    const refused = await post('null');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'origin_not_allowed', message: expect.stringMatching(/^POST from origin "null" refused/) } });
    const denied = await preflight('null');
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
    // The listed origin, for contrast: the same requests are allowed.
    expect((await preflight('https://chat.example')).headers.get('access-control-allow-origin')).toBe('https://chat.example');
    const allowed = await post('https://chat.example');
    expect(allowed.status).not.toBe(403);
    await allowed.body?.cancel();
  });

  it('cannot be listed: CORS_ORIGINS=null and CORS_ORIGINS=* refuse the start', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'null' })).toThrow(/CORS_ORIGINS="null": "null" is the origin of sandboxed iframes and file: pages/);
    expect(() => loadConfig({ CORS_ORIGINS: '*' })).toThrow(/CORS_ORIGINS="\*": a wildcard is not accepted/);
  });
});
