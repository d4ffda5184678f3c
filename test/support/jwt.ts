// HS256 JWTs the way Supabase issues them: role claim for PostgREST, sub for auth.uid().
import { SignJWT } from 'jose';

export const TEST_JWT_SECRET = 'rebound-test-secret-with-at-least-32-characters';

export async function signJwt(claims: Record<string, unknown>, secret = TEST_JWT_SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(secret));
}

export const anonKey = (secret?: string) => signJwt({ role: 'anon', iss: 'supabase' }, secret);
export const serviceKey = (secret?: string) => signJwt({ role: 'service_role', iss: 'supabase' }, secret);
export const userToken = (sub: string, secret?: string) => signJwt({ role: 'authenticated', sub, aud: 'authenticated', iss: 'supabase' }, secret);
