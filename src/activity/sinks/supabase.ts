// Activity sink for the edge: the supabase-js query builder with the service-role key, through PostgREST.
// Upserts with ignore-duplicates: a retried batch whose first attempt did land (the response was lost)
// must not fail on the primary key, nor write twice.
import { PostgrestClient } from '@supabase/postgrest-js';
import type { ActivityRow, ActivitySink, TurnRow } from '../types.ts';
import { sinkError } from './refusal.ts';
import { storableActivity, storableTurn } from './storable.ts';

/**
 * What the server side uses of a Supabase client: `.from()` and `.rpc()`. A `SupabaseClient` from
 * supabase-js fits, and so does the `PostgrestClient` it is built on, which is what the edge uses:
 * the server needs no auth session, storage or realtime socket, and leaving them out keeps about
 * 60 KB gzip out of the Worker bundle.
 */
export type DataClient = Pick<PostgrestClient<any, any, any>, 'from' | 'rpc'>;

/** A server-side client for `${url}/rest/v1` with a service-role key (or the anon key plus a user's access token). */
export function createServerClient(url: string, key: string, options: { fetch?: typeof fetch; accessToken?: string } = {}): DataClient {
  return new PostgrestClient(`${url.replace(/\/+$/, '')}/rest/v1`, {
    headers: { apikey: key, Authorization: `Bearer ${options.accessToken ?? key}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

export function createSupabaseSink(client: DataClient): ActivitySink {
  return {
    name: 'supabase',
    async writeActivity(rows: ActivityRow[]) {
      const { error } = await client.from('agent_activity').upsert(rows.map(storableActivity), { onConflict: 'id', ignoreDuplicates: true });
      if (error) throw sinkError('agent_activity insert', error);
    },
    async writeTurns(rows: TurnRow[]) {
      // The turn row usually exists already (created by POST); the outcome columns complete it.
      const { error } = await client
        .from('agent_turns')
        .upsert(rows.map((r) => ({ ...storableTurn(r), status: 'finished' })), { onConflict: 'id' });
      if (error) throw sinkError('agent_turns upsert', error);
    },
  };
}
