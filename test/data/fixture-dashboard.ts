// PGlite with the migrations and the hand-worked fixture written through the activity sink, as the
// loop writes it, plus the rows a test adds; and the dashboard over it.
import type { PGlite } from '@electric-sql/pglite';
import { createPgliteSink } from '../../src/activity/sinks/pglite.ts';
import type { ActivityRow } from '../../src/activity/types.ts';
import { createPgliteDashboard } from '../../src/dashboard/pglite.ts';
import type { DashboardSource } from '../../src/dashboard/types.ts';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { openPglite } from '../../src/store/pglite.ts';
import { activityRows, turnRows } from './fixture.ts';

export async function openFixtureDashboard(extra: ActivityRow[]): Promise<{ db: PGlite; dashboard: DashboardSource }> {
  const db = await openPglite(undefined, readMigrations());
  const sink = createPgliteSink(db);
  await sink.writeActivity([...activityRows(), ...extra]);
  await sink.writeTurns(turnRows());
  return { db, dashboard: createPgliteDashboard(db) };
}
