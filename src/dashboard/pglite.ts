// Dashboard on the embedded PGlite database: calls agent_dashboard() from supabase/dashboard.sql
// (applied by the dashboard migration).
import { checkRange, toDashboardData } from './sql-result.ts';
import type { DashboardRange, DashboardSource } from './types.ts';
import type { Queryable } from '../store/pglite.ts';

export function createPgliteDashboard(db: Queryable): DashboardSource {
  return {
    async load(range: DashboardRange, userId: string | null) {
      checkRange(range);
      const { rows } = await db.query<{ data: unknown }>('select public.agent_dashboard($1, $2, $3, $4, $5) as data', [
        range.from,
        range.to,
        range.bucket,
        userId,
        range.source ?? null,
      ]);
      return toDashboardData(range, rows[0]?.data);
    },
  };
}
