// Activity sink for `npm start`: the embedded PGlite database the migrations created.
// Works with any driver offering PGlite's query(sql, params) (e.g. a PGlite instance or transaction).
import type { ActivityRow, ActivitySink, TurnRow } from '../types.ts';
import { insertActivitySql, upsertTurnsSql } from './sql-rows.ts';

export interface Queryable {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export function createPgliteSink(db: Queryable): ActivitySink {
  return {
    name: 'pglite',
    async writeActivity(rows: ActivityRow[]) {
      const { sql, params } = insertActivitySql(rows);
      await db.query(sql, params);
    },
    async writeTurns(rows: TurnRow[]) {
      const { sql, params } = upsertTurnsSql(rows);
      await db.query(sql, params);
    },
  };
}
