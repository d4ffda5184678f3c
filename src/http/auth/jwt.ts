// Supabase user JWTs, verified inside the function (the platform gateway cannot: EventSource sends no
// Authorization header, so verify_jwt is off and this is the only check). Legacy projects sign with
// the HS256 JWT secret; projects on signing keys use ES256/RS256 published in the project's JWKS.
// The verification itself (jose, the JWKS sets, the errors explained) is jwt-verify.ts, loaded with
// import() on the first request that carries a bearer token: on Workers it stays out of the startup
// script (scripts/build-worker.ts), and a server whose callers use gateway keys never evaluates it.
import type { JSONWebKeySet } from 'jose';
import { AuthError } from '../../auth-error.ts';
import type { Authenticator, Principal } from '../deps.ts';
import { ApiError } from '../errors.ts';
import type { JwksBackoffOptions } from './jwks-backoff.ts';

export interface JwtAuthOptions {
  /** The project's legacy JWT secret (HS256), used as raw UTF-8 bytes as GoTrue does. */
  secret?: string;
  /** Where the asymmetric signing keys are published. */
  jwksUrl?: string;
  /** The signing keys themselves (Supabase's SUPABASE_JWKS): tried first, no fetch; jwksUrl then serves kids it lacks (a rotation since). */
  jwks?: JSONWebKeySet;
  /** Expected `iss`; not checked when absent. */
  issuer?: string;
  /** Expected `aud`. */
  audience?: string;
  /** Seconds of clock skew tolerated on exp/nbf/iat. */
  clockToleranceS?: number;
  /** Minimum time between two JWKS refetches triggered by unknown kids (jose's cooldown). */
  jwksCooldownMs?: number;
  /** How long a fetched JWKS is trusted before it is refetched anyway. */
  jwksMaxAgeMs?: number;
  /** How long a JWKS fetch may take before it counts as failed (5 s). */
  jwksTimeoutMs?: number;
  /** After a failed JWKS fetch, how long loads fail at once without a connection (jwks-backoff.ts): 5 s, doubling to 30 s. */
  jwksBackoff?: Pick<JwksBackoffOptions, 'firstMs' | 'maxMs'>;
}

/** The JWKS could not be fetched: a server-side outage, not the caller's fault, so a 503, not a 401. */
export class AuthUnavailableError extends ApiError {
  constructor(message: string, options?: ErrorOptions) {
    super(503, 'auth_unavailable', message, options);
    this.name = 'AuthUnavailableError';
  }
}

export function createJwtAuthenticator(options: JwtAuthOptions): Authenticator {
  if (!options.secret && !options.jwksUrl && !options.jwks) throw new Error('createJwtAuthenticator needs a secret, a JWKS or a JWKS URL');
  // A JWKS URL that is not one fails here, when the app is built, as before the verifier was loaded lazily.
  if (options.jwksUrl) new URL(options.jwksUrl);
  // One verifier for the app's life: its JWKS cache, cooldown and backoff are kept between requests.
  let verifier: Promise<(token: string) => Promise<Principal>> | undefined;
  return {
    async authenticate(request: Request): Promise<Principal> {
      const token = bearer(request);
      verifier ??= import('./jwt-verify.ts').then((m) => m.jwtVerifier(options));
      return (await verifier)(token);
    },
  };
}

function bearer(request: Request): string {
  const header = request.headers.get('authorization');
  if (!header) throw new AuthError('Missing Authorization header: send "Authorization: Bearer <Supabase access token>"');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new AuthError('Authorization header must be "Bearer <Supabase access token>"');
  return match[1];
}
