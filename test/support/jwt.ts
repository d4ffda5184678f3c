// HS256 JWTs the way Supabase issues them: role claim for PostgREST, sub for auth.uid().
import { exportJWK, generateKeyPair, type JSONWebKeySet, SignJWT } from 'jose';

export const TEST_JWT_SECRET = 'rebound-test-secret-with-at-least-32-characters';

export async function signJwt(claims: Record<string, unknown>, secret = TEST_JWT_SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(secret));
}

export const anonKey = (secret?: string) => signJwt({ role: 'anon', iss: 'supabase' }, secret);
export const serviceKey = (secret?: string) => signJwt({ role: 'service_role', iss: 'supabase' }, secret);
export const userToken = (sub: string, secret?: string) => signJwt({ role: 'authenticated', sub, aud: 'authenticated', iss: 'supabase' }, secret);

/**
 * A project on asymmetric signing keys, as new Supabase projects are: user tokens signed ES256, the
 * public key published as a JWKS (SUPABASE_JWKS, …/auth/v1/.well-known/jwks.json). `postgrestJwks` is
 * what PostgREST gets as its JWT secret: that public key plus the HS256 secret the gateway signs role
 * tokens with, as Supabase configures it.
 */
export async function signingKeys(secret = TEST_JWT_SECRET) {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = 'rebound-test-es256';
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const jwks: JSONWebKeySet = { keys: [jwk] };
  const oct = { kty: 'oct', k: Buffer.from(secret).toString('base64url'), alg: 'HS256' };
  return {
    jwks,
    postgrestJwks: JSON.stringify({ keys: [jwk, oct] }),
    /** A user's access token, as Supabase Auth issues it under `issuer` (SUPABASE_URL/auth/v1); `claims` adds to it (`is_anonymous: true`: an anonymous sign-in's). */
    userToken: (sub: string, issuer: string, claims: Record<string, unknown> = {}) =>
      new SignJWT({ role: 'authenticated', aud: 'authenticated', iss: issuer, sub, ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid })
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
  };
}
