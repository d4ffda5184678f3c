// Who may use the gateway (POST /v1/chat/completions, GET /v1/models). It forwards to a paid upstream
// with the server's key, so it must never be an open relay: a request is let through with one of the keys
// in GATEWAY_KEYS, or with whatever the app's authenticator accepts — a Supabase user token where
// auth is configured, anyone only in local mode (a server bound to loopback, behind the host guard),
// nobody on an edge deployment without auth settings (503, unless it has gateway keys).
//
// The credential is the usual `Authorization: Bearer …`. With GATEWAY_FORWARD_CLIENT_KEY (off by
// default) that header is the client's own upstream key, passed on instead of OPENAI_API_KEY, and the
// gateway credential, where one is needed, moves to `X-Rebound-Authorization: Bearer …`.
//
// gatewayAuth is the gateway's middleware, as middleware.ts is the other /v1 routes': it runs
// before the body is read and leaves the caller in `c.get('caller')`.
import { createMiddleware } from 'hono/factory';
import { AuthConfigError } from './env.ts';
import { bearerValue, sameSecret } from './bearer.ts';
import { AuthError } from '../../auth-error.ts';
import type { Authenticator } from '../deps.ts';

export const GATEWAY_AUTH_HEADER = 'x-rebound-authorization';

export interface GatewayAuthOptions {
  keys: readonly string[];
  forwardClientKey: boolean;
  auth: Authenticator;
  /** OPENAI_API_KEY. */
  serverKey: string | undefined;
}

export interface GatewayCaller {
  userId: string | null;
  /** The key the upstream is called with. */
  upstreamKey: string | undefined;
}

/** The context variables of the gateway route. */
export interface GatewayAuthEnv {
  Variables: { caller: GatewayCaller };
}

export function gatewayAuth(options: GatewayAuthOptions) {
  return createMiddleware<GatewayAuthEnv>(async function gatewayAuth(c, next) {
    c.set('caller', await authenticateGateway(c.req.raw, options));
    await next();
  });
}

async function authenticateGateway(request: Request, options: GatewayAuthOptions): Promise<GatewayCaller> {
  const authorization = request.headers.get('authorization');
  const separate = request.headers.get(GATEWAY_AUTH_HEADER);
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
  if (token !== undefined && options.keys.some((key) => sameSecret(key, token))) return { userId: null, upstreamKey };

  // Anything else is for the app's authenticator, which reads the Authorization header.
  const headers = new Headers(request.headers);
  if (credential) headers.set('authorization', credential);
  else headers.delete('authorization');
  try {
    const principal = await options.auth.authenticate(new Request(request.url, { method: 'GET', headers }));
    return { userId: principal.userId, upstreamKey };
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
}
