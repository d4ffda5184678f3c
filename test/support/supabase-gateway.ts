// A stand-in for Supabase's API gateway in front of the test's PostgREST, for the one thing plain
// PostgREST cannot do: Supabase's new API keys. sb_secret_… and sb_publishable_… keys are opaque
// strings, not JWTs, so PostgREST cannot verify them; on the platform the gateway takes the key from the
// `apikey` header and, when the request carries no Authorization, puts the key's role JWT there
// (service_role for a secret key, anon for a publishable one). A user's JWT in Authorization passes as
// it is. A new key sent as a bearer token is refused, as the platform's docs say it must not be sent
// (supabase.com/docs/guides/functions/auth-headers), so a client that does is caught here.
// It also serves the project's JWKS at /auth/v1/.well-known/jwks.json, and counts what it forwarded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONWebKeySet } from 'jose';
import { signJwt } from './jwt.ts';

export interface GatewayOptions {
  /** PostgREST's root URL: Supabase serves it under /rest/v1. */
  restUrl: string;
  secretKey: string;
  publishableKey: string;
  /** What /auth/v1/.well-known/jwks.json serves (the public signing keys). */
  jwks: JSONWebKeySet;
  /** Signs the role JWTs PostgREST gets (its PGRST_JWT_SECRET); default: the test secret. */
  jwtSecret?: string;
}

export interface GatewayRequest {
  method: string;
  path: string;
  /** Which key the request came with: the kind of key, never its value. */
  key: 'secret' | 'publishable';
  /** Whether it carried its own bearer token (a user's JWT). */
  userToken: boolean;
  status: number;
}

export interface SupabaseGateway {
  url: string;
  /** Every request forwarded to PostgREST, in order (refused ones too, with their status). */
  requests: GatewayRequest[];
  close(): Promise<void>;
}

/** Test keys in the platform's shapes. */
export const TEST_SECRET_KEY = 'sb_secret_rebound-test-0000000000000000';
export const TEST_PUBLISHABLE_KEY = 'sb_publishable_rebound-test-000000000000';

const HOP = ['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'];

export async function startSupabaseGateway(options: GatewayOptions): Promise<SupabaseGateway> {
  const roles = {
    secret: await signJwt({ role: 'service_role', iss: 'supabase' }, options.jwtSecret),
    publishable: await signJwt({ role: 'anon', iss: 'supabase' }, options.jwtSecret),
  };
  const requests: GatewayRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const path = req.url ?? '/';
    const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'GET' && path === '/auth/v1/.well-known/jwks.json') return answer(200, options.jwks);
    if (!path.startsWith('/rest/v1')) return answer(404, { message: `no route ${path} in the test gateway` });

    const apikey = header(req.headers.apikey);
    const key = apikey === options.secretKey ? 'secret' : apikey === options.publishableKey ? 'publishable' : undefined;
    const authorization = header(req.headers.authorization);
    const entry = { method: req.method ?? 'GET', path, key: key ?? 'publishable', userToken: authorization !== undefined, status: 401 } as GatewayRequest;
    if (!key) {
      requests.push(entry);
      return answer(401, { message: apikey ? 'Invalid API key' : 'No API key found in request', hint: 'send a sb_secret_… or sb_publishable_… key as apikey' });
    }
    if (authorization && /^Bearer\s+sb_/i.test(authorization)) {
      requests.push(entry);
      return answer(401, { message: 'An API key was sent as a bearer token: send it in the apikey header only' });
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string' && !HOP.includes(e[0]) && e[0] !== 'apikey'),
    );
    headers.authorization = authorization ?? `Bearer ${roles[key]}`;
    try {
      const upstream = await fetch(`${options.restUrl}${path.replace(/^\/rest\/v1/, '')}`, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      requests.push({ ...entry, status: upstream.status });
      const out = Object.fromEntries([...upstream.headers].filter(([k]) => !['content-encoding', ...HOP].includes(k)));
      res.writeHead(upstream.status, out).end(body);
    } catch (err) {
      requests.push({ ...entry, status: 502 });
      res.writeHead(502).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
