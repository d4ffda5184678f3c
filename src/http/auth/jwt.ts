// Supabase user JWTs, verified inside the function (the platform gateway cannot: EventSource sends no
// Authorization header, so verify_jwt is off and this is the only check). Legacy projects sign with
// the HS256 JWT secret; projects on signing keys use ES256/RS256 published in the project's JWKS.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { AuthError } from '../../auth-error.ts';
import type { Authenticator, Principal } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { JwksUnavailableError, jwksBackoffFetch, type JwksBackoffOptions } from './jwks-backoff.ts';

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

const ASYMMETRIC = ['ES256', 'RS256', 'EdDSA', 'ES384', 'RS384', 'PS256'];

export function createJwtAuthenticator(options: JwtAuthOptions): Authenticator {
  const { secret, jwksUrl, issuer } = options;
  if (!secret && !jwksUrl && !options.jwks) throw new Error('createJwtAuthenticator needs a secret, a JWKS or a JWKS URL');
  const audience = options.audience ?? 'authenticated';
  const secretKey = secret ? new TextEncoder().encode(secret) : undefined;
  // Fetched lazily on the first asymmetric token, cached, and refetched when a token names an
  // unknown kid (key rotation) once the cooldown has passed.
  const remote = jwksUrl
    ? createRemoteJWKSet(new URL(jwksUrl), {
        cooldownDuration: options.jwksCooldownMs ?? 30_000,
        cacheMaxAge: options.jwksMaxAgeMs ?? 600_000,
        timeoutDuration: options.jwksTimeoutMs ?? 5_000,
        [customFetch]: jwksBackoffFetch(options.jwksBackoff ?? { firstMs: 5_000, maxMs: 30_000 }).fetch,
      })
    : undefined;
  const local = options.jwks ? createLocalJWKSet(options.jwks) : undefined;
  const jwks: JWTVerifyGetKey | undefined =
    local && remote
      ? async (header, token) => {
          try {
            return await local(header, token);
          } catch (err) {
            if (err instanceof errors.JWKSNoMatchingKey) return remote(header, token);
            throw err;
          }
        }
      : (local ?? remote);
  const verifyOptions = { audience, issuer, clockTolerance: options.clockToleranceS ?? 5, requiredClaims: ['exp', 'sub'] };

  return {
    async authenticate(request: Request): Promise<Principal> {
      const token = bearer(request);
      let alg: string | undefined;
      try {
        alg = decodeProtectedHeader(token).alg;
      } catch (err) {
        throw new AuthError('Malformed token: the Authorization bearer value is not a JWT (header.payload.signature)', { cause: err });
      }
      let payload: JWTPayload;
      try {
        if (alg === 'HS256') {
          if (!secretKey)
            throw new AuthError('Token is signed with HS256 but no HS256 secret (REBOUND_JWT_SECRET or SUPABASE_JWT_SECRET) is configured on this server');
          ({ payload } = await jwtVerify(token, secretKey, { ...verifyOptions, algorithms: ['HS256'] }));
        } else {
          if (!jwks)
            throw new AuthError(
              `Token is signed with ${alg ?? 'no algorithm'} but no JWKS is configured (set SUPABASE_URL, SUPABASE_JWKS or REBOUND_JWKS_URL)`,
            );
          ({ payload } = await jwtVerify(token, jwks, { ...verifyOptions, algorithms: ASYMMETRIC }));
        }
      } catch (err) {
        throw explain(err, { audience, issuer, alg });
      }
      if (typeof payload.sub !== 'string' || payload.sub === '') throw new AuthError('Token has no subject (sub): not a user token');
      return { userId: payload.sub, role: typeof payload.role === 'string' ? payload.role : undefined, anonymous: payload.is_anonymous === true };
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

/** Turns jose's errors into a 401 that says what is wrong with the token. */
function explain(err: unknown, ctx: { audience: string; issuer?: string; alg?: string }): Error {
  if (err instanceof AuthError) return err;
  if (err instanceof errors.JWTExpired) {
    const exp = typeof err.payload.exp === 'number' ? ` at ${new Date(err.payload.exp * 1000).toISOString()}` : '';
    return new AuthError(`Token expired${exp}: sign in again or refresh the session`, { cause: err });
  }
  if (err instanceof errors.JWTClaimValidationFailed) {
    const p = err.payload;
    switch (err.claim) {
      case 'nbf':
        return new AuthError(`Token not yet valid (nbf ${typeof p.nbf === 'number' ? new Date(p.nbf * 1000).toISOString() : '?'}): check the clock`, {
          cause: err,
        });
      case 'iat':
        return new AuthError('Token issued in the future (iat): check the clock', { cause: err });
      case 'aud':
        return new AuthError(`Wrong audience: expected "${ctx.audience}", got ${JSON.stringify(p.aud ?? null)} (anon/service keys are not user tokens)`, {
          cause: err,
        });
      case 'iss':
        return new AuthError(`Wrong issuer: expected "${ctx.issuer}", got ${JSON.stringify(p.iss ?? null)} (token from another project?)`, { cause: err });
      default:
        return new AuthError(`Token claim "${err.claim}" invalid: ${err.reason}`, { cause: err });
    }
  }
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new AuthError('Invalid signature: the token is forged or signed with another key', { cause: err });
  if (err instanceof errors.JWKSNoMatchingKey)
    return new AuthError('No key in the project JWKS matches this token (unknown kid): token from another project or a revoked key', { cause: err });
  if (err instanceof errors.JOSEAlgNotAllowed) return new AuthError(`Algorithm ${ctx.alg ?? '?'} is not accepted`, { cause: err });
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) return new AuthError(`Malformed token: ${err.message}`, { cause: err });
  if (err instanceof JwksUnavailableError)
    return new AuthUnavailableError(`Could not load the project JWKS to verify the token: ${err.message}`, { cause: err });
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || err instanceof TypeError) {
    return new AuthUnavailableError(`Could not load the project JWKS to verify the token: ${(err as Error).message}`, { cause: err });
  }
  if (err instanceof errors.JOSEError) {
    // A JWKS answering non-200 surfaces as a generic JOSEError; everything else is the token's fault.
    if (/JWKS|response/i.test(err.message)) return new AuthUnavailableError(`Could not load the project JWKS: ${err.message}`, { cause: err });
    return new AuthError(`Invalid token: ${err.message}`, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}
