// Activity sink for the edge: supabase-js with the service-role key, through PostgREST.
// Upserts with ignore-duplicates: a retried batch whose first attempt did land (the response was lost)
// must not fail on the primary key, nor write twice.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { ActivityRow, ActivitySink, TurnRow } from '../types.ts';

/** Realtime is never used here; a transport that refuses keeps supabase-js from needing a WebSocket (Node 20). */
class NoRealtimeTransport {
  constructor() {
    throw new Error('realtime is disabled in this client');
  }
}

/** A server-side client: no session persistence, no token refresh, no realtime socket. */
export function createServerClient(url: string, key: string, options: { fetch?: typeof fetch; accessToken?: string } = {}): SupabaseClient {
  return createClient(url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: NoRealtimeTransport as never },
    global: {
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.accessToken ? { headers: { Authorization: `Bearer ${options.accessToken}` } } : {}),
    },
  });
}

export function createSupabaseSink(client: SupabaseClient): ActivitySink {
  return {
    name: 'supabase',
    async writeActivity(rows: ActivityRow[]) {
      const { error } = await client.from('agent_activity').upsert(rows, { onConflict: 'id', ignoreDuplicates: true });
      if (error) throw new Error(`agent_activity insert: ${error.message}`);
    },
    async writeTurns(rows: TurnRow[]) {
      // The turn row usually exists already (created by POST); the outcome columns complete it.
      const { error } = await client
        .from('agent_turns')
        .upsert(rows.map((r) => ({ ...r, status: 'finished' })), { onConflict: 'id' });
      if (error) throw new Error(`agent_turns upsert: ${error.message}`);
    },
  };
}
