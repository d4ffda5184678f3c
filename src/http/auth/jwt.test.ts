import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { createJwtAuthenticator, AuthUnavailableError } from './jwt.ts';
import { authFromEnv, AuthConfigError, isLoopbackRequest } from './env.ts';
import { AuthError } from '../../auth-error.ts';
import { createApp } from '../app.ts';
import { loadConfig } from '../../config.ts';
import { createModel } from '../../model/index.ts';
import { createMemoryStorage } from '../../store/memory.ts';
import { MemoryActivityWriter } from '../../activity/memory-writer.ts';

const SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
const now = () => Math.floor(Date.now() / 1000);

let server: Server;
let baseUrl: string;
let jwksHits = 0;
let publishedKeys: JWK[] = [];
let jwksStatus = 200;
const issuer = () => `${baseUrl}/auth/v1`;

interface Signer {
  key: CryptoKey;
  kid: string;
  alg: string;
}
let es: Signer;
let rs: Signer;
let rotated: Signer;

async function signer(alg: 'ES256' | 'RS256', kid: string): Promise<{ signer: Signer; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { signer: { key: privateKey, kid, alg }, jwk };
}

function token(key: Signer | 'hs256', claims: Record<string, unknown> = {}, opts: { exp?: number; nbf?: number; secret?: string } = {}): Promise<string> {
  const jwt = new SignJWT({
    role: 'authenticated',
    sub: 'user-123',
    aud: 'authenticated',
    iss: issuer(),
    iat: now(),
    exp: opts.exp ?? now() + 3600,
    ...(opts.nbf ? { nbf: opts.nbf } : {}),
    ...claims,
  });
  if (key === 'hs256') return jwt.setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(opts.secret ?? SECRET));
  return jwt.setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.key);
}

/** The principal of token()'s user: a signed-in, non-anonymous Supabase user. */
const USER_123 = { userId: 'user-123', role: 'authenticated', anonymous: false };

