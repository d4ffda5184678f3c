// Keys are what they claim to be (issue 35; docs/configuration.md § Keys). The settings that hold keys
// and secrets, and those that say where user tokens come from, are checked once at start as pure
// functions of the env, and each mistake refuses the start in one line that names the variables, never
// a value:
//   - a publishable key (sb_publishable_…) or an anon JWT where a secret is expected: it is public, so
//     whatever it signs (stream tokens, approval signatures) anyone can sign too;
//   - a secret key where a publishable one is expected: that one is handed to browsers;
//   - the Supabase CLI's published JWT secret for anything but a local stack (SUPABASE_URL on loopback);
//   - two settings for one thing that disagree (SUPABASE_SECRET_KEYS and SUPABASE_SECRET_KEY, …);
//   - a source of user tokens (JWT secret, JWKS) without an issuer to check their `iss` against.
// authSources is how src/http/auth/env.ts reads the same settings, so what is checked is what is used.

type Env = Record<string, string | undefined>;

/** The JWT secret every `supabase start` uses, published in the CLI's source and docs: anyone can sign with it. */
export const CLI_DEFAULT_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';

/** A setting's value and the variable it came from (named in the startup line and in refusals). */
export interface Setting {
  value: string;
  name: string;
}

/** Where user tokens are verified from, as the env says (src/http/auth/env.ts builds the authenticator from it). */
export interface AuthSources {
  /** SUPABASE_URL without a trailing slash. */
  supabaseUrl?: string;
  /** The legacy HS256 JWT secret. */
  secret?: Setting;
  /** SUPABASE_JWKS when it holds the key set itself (JSON), as Supabase sets it. */
  jwks?: Setting;
  /** Where the signing keys are published: REBOUND_JWKS_URL, SUPABASE_JWKS as a URL, or SUPABASE_URL's. */
  jwksUrl?: Setting;
  /** The `iss` tokens must carry: REBOUND_JWT_ISSUER, or SUPABASE_URL/auth/v1. */
  issuer?: Setting;
}

const get = (env: Env, name: string) => env[name]?.trim() || undefined;

/**
 * REBOUND_<name>, else SUPABASE_<name>. Supabase reserves the SUPABASE_ prefix for the secrets it sets
 * itself (its CLI skips such names in .env files), so a deployer sets REBOUND_* there; the SUPABASE_*
 * spellings are read too, for Workers and Node, where any name can be set.
 */
function either(env: Env, name: string): Setting | undefined {
  for (const variable of [`REBOUND_${name}`, `SUPABASE_${name}`]) {
    const value = get(env, variable);
    if (value) return { value, name: variable };
  }
  return undefined;
}

export function authSources(env: Env): AuthSources {
  const supabaseUrl = get(env, 'SUPABASE_URL')?.replace(/\/+$/, '');
  const jwksSetting = get(env, 'SUPABASE_JWKS');
  const jwksIsUrl = jwksSetting !== undefined && /^https?:\/\//i.test(jwksSetting);
  return {
    ...(supabaseUrl ? { supabaseUrl } : {}),
    secret: either(env, 'JWT_SECRET'),
    jwks: jwksSetting && !jwksIsUrl ? { value: jwksSetting, name: 'SUPABASE_JWKS' } : undefined,
    jwksUrl:
      either(env, 'JWKS_URL') ??
      (jwksSetting && jwksIsUrl ? { value: jwksSetting, name: 'SUPABASE_JWKS' } : undefined) ??
      (supabaseUrl ? { value: `${supabaseUrl}/auth/v1/.well-known/jwks.json`, name: 'SUPABASE_URL' } : undefined),
    // REBOUND_JWT_ISSUER exists for `supabase functions serve`, where SUPABASE_URL is the internal
    // http://kong:8000 while tokens carry the public http://127.0.0.1:54321/auth/v1.
    issuer: either(env, 'JWT_ISSUER') ?? (supabaseUrl ? { value: `${supabaseUrl}/auth/v1`, name: 'SUPABASE_URL' } : undefined),
  };
}

/** A bind address or hostname that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** What a key's text says it is: Supabase's prefixes for the new keys, the `role` claim for the legacy JWT ones. */
type KeyKind = 'publishable' | 'secret' | 'anon-jwt' | 'service-jwt' | 'other-jwt' | 'opaque';

