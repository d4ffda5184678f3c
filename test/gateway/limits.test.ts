// The gateway's limits per caller (GATEWAY_RPM, GATEWAY_TOKENS_PER_DAY) as clients meet them: counted in
// the store, here PGlite shared by two apps as two processes would share Postgres (the Supabase stack:
// test/data/supabase-stack.test.ts), each user and each gateway key apart; past a limit a 429 with
// Retry-After and an OpenAI-shaped body, before the upstream is asked; a store that cannot answer is a
// 503, never a request served without limits.
import type { PGlite } from '@electric-sql/pglite';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { createJwtAuthenticator } from '../../src/http/auth/jwt.ts';
import type { AppDeps } from '../../src/http/deps.ts';
import { createMemoryStorage } from '../../src/store/memory.ts';
import { createPgliteStorage, openPglite } from '../../src/store/pglite.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { TEST_JWT_SECRET, userToken } from '../support/jwt.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { ASK } from './harness.ts';
import { awayFromWindowEdge } from '../data/storage-contract.ts';

let db: PGlite;
let upstream: ScriptedServer | undefined;
let apps: TestApp[] = [];

beforeAll(async () => {
  db = await openPglite(undefined, readMigrations());
});
afterAll(async () => {
  await db?.close();
});
afterEach(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await upstream?.close();
  apps = [];
  upstream = undefined;
});

const KEY = 'gw-key-0123456789abcdef';

/** Two apps on the one PGlite database, Supabase users admitted, with these limits. */
async function start(env: Record<string, string>, overrides: Partial<AppDeps> = {}): Promise<[TestApp, TestApp]> {
  upstream = await startScriptedOpenAI(() => ({ text: 'ok' }));
  const common = { OPENAI_API_KEY: 'sk-upstream-secret', OPENAI_BASE_URL: upstream.url, GATEWAY_USERS: 'authenticated', GATEWAY_KEYS: KEY, ...env };
  const deps = { auth: createJwtAuthenticator({ secret: TEST_JWT_SECRET }), storage: createPgliteStorage(db), ...overrides };
  apps = [await startApp(common, deps), await startApp(common, { ...deps, storage: overrides.storage ?? createPgliteStorage(db) })];
  return apps as [TestApp, TestApp];
}

