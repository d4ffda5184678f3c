// Keys are what they claim to be, on the Node entry and the Deno entry (issue 35, findings 3 and 4 and
// the JWKS finding): a publishable key where the secret key goes, and the Supabase CLI's published JWT
// secret with a project that is not local, each refuse the start with one line naming the variable;
// on a running server (those two and workerd), a stream token signed with the right secret but an
// expiry of 999999999999 is refused, and a JWKS whose connection is refused answers 503
// auth_unavailable, not 500.
import { createHmac } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, starters, type RuntimeName, type RuntimeServer } from './servers.ts';

/** The entries that refuse to start: a Worker has no start to refuse (its first request builds the app). */
const RUNTIMES: RuntimeName[] = ['node', 'deno'];
const JWT_SECRET = 'runtime-keys-suite-jwt-secret-at-least-32-characters';
const TURN_SECRET = 'runtime-keys-suite-turn-token-secret-0123456789';
const ISSUER = 'https://abcdefghijklmnopqrst.supabase.co/auth/v1';
const PUBLISHABLE = 'sb_publishable_Ab3dEf6hIj9kLm2nOp5qRs_8tUvWxYz';
const USER = '5d1e9d44-0000-4000-8000-000000000035';

/** What a start that must be refused printed, once the process has exited: one line per problem under the heading, and nothing else (no stack). */
async function refusedStart(name: RuntimeName, vars: Record<string, string>): Promise<string[]> {
  const started = await starters[name](vars).then(
    async (server) => {
      await server.stop();
      return null;
    },
    (err: Error) => err.message,
  );
  if (started === null) throw new Error(`${name} started with ${Object.keys(vars).join(', ')}: it must refuse`);
  const [exited, heading, ...lines] = started.trim().split('\n');
  expect(exited).toBe(`${name} exited with 1 before answering /health:`);
  expect(heading).toBe('Invalid configuration:');
  return lines;
}

describe.each(RUNTIMES)('%s refuses to start', (name) => {
  it('with a publishable key as the secret key, in one line naming the variable', async () => {
    const log = await refusedStart(name, {
      SUPABASE_URL: 'https://abcdefghijklmnopqrst.supabase.co',
      SUPABASE_SECRET_KEYS: JSON.stringify({ default: PUBLISHABLE }),
    });
    expect(log).toEqual([
      expect.stringMatching(
        /^ {2}SUPABASE_SECRET_KEYS\.default: holds a publishable key \(sb_publishable_…\), which is public .*; set the project's secret key /,
      ),
    ]);
    expect(log[0]).not.toContain(PUBLISHABLE);
  }, 180_000);

  it("with the Supabase CLI's default JWT secret and a project that is not on this machine", async () => {
    const log = await refusedStart(name, {
      SUPABASE_URL: 'https://abcdefghijklmnopqrst.supabase.co',
      REBOUND_JWT_SECRET: 'super-secret-jwt-token-with-at-least-32-characters-long',
    });
    expect(log).toEqual([
      expect.stringMatching(
        /^ {2}REBOUND_JWT_SECRET: is the Supabase CLI's published default JWT secret, .*SUPABASE_URL is not one; set the project's own secret$/,
      ),
    ]);
  }, 180_000);
});

describe.each(['node', 'workerd', 'deno'] as const)('%s running with auth', (name) => {
  let server: RuntimeServer;
  let userToken: string;
  let es256Token: string;

  beforeAll(async () => {
    const refusedJwks = `http://127.0.0.1:${await freePort()}/auth/v1/.well-known/jwks.json`;
    server = await starters[name]({
      REBOUND_JWT_SECRET: JWT_SECRET,
      REBOUND_JWT_ISSUER: ISSUER,
      REBOUND_JWKS_URL: refusedJwks,
      TURN_TOKEN_SECRET: TURN_SECRET,
      STORAGE: 'memory',
    });
    const claims = { role: 'authenticated', aud: 'authenticated', iss: ISSUER, sub: USER };
    userToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const { privateKey } = await generateKeyPair('ES256');
    es256Token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'es-1', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  }, 180_000);
  afterAll(() => server?.stop());

  it('refuses a stream token signed with its secret whose expiry is 999999999999, and serves the one it issued', async () => {
    const created = await fetch(`${server.baseUrl}/v1/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
    const origin = new URL(server.baseUrl).origin;
    // Computed offline, as anyone holding the secret could (a publishable key set as the secret was one).
    const exp = 999_999_999_999;
    const sig = createHmac('sha256', TURN_SECRET).update(`rebound-turn-v1\n${turnId}\n${USER}\n${exp}`).digest('base64url');
    const forged = new URL(`${origin}${streamUrl}`);
    forged.searchParams.set('token', `${exp}.${sig}`);
    const refused = await fetch(forged);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/expires later than this server issues any: it was not issued here/);
    const genuine = await fetch(`${origin}${streamUrl}`);
    expect(genuine.status).toBe(200);
    expect(await genuine.text()).toContain('event: done');
  }, 60_000);

  it('answers 503 auth_unavailable, not 500, when the JWKS refuses the connection, every time', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.baseUrl}/v1/turns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${es256Token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { code: 'auth_unavailable', message: expect.stringMatching(/^Could not load the project JWKS/) } });
    }
  }, 60_000);
});
