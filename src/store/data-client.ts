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

/** A server-side client for `${url}/rest/v1` with a service-role key (or the anon key plus a user's access token). */
export function createServerClient(url: string, key: string, options: { fetch?: typeof fetch; accessToken?: string } = {}): DataClient {
  return new PostgrestClient(`${url.replace(/\/+$/, '')}/rest/v1`, {
    headers: { apikey: key, Authorization: `Bearer ${options.accessToken ?? key}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