async function ask(app: TestApp, bearer: string, stream = false) {
  const res = await fetch(`${app.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ model: 'm', messages: ASK, stream }),
  });
  const text = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: stream && res.ok ? text : (JSON.parse(text) as { error?: Record<string, unknown> }),
  };
}

describe('gateway limits', () => {
  it('GATEWAY_RPM: a user past it gets 429 with Retry-After on either app; another user and a gateway key count apart', async () => {
    await awayFromWindowEdge();
    const [one, two] = await start({ GATEWAY_RPM: '2' });
    const alice = await userToken(`alice-${crypto.randomUUID()}`);
    expect((await ask(one, alice)).status).toBe(200);
    expect((await ask(two, alice)).status).toBe(200);
    const refused = await ask(one, alice);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      error: {
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        param: null,
        status: 429,
        message: `Rate limit reached: 2 requests a minute (GATEWAY_RPM, per caller). Try again in ${refused.retryAfter} s.`,
      },
    });
    expect((await ask(two, alice)).status).toBe(429);
    expect(upstream!.requests).toHaveLength(2);

    const bob = await userToken(`bob-${crypto.randomUUID()}`);
    expect((await ask(two, bob)).status).toBe(200);
    // The key's count is its own (stored under its hash, never the key).
    expect([await ask(one, KEY), await ask(two, KEY), await ask(one, KEY)].map((r) => r.status)).toEqual([200, 200, 429]);
    const { rows } = await db.query<{ subject: string }>(`select subject from agent_gateway_usage where subject like 'key:%'`);
    expect(rows.map((r) => r.subject)).toEqual([expect.stringMatching(/^key:[0-9a-f]{32}$/)]);
    expect(JSON.stringify(rows)).not.toContain(KEY);
  });

  it('through the openai package: a RateLimitError once the limit is reached', async () => {
    await awayFromWindowEdge();
    const [one] = await start({ GATEWAY_RPM: '1' });
    const client = new OpenAI({ apiKey: await userToken(`carol-${crypto.randomUUID()}`), baseURL: `${one.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: 'm', messages: ASK });
    const refused = await client.chat.completions.create({ model: 'm', messages: ASK }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it("holds on every protocol the gateway speaks, with Retry-After in each one's error shape: Messages (Anthropic), Responses", async () => {
    await awayFromWindowEdge();
    const [one] = await start({ GATEWAY_RPM: '1' });
    const frank = await userToken(`frank-${crypto.randomUUID()}`);
    const post = (path: string, body: unknown) =>
      fetch(`${one.url}/v1/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${frank}` },
        body: JSON.stringify(body),
      });
    const messages = { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
    expect((await post('messages', messages)).status).toBe(200);
    const refused = await post('messages', messages);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const responses = await post('responses', { model: 'm', input: 'hi' });
    expect(responses.status).toBe(429);
    expect(Number(responses.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(upstream!.requests).toHaveLength(1);
  });

  it("GATEWAY_TOKENS_PER_DAY: the upstream's usage is counted, streamed or not; the request that crosses the limit is served, the next one is a 429 until 00:00 UTC", async () => {
    const [one, two] = await start({ GATEWAY_TOKENS_PER_DAY: '200' });
    const dave = await userToken(`dave-${crypto.randomUUID()}`);
    // The scripted upstream reports 100 prompt + 20 completion tokens an answer.
    expect((await ask(one, dave)).status).toBe(200);
    const streamed = await ask(two, dave, true);
    expect(streamed.status).toBe(200);
    expect(streamed.body).toContain('"total_tokens":120');
    const refused = await ask(one, dave);
    expect(refused.status).toBe(429);
    const untilMidnight = Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000);
    expect(Math.abs(Number(refused.retryAfter) - untilMidnight)).toBeLessThanOrEqual(5);
    expect((refused.body as { error: { message: string } }).error.message).toMatch(
      /^Token budget reached: 240 tokens used today of 200 \(GATEWAY_TOKENS_PER_DAY, per caller\)\. It starts again at 00:00 UTC, in \d+ s\.$/,
    );
    expect(upstream!.requests).toHaveLength(2);
  });

  it('a store that cannot count refuses the request (503 limits_unavailable), and the upstream is not asked', async () => {
    const storage = createMemoryStorage();
    const broken = {
      ...storage,
      meters: {
        add: async () => {
          throw new Error('connection refused');
        },
      },
    };
    const [one] = await start({ GATEWAY_RPM: '100' }, { storage: broken });
    const res = await ask(one, await userToken('erin'));
    expect(res.status).toBe(503);
    expect((res.body as { error: Record<string, unknown> }).error).toMatchObject({ code: 'limits_unavailable', type: 'service_unavailable_error' });
    expect((res.body as { error: { message: string } }).error.message).toMatch(
      /could not check its limits, so it does not serve this request: the store did not answer \(connection refused\)/,
    );
    expect(upstream!.requests).toHaveLength(0);
  });

  it('a deployment without shared storage refuses a limited gateway with what is missing', async () => {
    const [one] = await start({ GATEWAY_RPM: '100' }, { storage: createMemoryStorage(), storageMissing: 'set SUPABASE_URL and the secret key' });
    const res = await ask(one, KEY);
    expect(res.status).toBe(503);
    expect((res.body as { error: { message: string } }).error.message).toBe(
      'GATEWAY_RPM and GATEWAY_TOKENS_PER_DAY are counted in the store, and this deployment has none: set SUPABASE_URL and the secret key',
    );
    expect(upstream!.requests).toHaveLength(0);
  });
});
