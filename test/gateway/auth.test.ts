// The gateway is never an open relay: off loopback a request needs one of GATEWAY_KEYS or a Supabase
// user token of a kind GATEWAY_USERS admits (none by default; anonymous sign-ins only when named), and
// the upstream is called with the server's key unless forwarding the client's own is switched on.
import { afterEach, describe, expect, it } from 'vitest';
import { createJwtAuthenticator } from '../../src/http/auth/jwt.ts';
import { authFromEnv } from '../../src/http/auth/env.ts';
import { ASK, startGateway, type Gateway } from './harness.ts';
import { signJwt, TEST_JWT_SECRET, userToken } from '../support/jwt.ts';

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

async function models(headers: Record<string, string>) {
  const res = await fetch(`${gw!.baseURL}/models`, { headers });
  return { status: res.status, body: (await res.json()) as { error?: { message: string; code: string; type: string } } };
}

/** An anonymous sign-in's access token as Supabase Auth issues it: a user (aud and role authenticated) with is_anonymous. */
const anonymousSignIn = (sub: string) => signJwt({ role: 'authenticated', aud: 'authenticated', sub, iss: 'supabase', is_anonymous: true });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('gateway auth', () => {
  it('with Supabase auth: no credential is a 401, a user token or a gateway key passes; the upstream sees the server key', async () => {
    gw = await startGateway(() => ({ text: 'ok' }), { GATEWAY_KEYS: KEY, GATEWAY_USERS: 'authenticated' }, { auth: jwtAuth() });
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
    gw = await startGateway(
      () => ({ toolCalls: [{ name: 'get_weather', arguments: '{"city": "Oslo"}' }] }),
      { GATEWAY_USERS: 'authenticated' },
      { auth: jwtAuth() },
    );
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

  it("refuses a project's signed-in users by default (403 naming GATEWAY_USERS), on the chat completions and the model list; the upstream sees nothing", async () => {
    gw = await startGateway(() => ({ text: 'ok' }), {}, { auth: jwtAuth() });
    const user = bearer(await userToken('user-1'));
    for (const res of [await ask(user), await models(user)]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'gateway_user_not_allowed' });
      expect(res.body.error!.message).toMatch(/admits signed-in users with GATEWAY_USERS=authenticated/);
    }
    // A token that is not a user's access token (another role under aud authenticated) is no user either.
    const other = await ask(bearer(await signJwt({ role: 'service_role', aud: 'authenticated', sub: 'svc', iss: 'supabase' })));
    expect(other.status).toBe(403);
    expect(gw.upstream.requests).toHaveLength(0);
  });

  it('refuses an anonymous sign-in by default and with GATEWAY_USERS=authenticated; admits it only where GATEWAY_USERS names anonymous', async () => {
    const anonymous = bearer(await anonymousSignIn('anon-1'));
    for (const users of [undefined, 'authenticated']) {
      gw = await startGateway(() => ({ text: 'ok' }), users ? { GATEWAY_USERS: users } : {}, { auth: jwtAuth() });
      for (const res of [await ask(anonymous), await models(anonymous)]) {
        expect(res.status).toBe(403);
        expect(res.body.error!.code).toBe('gateway_user_not_allowed');
        expect(res.body.error!.message).toMatch(/does not serve anonymous sign-ins: the deployment admits them with GATEWAY_USERS=authenticated,anonymous/);
      }
      if (users) expect((await ask(bearer(await userToken('user-1')))).status).toBe(200);
      expect(gw.upstream.requests).toHaveLength(users ? 1 : 0);
      await gw.close();
    }
    gw = await startGateway(() => ({ text: 'ok' }), { GATEWAY_USERS: 'authenticated,anonymous' }, { auth: jwtAuth() });
    expect((await ask(anonymous)).status).toBe(200);
    // Past the gateway's auth: the upstream is asked for its list (the scripted one has none, its 404 passes through).
    expect((await models(anonymous)).status).toBe(404);
    expect(gw.upstream.requests).toHaveLength(1);
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
