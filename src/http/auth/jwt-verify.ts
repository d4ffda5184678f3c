// The JWT verification itself, loaded with import() by jwt.ts on the first request with a bearer token
// (so jose stays out of the Worker's startup script): HS256 with the legacy secret, the asymmetric
// algorithms against the project's JWKS (SUPABASE_JWKS first, then the JWKS URL, fetched lazily,
// cached, refetched on an unknown kid after the cooldown, backed off after a failure), and jose's
// errors turned into a 401 that says what is wrong with the token, or a 503 when the JWKS is unreachable.
import { createLocalJWKSet, createRemoteJWKSet, customFetch, decodeProtectedHeader, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { AuthError } from '../../auth-error.ts';
import type { Principal } from '../deps.ts';
import { JwksUnavailableError, jwksBackoffFetch } from './jwks-backoff.ts';
import { AuthUnavailableError, type JwtAuthOptions } from './jwt.ts';

const ASYMMETRIC = ['ES256', 'RS256', 'EdDSA', 'ES384', 'RS384', 'PS256'];

/** Verifies a bearer token (what createJwtAuthenticator has taken from the request) as `options` say: its principal, or an AuthError / AuthUnavailableError that says what is wrong. */
export function jwtVerifier(options: JwtAuthOptions): (token: string) => Promise<Principal> {
  const { secret, jwksUrl, issuer } = options;
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

  return async (token) => {
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
          throw new AuthError(`Token is signed with ${alg ?? 'no algorithm'} but no JWKS is configured (set SUPABASE_URL, SUPABASE_JWKS or REBOUND_JWKS_URL)`);
        ({ payload } = await jwtVerify(token, jwks, { ...verifyOptions, algorithms: ASYMMETRIC }));
      }
    } catch (err) {
      throw explain(err, { audience, issuer, alg });
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new AuthError('Token has no subject (sub): not a user token');
    return { userId: payload.sub, role: typeof payload.role === 'string' ? payload.role : undefined, anonymous: payload.is_anonymous === true };
  };
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
