// The dashboard's approval figures on PGlite: the hand-worked fixture plus the calls sent to a person
// of fixture-approvals.ts (the PostgreSQL + PostgREST suite checks them under RLS too).
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardSource } from '../../src/dashboard/types.ts';
import { rounded } from './dashboard-checks.ts';
import { ALL_TIME, DAY_2_HOURLY, USER_A } from './fixture.ts';
import { approvalInserts, EXPECTED_APPROVALS_ALL, EXPECTED_APPROVALS_USER_A, EXPECTED_QUESTIONS_ALL } from './fixture-approvals.ts';
import { openFixtureDashboard } from './fixture-dashboard.ts';

let db: PGlite;
let dashboard: DashboardSource;
beforeAll(async () => {
  ({ db, dashboard } = await openFixtureDashboard([]));
  for (const { text, params } of approvalInserts()) await db.query(text, params);
});
afterAll(async () => {
  await db?.close();
});

describe('the dashboard of approvals', () => {
  it('counts the calls sent to a person, the approval rate of the ended ones, the median time to a decision, denials by tool', async () => {
    const data = await dashboard.load(ALL_TIME, null);
    expect(rounded(data.approvals)).toEqual(rounded(EXPECTED_APPROVALS_ALL));
    // MCP servers' questions wait in the same table but are counted apart.
    expect(data.questions).toEqual(EXPECTED_QUESTIONS_ALL);
    expect((await dashboard.load({ ...ALL_TIME, source: 'gateway' }, null)).questions.asked).toBe(0);
  });

  it('narrows to a user, a range, and to the loop (the gateway asks nobody)', async () => {
    expect(rounded((await dashboard.load(ALL_TIME, USER_A)).approvals)).toEqual(rounded(EXPECTED_APPROVALS_USER_A));
    expect(rounded((await dashboard.load(DAY_2_HOURLY, null)).approvals)).toMatchObject(
      rounded({ requested: 4, approvalRate: 1 / 3, medianDecisionMs: 40_000 }),
    );
    expect((await dashboard.load({ ...ALL_TIME, source: 'loop' }, null)).approvals.requested).toBe(6);
    expect((await dashboard.load({ ...ALL_TIME, source: 'gateway' }, null)).approvals).toEqual({
      requested: 0,
      approved: 0,
      denied: 0,
      expired: 0,
      pending: 0,
      approvalRate: 0,
      medianDecisionMs: null,
      deniedByTool: [],
    });
  });

  it('dashboard_approvals gives the same per tool for the SQL editor', async () => {
    const { rows } = await db.query<Record<string, unknown>>(
      'select tool, requested::int, approved::int, denied::int, expired::int, pending::int, decision_ms_median from dashboard_approvals order by tool',
    );
    expect(rounded(rows)).toEqual([
      { tool: 'crm__send_email', requested: 2, approved: 1, denied: 1, expired: 0, pending: 0, decision_ms_median: 40_000 },
      { tool: 'delete_file', requested: 4, approved: 1, denied: 1, expired: 1, pending: 1, decision_ms_median: 20_000 },
    ]);
  });
});
