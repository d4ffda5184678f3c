// A JWKS that fails (issue 35): a URL that hangs costs one timeout per backoff period, however many
// requests come, and every failure, a refused connection included, is a 503 auth_unavailable, never a
// 500. Real loopback servers: one that accepts connections and never answers, and a port nobody
// listens on. Counts of connections are asserted, never timings.
import { createServer, type Server, type Socket } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryActivityWriter } from '../../activity/memory-writer.ts';
import { loadConfig } from '../../config.ts';
import { createModel } from '../../model/index.ts';
import { createMemoryStorage } from '../../store/memory.ts';
import { freePort } from '../../../test/support/ports.ts';
import { createApp } from '../app.ts';
import type { Authenticator } from '../deps.ts';
import { authFromEnv } from './env.ts';
import { AuthUnavailableError, createJwtAuthenticator } from './jwt.ts';

let hanging: Server;
let hangingUrl: string;
let connections = 0;
const sockets = new Set<Socket>();
let refusedUrl: string;
let token: string;

beforeAll(async () => {
  hanging = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  const port = (hanging.address() as { port: number }).port;
  hangingUrl = `http://127.0.0.1:${port}`;
  refusedUrl = `http://127.0.0.1:${await freePort()}`;
  const { privateKey } = await generateKeyPair('ES256');
  token = await new SignJWT({ role: 'authenticated', aud: 'authenticated', sub: 'user-1', iss: `${hangingUrl}/auth/v1` })
    .setProtectedHeader({ alg: 'ES256', kid: 'es-1', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => hanging.close(() => resolve()));
});

const request = () => new Request('https://rebound.example/v1/chat', { method: 'POST', headers: { authorization: `Bearer ${token}` } });

async function outcome(auth: Authenticator): Promise<unknown> {
  return auth.authenticate(request()).then(
    () => 'accepted',
    (err: unknown) => err,
  );
}

describe('a JWKS that hangs', () => {
  it('costs one connection for many requests within a backoff period, each answered auth_unavailable', async () => {
    const auth = createJwtAuthenticator({
      jwksUrl: `${hangingUrl}/auth/v1/.well-known/jwks.json`,
      issuer: `${hangingUrl}/auth/v1`,
      jwksTimeoutMs: 300,
      jwksBackoff: { firstMs: 600_000, maxMs: 600_000 },
    });
    const before = connections;
    // Five at once share the first load; twenty after it fail at once, without a connection.
    const first = await Promise.all(Array.from({ length: 5 }, () => outcome(auth)));
    const after: unknown[] = [];
    for (let i = 0; i < 20; i++) after.push(await outcome(auth));
    for (const err of [...first, ...after]) {
      expect(err).toBeInstanceOf(AuthUnavailableError);
      expect(err).toMatchObject({ status: 503, code: 'auth_unavailable' });
    }
    expect((first[0] as Error).message).toMatch(/^Could not load the project JWKS to verify the token: the JWKS did not answer in time/);
    expect((after[0] as Error).message).toMatch(/1 failure\(s\) in a row, tried again in \d+ s$/);
    expect(connections - before).toBe(1);
  });
});

describe('a JWKS whose connection is refused', () => {
  const config = loadConfig({});
  const app = (auth: Authenticator) =>
    createApp({ config, model: createModel(config), storage: createMemoryStorage(), activity: new MemoryActivityWriter(), tools: [], auth });

  it('is answered 503 auth_unavailable, JSON saying so, not 500', async () => {
    const { auth } = authFromEnv(
      { REBOUND_JWKS_URL: `${refusedUrl}/auth/v1/.well-known/jwks.json`, REBOUND_JWT_ISSUER: `${hangingUrl}/auth/v1` },
      { local: false },
    );
    const res = await app(auth).fetch(
      new Request('https://rebound.example/v1/chat', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"message":"hi"}',
      }),
    );
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({
      code: 'auth_unavailable',
      message: expect.stringMatching(/^Could not load the project JWKS to verify the token: the JWKS could not be reached/),
    });
  });
});
