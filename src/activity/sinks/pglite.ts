// Activity sink for `npm start`: the embedded PGlite database the migrations created.
// Works with any driver offering PGlite's query(sql, params) (e.g. a PGlite instance or transaction).
import type { Queryable } from '../../store/pglite.ts';
import type { ActivityRow, ActivitySink, TurnRow } from '../types.ts';
import { sinkError } from './refusal.ts';
import { insertActivitySql, upsertTurnsSql } from './batch-sql.ts';
import { storableActivity, storableTurn } from './storable.ts';

export function createPgliteSink(db: Queryable): ActivitySink {
  return {
    name: 'pglite',
    async writeActivity(rows: ActivityRow[]) {
      const { sql, params } = insertActivitySql(rows.map(storableActivity));
      await db.query(sql, params).catch((error: unknown) => {
        throw sinkError('agent_activity insert', error);
      });
    },
    async writeTurns(rows: TurnRow[]) {
      const { sql, params } = upsertTurnsSql(rows.map(storableTurn));
      await db.query(sql, params).catch((error: unknown) => {
        throw sinkError('agent_turns upsert', error);
      });
    },
  };
}
