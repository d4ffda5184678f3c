// Which authenticator a runtime gets, from its env. The rule: verify Supabase JWTs whenever any
// Supabase auth setting is present; where the entry is local (a loopback bind address), take its local
// access token (local-token.ts), never nothing: a proxy on the machine makes every stranger loopback;
// otherwise refuse every authenticated route with a 503 that names the missing settings — an edge
// deployment that forgot its secrets must not serve the open internet.
import type { JSONWebKeySet } from 'jose';
import { ConfigError } from '../../config.ts';
import { authSources, isLoopbackHost } from '../../config-keys.ts';
import { noAuth, type Authenticator } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { createJwtAuthenticator } from './jwt.ts';
import { localTokenAuth, type LocalAccess } from './local-token.ts';

export { isLoopbackHost };

export type AuthMode = 'jwt' | 'local' | 'refuse';

export interface AuthChoice {
  auth: Authenticator;
  mode: AuthMode;
  /** One line for the startup log: what is verified, or why nothing is. */
  description: string;
  /** Local mode's token, for the start banner's chat URL (mode 'local' only). */
  localToken?: string;
}

export interface AuthEnvOptions {
  /**
   * Whether the caller is known to be local. For servers that know their bind address (Node, plain
   * Deno): false off loopback, or on loopback the local token's source; a per-request test for
   * runtimes that do not (wrangler dev).
   */
  local: false | LocalAccess | ((request: Request) => boolean);
  /** Overrides for tests (JWKS refetch cooldown). */
  jwksCooldownMs?: number;
}

/** Refusal because the deployment lacks auth settings: the operator's mistake, hence 503, not 401. */
export class AuthConfigError extends ApiError {
  constructor(message: string) {
    super(503, 'auth_not_configured', message);
    this.name = 'AuthConfigError';
  }
}

const MISSING =
  'Authentication is not configured: set SUPABASE_URL (JWKS), SUPABASE_JWKS or REBOUND_JWT_SECRET (HS256) on this deployment. ' +
  'Unauthenticated access is only allowed on a server bound to loopback.';

export function authFromEnv(env: Record<string, string | undefined>, options: AuthEnvOptions): AuthChoice {
  // One reading of the settings, the one loadConfig checked (src/config-keys.ts): a token source without an issuer never gets here.
  const sources = authSources(env);
  const secret = sources.secret?.value;
  const jwksUrl = sources.jwksUrl?.value;
  const issuer = sources.issuer?.value;
  // SUPABASE_JWKS: the key set itself, which Supabase sets in every Edge Function (a deployer may set it,
  // or a URL to it, on a Worker). Checked first, so a token costs no fetch; the URL serves newer kids.
  const jwks = sources.jwks ? parseJwks(sources.jwks.value) : undefined;

  if (secret || jwksUrl || jwks) {
    const auth = createJwtAuthenticator({ secret, jwksUrl, jwks, issuer, jwksCooldownMs: options.jwksCooldownMs });
    const keys = [secret && 'HS256 secret', jwks && `SUPABASE_JWKS (${jwks.keys.length} key(s))`, jwksUrl && `JWKS ${jwksUrl}`].filter(Boolean).join(' + ');
    return { auth, mode: 'jwt', description: `auth: Supabase JWT (${keys}; aud authenticated; iss ${issuer ?? 'not checked'})` };
  }

  const { local } = options;
  if (typeof local === 'object') {
    const localToken = local.token();
    return {
      auth: localTokenAuth(localToken, local.where),
      mode: 'local',
      description: `auth: local access token (no Supabase auth configured, bound to loopback): every /v1 route takes it as the bearer; it is ${local.where}`,
      localToken,
    };
  }
  const refuse: Authenticator = {
    async authenticate() {
      throw new AuthConfigError(MISSING);
    },
  };
  if (local === false) return { auth: refuse, mode: 'refuse', description: `auth: REFUSING authenticated routes — ${MISSING}` };

  return {
    auth: { authenticate: async (request) => (local(request) ? noAuth.authenticate(request) : refuse.authenticate(request)) },
    mode: 'refuse',
    description: 'auth: none configured — open to loopback requests only (local dev), every other request refused with 503',
  };
}

/** SUPABASE_JWKS as Supabase sets it, `{"keys":[…]}`, or a bare array of keys. */
function parseJwks(text: string): JSONWebKeySet {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('Invalid configuration:\n  SUPABASE_JWKS: neither JSON ({"keys":[…]}, as Supabase sets it) nor an http(s) URL of a JWKS');
  }
  const keys = Array.isArray(json) ? json : (json as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'object' || k === null || typeof (k as { kty?: unknown }).kty !== 'string')) {
    throw new ConfigError('Invalid configuration:\n  SUPABASE_JWKS: must be {"keys":[…]} with a JSON Web Key (kty, …) per entry');
  }
  return { keys: keys as JSONWebKeySet['keys'] };
}

/** True when the request was addressed to a loopback host: only `wrangler dev` can see that, since the edge routes by public hostname. */
export function isLoopbackRequest(request: Request): boolean {
  return isLoopbackHost(new URL(request.url).hostname);
}