const req = (bearer?: string) => new Request('https://example.test/v1/chat', { method: 'POST', headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  const a = await signer('ES256', 'es-1');
  const b = await signer('RS256', 'rs-1');
  const c = await signer('ES256', 'es-2-rotated');
  es = a.signer;
  rs = b.signer;
  rotated = c.signer;
  publishedKeys = [a.jwk, b.jwk];
  rotatedJwk = c.jwk;
  server = createServer((request, response) => {
    if (request.url === '/auth/v1/.well-known/jwks.json') {
      jwksHits++;
      response.writeHead(jwksStatus, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: publishedKeys }));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
let rotatedJwk: JWK;

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('createJwtAuthenticator', () => {
  const hs = () => createJwtAuthenticator({ secret: SECRET, issuer: issuer() });

  it('accepts a valid HS256 token and returns the user id', async () => {
    await expect(hs().authenticate(req(await token('hs256')))).resolves.toEqual(USER_123);
  });

  it("hands on the token's role and whether it is an anonymous sign-in (is_anonymous), which the gateway checks", async () => {
    await expect(hs().authenticate(req(await token('hs256', { is_anonymous: true })))).resolves.toEqual({ ...USER_123, anonymous: true });
    await expect(hs().authenticate(req(await token('hs256', { role: 'service_role' })))).resolves.toEqual({ ...USER_123, role: 'service_role' });
    await expect(hs().authenticate(req(await token('hs256', { role: undefined, is_anonymous: 'true' })))).resolves.toEqual({
      userId: 'user-123',
      anonymous: false,
    });
  });

  it('rejects a missing or non-bearer Authorization header', async () => {
    const missing = await rejection(hs().authenticate(req()));
    expect(missing).toBeInstanceOf(AuthError);
    expect(missing.message).toMatch(/Missing Authorization/);
    const basic = new Request('https://x.test', { headers: { authorization: 'Basic abc' } });
    expect((await rejection(hs().authenticate(basic))).message).toMatch(/Bearer/);
    expect((await rejection(hs().authenticate(req('not-a-jwt')))).message).toMatch(/Malformed token/);
  });

  it('rejects an expired token, saying so', async () => {
    const err = await rejection(hs().authenticate(req(await token('hs256', {}, { exp: now() - 60 }))));
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).status).toBe(401);
    expect(err.message).toMatch(/expired/i);
  });

  it('rejects a not-yet-valid token', async () => {
    const err = await rejection(hs().authenticate(req(await token('hs256', {}, { nbf: now() + 600 }))));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toMatch(/not yet valid/i);
  });

  it('rejects a forged token (signed with another secret)', async () => {
    const err = await rejection(hs().authenticate(req(await token('hs256', {}, { secret: 'another-secret-another-secret-another-secret' }))));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toMatch(/signature/i);
  });

  it('rejects a tampered payload', async () => {
    const [h, , s] = (await token('hs256')).split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ sub: 'admin', aud: 'authenticated', exp: now() + 999, iss: issuer() })).toString('base64url');
    const err = await rejection(hs().authenticate(req(`${h}.${forgedPayload}.${s}`)));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toMatch(/signature/i);
  });

  it('rejects the wrong audience (e.g. the anon key)', async () => {
    const err = await rejection(hs().authenticate(req(await token('hs256', { aud: 'anon' }))));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toMatch(/audience.*authenticated/i);
  });

  it('rejects the wrong issuer', async () => {
    const err = await rejection(hs().authenticate(req(await token('hs256', { iss: 'https://other.supabase.co/auth/v1' }))));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toMatch(/issuer/i);
    expect(err.message).toContain(issuer());
  });

  it('rejects an unsigned (alg none) token', async () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${enc({ alg: 'none' })}.${enc({ sub: 'x', aud: 'authenticated', exp: now() + 60, iss: issuer() })}.`;
    const err = await rejection(hs().authenticate(req(unsigned)));
    expect(err).toBeInstanceOf(AuthError);
  });

  it('rejects an HS256 token when only a JWKS is configured (no algorithm confusion)', async () => {
    const auth = createJwtAuthenticator({ jwksUrl: `${baseUrl}/auth/v1/.well-known/jwks.json`, issuer: issuer() });
    const err = await rejection(auth.authenticate(req(await token('hs256'))));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toMatch(/SUPABASE_JWT_SECRET/);
  });

  it('verifies ES256 and RS256 through the JWKS, fetched once and cached', async () => {
    const auth = createJwtAuthenticator({ jwksUrl: `${baseUrl}/auth/v1/.well-known/jwks.json`, issuer: issuer() });
    const before = jwksHits;
    for (let i = 0; i < 3; i++) {
      await expect(auth.authenticate(req(await token(es)))).resolves.toEqual(USER_123);
      await expect(auth.authenticate(req(await token(rs)))).resolves.toEqual(USER_123);
    }
    expect(jwksHits - before).toBe(1);
  });

  it('refetches the JWKS on an unknown kid (key rotation)', async () => {
    const auth = createJwtAuthenticator({ jwksUrl: `${baseUrl}/auth/v1/.well-known/jwks.json`, issuer: issuer(), jwksCooldownMs: 0 });
    await auth.authenticate(req(await token(es)));
    const unknown = await rejection(auth.authenticate(req(await token(rotated))));
    expect(unknown).toBeInstanceOf(AuthError);
    expect(unknown.message).toMatch(/kid/);
    const before = jwksHits;
    publishedKeys = [...publishedKeys, rotatedJwk];
    try {
      await expect(auth.authenticate(req(await token(rotated)))).resolves.toEqual(USER_123);
      expect(jwksHits - before).toBe(1);
    } finally {
      publishedKeys = publishedKeys.filter((k) => k.kid !== rotated.kid);
    }
  });

  it('rejects a token signed by a key that is not in the JWKS even with a known kid', async () => {
    const auth = createJwtAuthenticator({ jwksUrl: `${baseUrl}/auth/v1/.well-known/jwks.json`, issuer: issuer() });
    const impostor = { ...rotated, kid: es.kid };
    const err = await rejection(auth.authenticate(req(await token(impostor))));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toMatch(/signature/i);
  });

  it('reports an unreachable JWKS as a 503-style outage, not a 401', async () => {
    jwksStatus = 500;
    try {
      const auth = createJwtAuthenticator({ jwksUrl: `${baseUrl}/auth/v1/.well-known/jwks.json`, issuer: issuer() });
      const err = await rejection(auth.authenticate(req(await token(es))));
      expect(err).toBeInstanceOf(AuthUnavailableError);
      expect((err as AuthUnavailableError).status).toBe(503);
    } finally {
      jwksStatus = 200;
    }
  });
});

describe('authFromEnv', () => {
  /** A loopback server's local access, whose token must not even be made when JWT auth is configured. */
  const unusedLocal = {
    token: (): string => {
      throw new Error('the local token was asked for although JWT auth is configured');
    },
    where: 'nowhere',
  };

  it('uses JWT auth derived from SUPABASE_URL (JWKS + issuer)', async () => {
    const choice = authFromEnv({ SUPABASE_URL: `${baseUrl}/` }, { local: unusedLocal });
    expect(choice.mode).toBe('jwt');
    expect(choice.description).toContain(`${baseUrl}/auth/v1/.well-known/jwks.json`);
    await expect(choice.auth.authenticate(req(await token(es)))).resolves.toEqual(USER_123);
    const wrongIss = await rejection(choice.auth.authenticate(req(await token(es, { iss: 'https://evil/auth/v1' }))));
    expect(wrongIss.message).toMatch(/issuer/);
  });

  it('checks SUPABASE_JWKS (inline, as Supabase sets it) first without a fetch, and fetches from the URL only for a kid it lacks', async () => {
    const choice = authFromEnv({ SUPABASE_URL: baseUrl, SUPABASE_JWKS: JSON.stringify({ keys: [publishedKeys[0]] }) }, { local: false });
    expect(choice.mode).toBe('jwt');
    expect(choice.description).toContain('SUPABASE_JWKS (1 key(s))');
    const before = jwksHits;
    await expect(choice.auth.authenticate(req(await token(es)))).resolves.toEqual(USER_123);
    expect(jwksHits).toBe(before);
    // rs-1 is published at the URL but not inline: one fetch serves it.
    await expect(choice.auth.authenticate(req(await token(rs)))).resolves.toEqual(USER_123);
    expect(jwksHits).toBe(before + 1);
    // Inline alone (no URL): the key set is all there is.
    const alone = authFromEnv({ SUPABASE_JWKS: JSON.stringify([publishedKeys[0]]), REBOUND_JWT_ISSUER: issuer() }, { local: false });
    await expect(alone.auth.authenticate(req(await token(es)))).resolves.toEqual(USER_123);
    expect((await rejection(alone.auth.authenticate(req(await token(rs))))).message).toMatch(/No key in the project JWKS/);
  });

  it('takes SUPABASE_JWKS as a URL too, and refuses one that is neither JSON nor a URL without quoting it', async () => {
    const choice = authFromEnv({ SUPABASE_JWKS: `${baseUrl}/auth/v1/.well-known/jwks.json`, REBOUND_JWT_ISSUER: issuer() }, { local: false });
    expect(choice.description).toContain(`JWKS ${baseUrl}/auth/v1/.well-known/jwks.json`);
    await expect(choice.auth.authenticate(req(await token(rs)))).resolves.toEqual(USER_123);
    expect(() => authFromEnv({ SUPABASE_JWKS: '{keys: secret-ish' }, { local: false })).toThrow(/SUPABASE_JWKS: neither JSON .* nor an http\(s\) URL/);
    expect(() => authFromEnv({ SUPABASE_JWKS: '{"keys": [1]}' }, { local: false })).toThrow(/a JSON Web Key \(kty, …\) per entry/);
  });

  it('uses the HS256 secret when only SUPABASE_JWT_SECRET is set, even on a local server', async () => {
    const choice = authFromEnv({ SUPABASE_JWT_SECRET: SECRET }, { local: unusedLocal });
    expect(choice.mode).toBe('jwt');
    await expect(choice.auth.authenticate(req(await token('hs256')))).resolves.toEqual(USER_123);
    await expect(choice.auth.authenticate(req())).rejects.toBeInstanceOf(AuthError);
  });

  it('reads REBOUND_JWT_SECRET / REBOUND_JWT_ISSUER (Supabase reserves the SUPABASE_ prefix), before the SUPABASE_ spellings', async () => {
    const choice = authFromEnv(
      { REBOUND_JWT_SECRET: SECRET, SUPABASE_JWT_SECRET: 'another-secret-of-at-least-32-characters!!', REBOUND_JWT_ISSUER: issuer() },
      { local: false },
    );
    expect(choice.mode).toBe('jwt');
    expect(choice.description).toContain(`iss ${issuer()}`);
    await expect(choice.auth.authenticate(req(await token('hs256')))).resolves.toEqual(USER_123);
    const wrongIss = await rejection(choice.auth.authenticate(req(await token('hs256', { iss: 'https://evil/auth/v1' }))));
    expect(wrongIss.message).toMatch(/issuer/);
  });

  it('takes the local token on a local server without auth settings, never nothing (issue 35)', async () => {
    const token = 'a-local-token-of-at-least-32-characters';
    const choice = authFromEnv({ SUPABASE_JWT_SECRET: '' }, { local: { token: () => token, where: 'in the test' } });
    expect(choice.mode).toBe('local');
    expect(choice.localToken).toBe(token);
    await expect(choice.auth.authenticate(req(token))).resolves.toEqual({ userId: null });
    const missing = await rejection(choice.auth.authenticate(req()));
    expect(missing).toBeInstanceOf(AuthError);
    expect(missing.message).toMatch(/local access token/);
  });

  it('refuses with a 503 config error on a non-local server without auth settings', async () => {
    const choice = authFromEnv({}, { local: false });
    expect(choice.mode).toBe('refuse');
    const err = await rejection(choice.auth.authenticate(req()));
    expect(err).toBeInstanceOf(AuthConfigError);
    expect((err as AuthConfigError).status).toBe(503);
    expect(err.message).toMatch(/REBOUND_JWT_SECRET/);
  });

  it('decides per request when the runtime cannot know its bind address (wrangler dev)', async () => {
    const choice = authFromEnv({}, { local: isLoopbackRequest });
    await expect(choice.auth.authenticate(new Request('http://127.0.0.1:8787/v1/chat'))).resolves.toEqual({ userId: null });
    await expect(choice.auth.authenticate(new Request('http://localhost:8787/v1/chat'))).resolves.toEqual({ userId: null });
    await expect(choice.auth.authenticate(new Request('https://rebound.example.workers.dev/v1/chat'))).rejects.toBeInstanceOf(AuthConfigError);
  });
});

describe('through createApp', () => {
  const appWith = (auth: ReturnType<typeof authFromEnv>['auth']) => {
    const config = loadConfig({});
    return createApp({ config, model: createModel(config), storage: createMemoryStorage(), activity: new MemoryActivityWriter(), tools: [], auth });
  };
  const post = (headers: Record<string, string> = {}) =>
    new Request('https://rebound.example/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"message":"hi"}' });

  it('answers 503 JSON naming the missing settings when an edge deployment has no auth config', async () => {
    const res = await appWith(authFromEnv({}, { local: false }).auth).fetch(post());
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('auth_not_configured');
    expect(body.error.message).toMatch(/SUPABASE_URL.*REBOUND_JWT_SECRET/);
  });

  it('answers 401 JSON saying what is wrong with the token', async () => {
    const app = appWith(authFromEnv({ SUPABASE_JWT_SECRET: SECRET, SUPABASE_JWT_ISSUER: issuer() }, { local: false }).auth);
    const expired = await app.fetch(post({ authorization: `Bearer ${await token('hs256', {}, { exp: now() - 60 })}` }));
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { error: { message: string } }).error.message).toMatch(/expired/i);
  });
});
