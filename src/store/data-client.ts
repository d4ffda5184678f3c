// The server side's connection to Supabase: the PostgREST query builder, with the service-role key or
// the anon key plus a user's access token. The stores, the activity sink and the dashboard source all
// speak through it, so it sits in store/, the lowest of them (test/runtimes/layers.test.ts).
import { PostgrestClient } from '@supabase/postgrest-js';

/**
 * What the server side uses of a Supabase client: `.from()` and `.rpc()`. A `SupabaseClient` from
 * supabase-js fits, and so does the `PostgrestClient` it is built on, which is what the edge uses:
 * the server needs no auth session, storage or realtime socket, and leaving them out keeps about
 * 60 KB gzip out of the Worker bundle.
 */
export type DataClient = Pick<PostgrestClient, 'from' | 'rpc'>;

/**
 * A server-side client for `${url}/rest/v1` with a secret key (or the publishable key plus a user's
 * access token). The key always goes in `apikey`. `Authorization` carries a JWT only: the user's token,
 * or a legacy key (the anon / service-role JWTs). The new sb_secret_… / sb_publishable_… keys are not
 * JWTs and must not be sent as a bearer token (supabase.com/docs/guides/functions/auth-headers);
 * without one, Supabase's API gateway puts the key's own role JWT there. This is what supabase-js does
 * with `omitApiKeyAsBearer`.
 */
export function createServerClient(url: string, key: string, options: { fetch?: typeof fetch; accessToken?: string } = {}): DataClient {
  const bearer = options.accessToken ?? (isNewApiKey(key) ? undefined : key);
  return new PostgrestClient(`${url.replace(/\/+$/, '')}/rest/v1`, {
    headers: { apikey: key, ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** Supabase's new API keys, which are opaque strings rather than JWTs. */
export function isNewApiKey(key: string): boolean {
  return key.startsWith('sb_secret_') || key.startsWith('sb_publishable_');
}
