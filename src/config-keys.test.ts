import { describe, expect, it } from 'vitest';
import { CLI_DEFAULT_JWT_SECRET, keyProblems } from './config-keys.ts';
import { ConfigError, loadConfig } from './config.ts';

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
/** A legacy API key as Supabase made them: an HS256 JWT whose role says what it is (the signature is not checked here). */
const legacyKey = (role: string) =>
  `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: 'supabase', ref: 'abcdefghijklmnopqrst', role, iat: 1, exp: 2e9 })}.${'s'.repeat(43)}`;
const PUBLISHABLE = 'sb_publishable_Ab3dEf6hIj9kLm2nOp5qRs_8tUvWxYz';
const SECRET_KEY = 'sb_secret_Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2c';
const PROJECT = 'https://abcdefghijklmnopqrst.supabase.co';
const LOCAL = 'http://127.0.0.1:54321';

/** loadConfig's refusal: the ConfigError's problem lines (without the "Invalid configuration:" heading). */
function refusal(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const [heading, ...lines] = (err as Error).message.split('\n');
    expect(heading).toBe('Invalid configuration:');
    return lines.map((l) => l.trim());
  }
  throw new Error(`expected ${JSON.stringify(Object.keys(env))} to refuse the start`);
}

describe('keys that are not what their variable says (issue 35, finding 3)', () => {
  it.each([
    ['SUPABASE_SECRET_KEYS', JSON.stringify({ default: PUBLISHABLE }), 'SUPABASE_SECRET_KEYS.default'],
    ['SUPABASE_SECRET_KEY', PUBLISHABLE, 'SUPABASE_SECRET_KEY'],
    ['SUPABASE_SERVICE_ROLE_KEY', PUBLISHABLE, 'SUPABASE_SERVICE_ROLE_KEY'],
    ['TURN_TOKEN_SECRET', PUBLISHABLE, 'TURN_TOKEN_SECRET'],
  ])('refuses a publishable key in %s, in one line naming it and never quoting the key', (variable, value, named) => {
    const lines = refusal({ SUPABASE_URL: PROJECT, [variable]: value });
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^${named.replace('.', '\\.')}: holds a publishable key \\(sb_publishable_…\\), which is public`)),
    ]);
    expect(lines[0]).not.toContain(PUBLISHABLE);
  });

  it.each([
    ['SUPABASE_SERVICE_ROLE_KEY', 'SUPABASE_SERVICE_ROLE_KEY'],
    ['SUPABASE_SECRET_KEY', 'SUPABASE_SECRET_KEY'],
    ['TURN_TOKEN_SECRET', 'TURN_TOKEN_SECRET'],
  ])('refuses an anon-role JWT in %s', (variable, named) => {
    expect(refusal({ SUPABASE_URL: PROJECT, [variable]: legacyKey('anon') })).toEqual([
      expect.stringMatching(new RegExp(`^${named}: holds an anon key \\(a JWT whose role is anon\\)`)),
    ]);
  });

  it('refuses a secret that is the publishable key itself, whatever its form, and a user token as the service key', () => {
    expect(
      refusal({ SUPABASE_URL: PROJECT, SUPABASE_PUBLISHABLE_KEY: 'opaque-key-0123456789abcdef', SUPABASE_SECRET_KEY: 'opaque-key-0123456789abcdef' }),
    ).toEqual([expect.stringMatching(/^SUPABASE_SECRET_KEY: holds the same key as SUPABASE_PUBLISHABLE_KEY, which is public/)]);
    expect(refusal({ SUPABASE_URL: PROJECT, SUPABASE_SERVICE_ROLE_KEY: legacyKey('authenticated') })).toEqual([
      expect.stringMatching(/^SUPABASE_SERVICE_ROLE_KEY: holds a JWT whose role is not service_role/),
    ]);
  });

  it('refuses an API key where the JWT secret is expected, and a secret key where the publishable one is (it is handed to browsers)', () => {
    expect(refusal({ SUPABASE_URL: PROJECT, REBOUND_JWT_SECRET: legacyKey('service_role') })).toEqual([
      expect.stringMatching(/^REBOUND_JWT_SECRET: holds a JWT or an API key, not the secret that signs the project's JWTs/),
    ]);
    expect(refusal({ SUPABASE_URL: PROJECT, SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: SECRET_KEY }) })).toEqual([
      expect.stringMatching(/^SUPABASE_PUBLISHABLE_KEYS\.default: holds a secret key \(sb_secret_…\), and this one is handed to browsers/),
    ]);
    expect(refusal({ SUPABASE_URL: PROJECT, SUPABASE_ANON_KEY: legacyKey('service_role') })).toEqual([
      expect.stringMatching(/^SUPABASE_ANON_KEY: holds a secret key \(a JWT whose role is service_role\)/),
    ]);
  });

  it('accepts the keys Supabase sets for an Edge Function, new and legacy side by side', () => {
    const env = {
      SUPABASE_URL: PROJECT,
      SUPABASE_SECRET_KEYS: JSON.stringify({ default: SECRET_KEY }),
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: PUBLISHABLE }),
      SUPABASE_SERVICE_ROLE_KEY: legacyKey('service_role'),
      SUPABASE_ANON_KEY: legacyKey('anon'),
      SUPABASE_JWKS: JSON.stringify({ keys: [] }),
    };
    expect(keyProblems(env)).toEqual([]);
    expect(() => loadConfig(env)).not.toThrow();
  });
});

describe("the Supabase CLI's published JWT secret (issue 35, finding 4)", () => {
  it('is refused with a project that is not on this machine, or with no SUPABASE_URL', () => {
    expect(refusal({ SUPABASE_URL: PROJECT, SUPABASE_JWT_SECRET: CLI_DEFAULT_JWT_SECRET })).toEqual([
      expect.stringMatching(
        /^SUPABASE_JWT_SECRET: is the Supabase CLI's published default JWT secret, .* SUPABASE_URL is not one; set the project's own secret$/,
      ),
    ]);
    expect(refusal({ REBOUND_JWT_SECRET: CLI_DEFAULT_JWT_SECRET, REBOUND_JWT_ISSUER: 'http://127.0.0.1:54321/auth/v1' })).toEqual([
      expect.stringMatching(/^REBOUND_JWT_SECRET: is the Supabase CLI's published default JWT secret, .*SUPABASE_URL is unset/),
    ]);
    expect(refusal({ SUPABASE_URL: 'http://192.168.1.20:54321', TURN_TOKEN_SECRET: CLI_DEFAULT_JWT_SECRET })[0]).toMatch(
      /^TURN_TOKEN_SECRET: is the Supabase CLI's/,
    );
  });

  it.each([LOCAL, 'http://localhost:54321/', 'http://[::1]:54321'])('is accepted with a local stack (SUPABASE_URL=%s)', (url) => {
    expect(keyProblems({ SUPABASE_URL: url, SUPABASE_JWT_SECRET: CLI_DEFAULT_JWT_SECRET })).toEqual([]);
  });
});

describe('settings that contradict each other', () => {
  it.each([
    [
      { SUPABASE_SECRET_KEYS: JSON.stringify({ default: SECRET_KEY }), SUPABASE_SECRET_KEY: `${SECRET_KEY}x` },
      'SUPABASE_SECRET_KEYS.default and SUPABASE_SECRET_KEY',
    ],
    [
      { SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: PUBLISHABLE }), SUPABASE_PUBLISHABLE_KEY: `${PUBLISHABLE}x` },
      'SUPABASE_PUBLISHABLE_KEYS.default and SUPABASE_PUBLISHABLE_KEY',
    ],
    [
      { REBOUND_JWT_SECRET: 'one-secret-of-at-least-32-characters!!', SUPABASE_JWT_SECRET: 'another-secret-of-at-least-32-characters' },
      'REBOUND_JWT_SECRET and SUPABASE_JWT_SECRET',
    ],
    [{ REBOUND_JWT_ISSUER: `${PROJECT}/auth/v1`, SUPABASE_JWT_ISSUER: 'https://other.supabase.co/auth/v1' }, 'REBOUND_JWT_ISSUER and SUPABASE_JWT_ISSUER'],
    [
      { REBOUND_JWKS_URL: `${PROJECT}/auth/v1/.well-known/jwks.json`, SUPABASE_JWKS: 'https://other.supabase.co/auth/v1/.well-known/jwks.json' },
      'REBOUND_JWKS_URL and SUPABASE_JWKS',
    ],
  ])('refuses the start naming both when they differ (%#)', (env, both) => {
    expect(refusal({ SUPABASE_URL: PROJECT, ...env })).toEqual([
      expect.stringMatching(new RegExp(`^${both.replace('.', '\\.')}: both set, and they differ; set one of them`)),
    ]);
  });

  it('accepts both spellings when they agree', () => {
    expect(
      keyProblems({
        SUPABASE_URL: PROJECT,
        REBOUND_JWT_SECRET: 'same-secret-of-at-least-32-characters!',
        SUPABASE_JWT_SECRET: 'same-secret-of-at-least-32-characters!',
      }),
    ).toEqual([]);
    expect(keyProblems({ SUPABASE_URL: PROJECT, SUPABASE_SECRET_KEYS: JSON.stringify({ default: SECRET_KEY }), SUPABASE_SECRET_KEY: SECRET_KEY })).toEqual([]);
  });
});

describe('the issuer is always checked', () => {
  it.each([
    [{ REBOUND_JWT_SECRET: 'project-secret-of-at-least-32-characters' }, 'REBOUND_JWT_SECRET'],
    [{ SUPABASE_JWKS: JSON.stringify({ keys: [] }) }, 'SUPABASE_JWKS'],
    [{ REBOUND_JWKS_URL: `${PROJECT}/auth/v1/.well-known/jwks.json` }, 'REBOUND_JWKS_URL'],
  ])('refuses a token source without SUPABASE_URL or REBOUND_JWT_ISSUER (%#)', (env, source) => {
    expect(refusal(env)).toEqual([
      expect.stringMatching(new RegExp(`^${source}: user tokens would be verified without checking their issuer; set SUPABASE_URL .* or REBOUND_JWT_ISSUER$`)),
    ]);
  });

  it('takes the issuer from SUPABASE_URL or REBOUND_JWT_ISSUER', () => {
    expect(keyProblems({ REBOUND_JWT_SECRET: 'project-secret-of-at-least-32-characters', SUPABASE_URL: PROJECT })).toEqual([]);
    expect(keyProblems({ SUPABASE_JWKS: JSON.stringify({ keys: [] }), REBOUND_JWT_ISSUER: `${PROJECT}/auth/v1` })).toEqual([]);
  });

  it('lists every problem at once, each on its line', () => {
    const lines = refusal({ SUPABASE_SECRET_KEY: PUBLISHABLE, REBOUND_JWT_SECRET: CLI_DEFAULT_JWT_SECRET, PORT: 'eighty' });
    expect(lines).toEqual([
      expect.stringMatching(/^PORT="eighty"/),
      expect.stringMatching(/^SUPABASE_SECRET_KEY: holds a publishable key/),
      expect.stringMatching(/^REBOUND_JWT_SECRET: is the Supabase CLI's published default JWT secret/),
      expect.stringMatching(/^REBOUND_JWT_SECRET: user tokens would be verified without checking their issuer/),
    ]);
  });
});