function keyKind(value: string): KeyKind {
  if (value.startsWith('sb_publishable_')) return 'publishable';
  if (value.startsWith('sb_secret_')) return 'secret';
  const parts = value.split('.');
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) return 'opaque';
  try {
    const header = JSON.parse(atob(parts[0]!.replace(/-/g, '+').replace(/_/g, '/'))) as { alg?: unknown };
    if (typeof header?.alg !== 'string') return 'opaque';
    const claims = JSON.parse(atob(parts[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { role?: unknown } | null;
    return claims?.role === 'anon' ? 'anon-jwt' : claims?.role === 'service_role' ? 'service-jwt' : 'other-jwt';
  } catch {
    return 'opaque';
  }
}

/** The entries of a JSON dictionary of keys (SUPABASE_SECRET_KEYS), named `VAR.entry`; none when it is not one (supabaseSettings says so where it is read). */
function dictionary(env: Env, name: string): Setting[] {
  const text = get(env, name);
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
    return Object.entries(parsed).flatMap(([entry, value]) =>
      typeof value === 'string' && value.trim() ? [{ value: value.trim(), name: `${name}.${entry}` }] : [],
    );
  } catch {
    return [];
  }
}

function single(env: Env, names: string[]): Setting[] {
  return names.flatMap((name) => {
    const value = get(env, name);
    return value ? [{ value, name }] : [];
  });
}

const SECRET_KEY_HELP = "set the project's secret key (sb_secret_…, Project Settings → API Keys) or its legacy service_role key";
const PUBLIC =
  'which is public (it ships in browsers and apps), so anyone could sign what this server signs with it (stream tokens, approval signatures) and act as any user';

/**
 * Every problem with the key settings, one line each (empty when there is none). loadConfig refuses the
 * start with them; see the top of this file for the rules.
 */
export function keyProblems(env: Env): string[] {
  const problems: string[] = [];
  const secretKeys = [...dictionary(env, 'SUPABASE_SECRET_KEYS'), ...single(env, ['SUPABASE_SECRET_KEY', 'SUPABASE_SERVICE_ROLE_KEY'])];
  const publishableKeys = [...dictionary(env, 'SUPABASE_PUBLISHABLE_KEYS'), ...single(env, ['SUPABASE_PUBLISHABLE_KEY', 'SUPABASE_ANON_KEY'])];
  const hmacSecrets = single(env, ['TURN_TOKEN_SECRET', 'REBOUND_JWT_SECRET', 'SUPABASE_JWT_SECRET']);

  // A secret that is a public key.
  for (const { name, value } of [...secretKeys, ...hmacSecrets]) {
    const kind = keyKind(value);
    const jwtSecret = name.endsWith('_JWT_SECRET');
    const help = jwtSecret
      ? "set the project's JWT secret (Project Settings → JWT Keys → Legacy JWT secret)"
      : name === 'TURN_TOKEN_SECRET'
        ? 'set a random string of 32 or more characters (openssl rand -hex 32)'
        : SECRET_KEY_HELP;
    const same = publishableKeys.find((p) => p.value === value);
    if (kind === 'publishable') problems.push(`${name}: holds a publishable key (sb_publishable_…), ${PUBLIC}; ${help}`);
    else if (kind === 'anon-jwt') problems.push(`${name}: holds an anon key (a JWT whose role is anon), ${PUBLIC}; ${help}`);
    else if (same) problems.push(`${name}: holds the same key as ${same.name}, ${PUBLIC}; ${help}`);
    else if (jwtSecret && kind !== 'opaque') problems.push(`${name}: holds a JWT or an API key, not the secret that signs the project's JWTs; ${help}`);
    else if (!jwtSecret && name !== 'TURN_TOKEN_SECRET' && kind === 'other-jwt')
      problems.push(`${name}: holds a JWT whose role is not service_role (a user's token?); ${help}`);
  }
  // A public slot holding a secret: the dashboard hands the publishable key to browsers.
  for (const { name, value } of publishableKeys) {
    const kind = keyKind(value);
    if (kind === 'secret' || kind === 'service-jwt')
      problems.push(
        `${name}: holds a secret key (${kind === 'secret' ? 'sb_secret_…' : 'a JWT whose role is service_role'}), and this one is handed to browsers; set the project's publishable key (sb_publishable_…) or its legacy anon key`,
      );
  }

  // The CLI's published secret, anywhere but next to a local stack.
  const supabaseUrl = get(env, 'SUPABASE_URL');
  if (!isLocalUrl(supabaseUrl)) {
    for (const { name } of hmacSecrets.filter((s) => s.value === CLI_DEFAULT_JWT_SECRET)) {
      problems.push(
        `${name}: is the Supabase CLI's published default JWT secret, with which anyone can sign a token for any user; it is accepted only with a local stack (SUPABASE_URL on loopback, such as http://127.0.0.1:54321), and SUPABASE_URL is ${supabaseUrl ? 'not one' : 'unset'}; set the project's own secret`,
      );
    }
  }

  // Two settings for one thing that disagree: neither silently wins.
  const disagree = (a: Setting | undefined, b: Setting | undefined, keep: string) => {
    if (a && b && a.value !== b.value) problems.push(`${a.name} and ${b.name}: both set, and they differ; ${keep}`);
  };
  const entry = (list: Setting[], name: string) => list.find((s) => s.name === name);
  disagree(
    entry(secretKeys, 'SUPABASE_SECRET_KEYS.default'),
    entry(secretKeys, 'SUPABASE_SECRET_KEY'),
    'set one of them (on Supabase, SUPABASE_SECRET_KEYS is set for you: unset SUPABASE_SECRET_KEY)',
  );
  disagree(
    entry(publishableKeys, 'SUPABASE_PUBLISHABLE_KEYS.default'),
    entry(publishableKeys, 'SUPABASE_PUBLISHABLE_KEY'),
    'set one of them (on Supabase, SUPABASE_PUBLISHABLE_KEYS is set for you: unset SUPABASE_PUBLISHABLE_KEY)',
  );
  for (const name of ['JWT_SECRET', 'JWT_ISSUER', 'JWKS_URL']) {
    disagree(single(env, [`REBOUND_${name}`])[0], single(env, [`SUPABASE_${name}`])[0], `set one of them (REBOUND_${name} where Supabase reserves its prefix)`);
  }
  const jwks = get(env, 'SUPABASE_JWKS');
  if (jwks && /^https?:\/\//i.test(jwks)) disagree(either(env, 'JWKS_URL'), { value: jwks, name: 'SUPABASE_JWKS' }, 'set one of them');

  // Tokens verified with no issuer would let a key set or secret pasted from another project admit its users.
  const sources = authSources(env);
  const source = sources.secret ?? sources.jwks ?? sources.jwksUrl;
  if (source && !sources.issuer) {
    problems.push(
      `${source.name}: user tokens would be verified without checking their issuer; set SUPABASE_URL (tokens from https://<ref>.supabase.co/auth/v1) or REBOUND_JWT_ISSUER`,
    );
  }
  return problems;
}

/** Whether SUPABASE_URL names this machine: a stack started by `supabase start`. */
function isLocalUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
