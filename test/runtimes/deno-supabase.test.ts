// The Supabase Edge Function's entry under Deno, configured only as Supabase now configures a function
// on its new API keys: SUPABASE_URL, SUPABASE_SECRET_KEYS and SUPABASE_PUBLISHABLE_KEYS (JSON
// dictionaries whose `default` entry is used) and SUPABASE_JWKS, nothing legacy and no
// TURN_TOKEN_SECRET. SUPABASE_URL is the key-exchanging gateway stand-in in front of PostgreSQL 17 and
// PostgREST (test/support/supabase-gateway.ts). Two instances share the project, as two isolates do: a
// stream token issued by one verifies on the other (both key it from the secret key), and the turn lands
// in Postgres; the dashboard reads it with the publishable key and the user's token. A third instance
// with auth but no storage settings refuses the turn routes with 503 and still lists the tools.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { signingKeys } from '../support/jwt.ts';
import { migrate, startPostgres, type PostgresCluster } from '../support/postgres.ts';
import { startPostgrest, type PostgrestServer } from '../support/postgrest.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { startSupabaseGateway, TEST_PUBLISHABLE_KEY, TEST_SECRET_KEY, type SupabaseGateway } from '../support/supabase-gateway.ts';
import { startDeno, type RuntimeServer } from './servers.ts';
import { readSse } from './sse-client.ts';
import { awayFromWindowEdge } from '../data/storage-contract.ts';

const ALICE = 'a11ce000-0000-4000-8000-00000000d0e0';
const ANSWER = 'Stored in Postgres through the gateway.';

let pg: PostgresCluster;
let rest: PostgrestServer;
let gateway: SupabaseGateway;
let model: ScriptedServer;
let first: RuntimeServer;
let second: RuntimeServer;
let bare: RuntimeServer;
let token: string;
let anonymousToken: string;

beforeAll(async () => {
  [pg, model] = await Promise.all([startPostgres(), startScriptedOpenAI(() => ({ text: ANSWER, delayMs: 10 }))]);
  await migrate(pg.url, readMigrations());
  const keys = await signingKeys();
  rest = await startPostgrest({ dbUri: pg.authenticatorUrl, jwtSecret: keys.postgrestJwks });
  gateway = await startSupabaseGateway({ restUrl: rest.url, secretKey: TEST_SECRET_KEY, publishableKey: TEST_PUBLISHABLE_KEY, jwks: keys.jwks });
  token = await keys.userToken(ALICE, `${gateway.url}/auth/v1`);
  anonymousToken = await keys.userToken(crypto.randomUUID(), `${gateway.url}/auth/v1`, { is_anonymous: true });
  const common = {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-scripted',
    MODEL: 'scripted-model',
    MODEL_RETRIES: '0',
    SUPABASE_JWKS: JSON.stringify(keys.jwks),
  };
  const project = {
    ...common,
    SUPABASE_URL: gateway.url,
    SUPABASE_SECRET_KEYS: JSON.stringify({ default: TEST_SECRET_KEY }),
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: TEST_PUBLISHABLE_KEY }),
  };
  // The JWKS alone turns auth on; with no URL or key, there is no storage to use.
  // The second admits anonymous sign-ins to the gateway, one request a minute each; the first, as deployed by default, no user.
  [first, second, bare] = await Promise.all([
    startDeno(project),
    startDeno({ ...project, GATEWAY_USERS: 'authenticated,anonymous', GATEWAY_RPM: '1' }),
    startDeno({ ...common, REBOUND_JWT_ISSUER: `${gateway.url}/auth/v1` }),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([first, second, bare].map((s) => s?.stop()));
  await gateway?.close();
  await model?.close();
  await rest?.stop();
  await pg?.stop();
});

const headers = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

describe('Deno (the Supabase entry) on the new API keys, through the gateway stand-in', () => {
  it('says where its data lives', async () => {
    expect(await (await fetch(`${first.baseUrl}/health`)).json()).toMatchObject({ ok: true, storage: 'supabase' });
    expect(await (await fetch(`${bare.baseUrl}/health`)).json()).toMatchObject({ ok: true, storage: 'none' });
    expect(first.log()).toMatch(/data: Supabase \(http:\/\/127\.0\.0\.1:\d+, key from SUPABASE_SECRET_KEYS\.default\)/);
  });

  it('a turn created on one instance streams from another with its token, and lands in Postgres', async () => {
    const created = await fetch(`${first.baseUrl}/v1/turns`, { method: 'POST', headers: headers(), body: JSON.stringify({ message: 'store this' }) });
    expect(created.status, await created.clone().text()).toBe(201);
    const { turnId, sessionId, streamUrl } = (await created.json()) as { turnId: string; sessionId: string; streamUrl: string };
    // The other isolate: same secret key, so the same stream-token key.
    const t = await readSse(`${second.baseUrl}${streamUrl.replace(/^\/rebound/, '')}`, {}, { timeoutMs: 20_000 });
    expect(t.status).toBe(200);
    expect(t.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    const deadline = Date.now() + 10_000;
    let row: { status: string } | undefined;
    while (Date.now() < deadline && row?.status !== 'finished') {
      row = (await pg.sql`select status from agent_turns where id = ${turnId}`)[0] as { status: string } | undefined;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(row).toEqual({ status: 'finished' });
    const history = await (await fetch(`${second.baseUrl}/v1/sessions/${sessionId}/messages`, { headers: headers() })).json();
    expect(history.messages.at(-1)).toEqual({ role: 'assistant', content: ANSWER });
  }, 30_000);

  it('the dashboard reads with the publishable key and the user token; storage with the secret key; nothing refused', async () => {
    const res = await fetch(`${first.baseUrl}/v1/dashboard`, { headers: headers() });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(gateway.requests.filter((r) => r.status >= 400)).toEqual([]);
    const kinds = new Set(gateway.requests.map((r) => `${r.key}${r.userToken ? ' + user token' : ''}`));
    expect(kinds).toEqual(new Set(['secret', 'publishable + user token']));
  }, 20_000);

  it("the gateway refuses the project's users by default, an anonymous sign-in's token too; where GATEWAY_USERS names it, a second request in the minute is a 429 counted in Postgres", async () => {
    const asked = model.requests.length;
    const ask = (server: RuntimeServer, bearer: string) =>
      fetch(`${server.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
    for (const bearer of [anonymousToken, token]) {
      for (const res of [await ask(first, bearer), await fetch(`${first.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${bearer}` } })]) {
        expect(res.status).toBe(403);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('gateway_user_not_allowed');
      }
    }
    expect(model.requests.length).toBe(asked);

    await awayFromWindowEdge();
    const admitted = await ask(second, anonymousToken);
    expect(admitted.status, await admitted.clone().text()).toBe(200);
    const limited = await ask(second, anonymousToken);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(model.requests.length).toBe(asked + 1);
    const [row] = await pg.sql`select amount from agent_gateway_usage where kind = 'requests' and subject like 'user:%'`;
    expect(Number(row?.amount)).toBe(1);
  }, 20_000);

  it('with auth but no storage settings: the turn routes answer 503 saying what is missing; /v1/tools still answers', async () => {
    const res = await fetch(`${bare.baseUrl}/v1/chat`, { method: 'POST', headers: headers(), body: JSON.stringify({ message: 'hi' }) });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('storage_not_configured');
    expect(body.error.message).toMatch(/SUPABASE_URL and a secret key missing/);
    expect((await fetch(`${bare.baseUrl}/v1/tools`, { headers: headers() })).status).toBe(200);
  }, 20_000);
});
