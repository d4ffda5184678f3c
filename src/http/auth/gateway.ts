// Who may use the gateway (POST /v1/chat/completions, GET /v1/models). It forwards to a paid upstream
// with the server's key, so it must never be an open relay: a request is let through with one of the keys
// in GATEWAY_KEYS, or with whatever the app's authenticator accepts — a Supabase user token where
// auth is configured and GATEWAY_USERS admits that kind of user (none by default: a project's every
// user, anonymous sign-ins included, would otherwise spend the owner's key), anyone only in local mode
// (a server bound to loopback, behind the host guard), nobody on an edge deployment without auth
// settings (503, unless it has gateway keys).
//
// The credential is the usual `Authorization: Bearer …`, or `x-api-key: …` as Anthropic's clients send
// it (POST /v1/messages). With GATEWAY_FORWARD_CLIENT_KEY (off by
// default) that header is the client's own upstream key, passed on instead of OPENAI_API_KEY, and the
// gateway credential, where one is needed, moves to `X-Rebound-Authorization: Bearer …`.
//
// gatewayAuth makes the gateway's check, as middleware.ts is the other /v1 routes': each gateway route
// calls it first, before the body is read, and gets the caller. A call, not a middleware of its own:
// a step of Hono's chain (and the compose around each step of a sub-app with its own error handler)
// was a few µs of every request's first byte (docs/benchmarks.md § The streaming paths at the physical limit).
import type { Context } from 'hono';
import { AuthConfigError } from './env.ts';
import { bearerValue, sameSecret } from './bearer.ts';
import { AuthError } from '../../auth-error.ts';
import type { GatewayUser } from '../../config.ts';
import type { Authenticator, Principal } from '../deps.ts';
import { ApiError } from '../errors.ts';

export const GATEWAY_AUTH_HEADER = 'x-rebound-authorization';

export interface GatewayAuthOptions {
  keys: readonly string[];
  forwardClientKey: boolean;
  auth: Authenticator;
  /** OPENAI_API_KEY. */
  serverKey: string | undefined;
  /** GATEWAY_USERS: the Supabase users admitted with their own token. */
  users: readonly GatewayUser[];
}

export interface GatewayCaller {
  userId: string | null;
  /**
   * Who the limits count against (src/gateway/limits.ts): `key:<hash>` for a gateway key (a SHA-256
   * prefix, never the key), `user:<id>` for a Supabase user, `local` for local mode.
   */
  subject: string;
  /** The key the upstream is called with. */
  upstreamKey: string | undefined;
}

/** The gateway's check of a request: its caller, or a refusal thrown (AuthError, AuthConfigError, ApiError). */
export type GatewayAuth = (c: Context) => Promise<GatewayCaller>;

export function gatewayAuth(options: GatewayAuthOptions): GatewayAuth {
  // Each gateway key's hash is taken once: a SHA-256 on the runtime's crypto is ~25 µs of every request, and a thread-pool hop on Node.
  const hashes = new Map<string, Promise<string>>();
  const subjectOf = (key: string) => {
    let hash = hashes.get(key);
    if (!hash) {
      hash = keyHash(key);
      hashes.set(key, hash);
    }
    return hash;
  };
  return (c) => authenticateGateway(c.req.raw, options, subjectOf);
}

async function authenticateGateway(request: Request, options: GatewayAuthOptions, subjectOf: (key: string) => Promise<string>): Promise<GatewayCaller> {
  const { headers } = request;
  const sent = headers.get('authorization');
  // Anthropic's clients send their key as x-api-key: the same credential as a bearer token.
  const apiKey = sent === null ? headers.get('x-api-key') : null;
  const authorization = sent ?? (apiKey ? `Bearer ${apiKey}` : null);
  const separate = headers.get(GATEWAY_AUTH_HEADER);
  let upstreamKey = options.serverKey;
  if (options.forwardClientKey) {
    upstreamKey = bearerValue(authorization);
    if (!upstreamKey) {
      throw new AuthError(
        `GATEWAY_FORWARD_CLIENT_KEY is on: send your upstream API key as "Authorization: Bearer <key>", and the gateway credential (where one is needed) as "X-Rebound-Authorization: Bearer <token>".`,
      );
    }
  }
  const credential = options.forwardClientKey ? separate : (separate ?? authorization);
  const token = bearerValue(credential);
  const key = token === undefined ? undefined : options.keys.find((k) => sameSecret(k, token));
  if (key !== undefined) return { userId: null, subject: `key:${await subjectOf(key)}`, upstreamKey };

  // Anything else is for the app's authenticator, which reads the Authorization header.
  let principal: Principal;
  try {
    principal = await options.auth.authenticate(withAuthorization(request, sent, credential));
  } catch (err) {
    if (options.keys.length === 0) throw err;
    if (err instanceof AuthConfigError) {
      throw new AuthError(
        token === undefined ? 'Missing credentials: send "Authorization: Bearer <one of GATEWAY_KEYS>".' : 'The bearer token is not one of GATEWAY_KEYS.',
        { cause: err },
      );
    }
    if (err instanceof AuthError)
      throw new AuthError(`${err.message} (the gateway also accepts one of GATEWAY_KEYS as the bearer token)`, { status: err.status, cause: err });
    throw err;
  }
  if (principal.userId === null) return { userId: null, subject: 'local', upstreamKey };
  admitUser(principal, options.users);
  return { userId: principal.userId, subject: `user:${principal.userId}`, upstreamKey };
}

/**
 * The request as the authenticator reads it: with `credential` as its Authorization header. Where that is
 * the one it was `sent` with (a bearer token, or none), the request itself: a copy of its headers and a new
 * Request were ~0.1 ms of every gateway request's first byte (docs/benchmarks.md § The streaming paths at
 * the physical limit). Its body is left unread either way.
 */
function withAuthorization(request: Request, sent: string | null, credential: string | null): Request {
  if (credential === sent) return request;
  const headers = new Headers(request.headers);
  if (credential) headers.set('authorization', credential);
  else headers.delete('authorization');
  return new Request(request.url, { method: 'GET', headers });
}

/** A Supabase user passes only where GATEWAY_USERS names their kind; the refusal says which setting admits them. */
function admitUser(principal: Principal, users: readonly GatewayUser[]): void {
  if (principal.role !== 'authenticated') {
    throw new ApiError(
      403,
      'gateway_user_not_allowed',
      `The gateway serves user access tokens (role "authenticated") only; this token's role is ${JSON.stringify(principal.role ?? null)}. Use one of GATEWAY_KEYS.`,
    );
  }
  const kind: GatewayUser = principal.anonymous ? 'anonymous' : 'authenticated';
  if (users.includes(kind)) return;
  const message =
    kind === 'anonymous'
      ? `This gateway does not serve anonymous sign-ins: the deployment admits them with GATEWAY_USERS=authenticated,anonymous${users.length ? '' : ' (it admits no Supabase user now)'}. Sign in with an account, or use one of GATEWAY_KEYS.`
      : 'This gateway does not serve Supabase user tokens: the deployment admits signed-in users with GATEWAY_USERS=authenticated. Use one of GATEWAY_KEYS.';
  throw new ApiError(403, 'gateway_user_not_allowed', message);
}

/** The first 16 bytes of the key's SHA-256, in hex: a key's limits are counted under it, so the store never holds a key. */
async function keyHash(key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
  return Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
}
