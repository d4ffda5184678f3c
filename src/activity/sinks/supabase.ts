// Activity sink for the edge: PostgREST through postgrest-js (store/data-client.ts) with the service-role key.
// Upserts with ignore-duplicates: a retried batch whose first attempt did land (the response was lost)
// must not fail on the primary key, nor write twice.
import type { DataClient } from '../../store/data-client.ts';
import type { ActivityRow, ActivitySink, TurnRow } from '../types.ts';
import { sinkError } from './refusal.ts';
import { storableActivity, storableTurn } from './storable.ts';

export function createSupabaseSink(client: DataClient): ActivitySink {
  return {
    name: 'supabase',
    async writeActivity(rows: ActivityRow[]) {
      const { error } = await client.from('agent_activity').upsert(rows.map(storableActivity), { onConflict: 'id', ignoreDuplicates: true });
      if (error) throw sinkError('agent_activity insert', error);
    },
    async writeTurns(rows: TurnRow[]) {
      // The turn row usually exists already (created by POST); the outcome columns complete it.
      const { error } = await client.from('agent_turns').upsert(
        rows.map((r) => ({ ...storableTurn(r), status: 'finished' })),
        { onConflict: 'id' },
      );
      if (error) throw sinkError('agent_turns upsert', error);
    },
  };
}
