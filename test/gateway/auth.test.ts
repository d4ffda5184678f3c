// The gateway is never an open relay: off loopback a request needs a Supabase user token or one of
// GATEWAY_KEYS, and the upstream is called with the server's key unless forwarding the client's own
// is switched on.
import { afterEach, describe, expect, it } from 'vitest';
import { createJwtAuthenticator } from '../../src/http/auth/jwt.ts';
import { authFromEnv } from '../../src/http/auth/env.ts';
import { ASK, startGateway, type Gateway } from './harness.ts';
import { TEST_JWT_SECRET, userToken } from '../support/jwt.ts';

let gw: Gateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const KEY = 'gw-key-0123456789abcdef';
const jwtAuth = () => createJwtAuthenticator({ secret: TEST_JWT_SECRET });

async function ask(headers: Record<string, string>) {
  const res = await fetch(`${gw!.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'm', messages: ASK }),
  });
  return { status: res.status, body: (await res.json()) as { error?: { message: string; code: string; type: string } } };
}

describe('gateway auth', () => {
  it('with Supabase auth: no credential is a 401, a user token or a gateway key passes; the upstream sees the server key', async () => {
    gw = await startGateway(() => ({ text: 'ok' }), { GATEWAY_KEYS: KEY }, { auth: jwtAuth() });
    const none = await ask({});
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(none.body.error!.message).toMatch(/GATEWAY_KEYS/);
    expect((await ask({ authorization: 'Bearer sk-some-openai-key' })).status).toBe(401);
    expect((await ask({ authorization: `Bearer ${await userToken('user-1')}` })).status).toBe(200);
    expect((await ask({ authorization: `Bearer ${KEY}` })).status).toBe(200);
    expect(gw.upstream.requests).toHaveLength(2);
    expect(gw.upstream.authorizations).toEqual(['Bearer sk-upstream-secret', 'Bearer sk-upstream-secret']);
  });

  it('logs a user-token caller as that user', async () => {
    gw = await startGateway(() => ({ toolCalls: [{ name: 'get_weather', arguments: '{"city": "Oslo"}' }] }), {}, { auth: jwtAuth() });
    const res = await fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await userToken('user-42')}` },
      body: JSON.stringify({
        model: 'm',
        messages: ASK,
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      }),
    });
    expect(res.status).toBe(200);
    expect(gw.app.activity.calls.map((r) => r.user_id)).toEqual(['user-42']);
  });

  it('an edge deployment without auth settings refuses (503), unless the caller has a gateway key', async () => {
    const refuse = authFromEnv({}, { local: false }).auth;
    gw = await startGateway(() => ({ text: 'ok' }), {}, { auth: refuse });
    const res = await ask({ authorization: `Bearer ${KEY}` });
    expect(res.status).toBe(503);
    expect(res.body.error!.message).toMatch(/Authentication is not configured/);
    await gw.close();

    gw = await startGateway(() => ({ text: 'ok' }), { GATEWAY_KEYS: `other-key-0123456789,${KEY}` }, { auth: refuse });
    expect((await ask({ authorization: `Bearer ${KEY}` })).status).toBe(200);
    const wrong = await ask({ authorization: 'Bearer not-a-gateway-key-at-all' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error!.message).toBe('The bearer token is not one of GATEWAY_KEYS.');
    expect(gw.upstream.requests).toHaveLength(1);
  });

  it('forwards the client key only when GATEWAY_FORWARD_CLIENT_KEY is on; the gateway credential then moves to X-Rebound-Authorization', async () => {
    gw = await startGateway(() => ({ text: 'ok' }), { GATEWAY_FORWARD_CLIENT_KEY: 'true', GATEWAY_KEYS: KEY }, { auth: jwtAuth() });
    const noKey = await ask({ 'x-rebound-authorization': `Bearer ${KEY}` });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error!.message).toMatch(/send your upstream API key as "Authorization: Bearer <key>"/);
    expect((await ask({ authorization: 'Bearer sk-client-own' })).status).toBe(401);
    expect((await ask({ authorization: 'Bearer sk-client-own', 'x-rebound-authorization': `Bearer ${KEY}` })).status).toBe(200);
    expect(gw.upstream.authorizations).toEqual(['Bearer sk-client-own']);
  });

  it('local mode (loopback, no auth) needs no credential; the client key is not forwarded by default', async () => {
    gw = await startGateway(() => ({ text: 'ok' }));
    expect((await ask({ authorization: 'Bearer sk-client-own' })).status).toBe(200);
    expect(gw.upstream.authorizations).toEqual(['Bearer sk-upstream-secret']);
  });
});
