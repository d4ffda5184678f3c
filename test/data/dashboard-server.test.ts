// The dashboard by MCP server on PGlite: the hand-worked fixture (the app's own tools, tool_server
// null) plus a few calls to MCP tools, written through the activity sink as the loop writes them.
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityRow } from '../../src/activity/types.ts';
import type { DashboardSource } from '../../src/dashboard/types.ts';
import { rounded } from './dashboard-checks.ts';
import { ALL_TIME, EXPECTED_ALL, activityRows } from './fixture.ts';
import { openFixtureDashboard } from './fixture-dashboard.ts';

/*
 * MCP calls, 2025-03-02, turn M1 (user A), model m1:
 *   m1 everything__get_sum  repaired phantom_tool  (resolved everything__get-sum)  server everything
 *   m2 everything__add      blocked  phantom_tool                                 server everything (its prefix)
 *   m3 everything__echo     blocked  missing_required                             server everything
 *   m4 crm__find            pass     valid                                        server crm
 *   m5 crm__find            pass     execution_error (the server went down)       server crm
 * everything: calls 3, hallucinated 3, blocked 2; crm: calls 2, hallucinated 0, blocked 0.
 */
function mcpRows(): ActivityRow[] {
  const row = (
    id: string,
    requested: string,
    resolved: string | null,
    verdict: ActivityRow['verdict'],
    category: ActivityRow['category'],
    server: string,
    second: number,
  ): ActivityRow => ({
    id,
    turn_id: 'M1',
    session_id: 'S-M',
    user_id: activityRows()[0]!.user_id,
    iteration: 1,
    model: 'm1',
    call_id: `call_${id}`,
    tool_requested: requested,
    tool_resolved: resolved,
    verdict,
    category,
    problems: [],
    repairs: [],
    suggestions: [],
    invented_params: [],
    arguments: '{}',
    error: null,
    duration_ms: 2,
    created_at: `2025-03-02T18:00:0${second}Z`,
    source: 'loop',
    tool_server: server,
  });
  return [
    row('m1', 'everything__get_sum', 'everything__get-sum', 'repaired', 'phantom_tool', 'everything', 1),
    row('m2', 'everything__add', null, 'blocked', 'phantom_tool', 'everything', 2),
    row('m3', 'everything__echo', null, 'blocked', 'missing_required', 'everything', 3),
    row('m4', 'crm__find', 'crm__find', 'pass', 'valid', 'crm', 4),
    row('m5', 'crm__find', 'crm__find', 'pass', 'execution_error', 'crm', 5),
  ];
}

let db: PGlite;
let dashboard: DashboardSource;
beforeAll(async () => {
  ({ db, dashboard } = await openFixtureDashboard(mcpRows()));
});
afterAll(async () => {
  await db?.close();
});

describe('the dashboard by MCP server', () => {
  it("stores tool_server; rows without one (the app's own tools, the gateway) are null", async () => {
    const { rows } = await db.query<{ tool_server: string | null; n: number }>(
      'select tool_server, count(*)::int as n from agent_activity group by tool_server order by tool_server nulls first',
    );
    expect(rows).toEqual([
      { tool_server: null, n: activityRows().length },
      { tool_server: 'crm', n: 2 },
      { tool_server: 'everything', n: 3 },
    ]);
  });

  it('groups the calls by server, the own tools first', async () => {
    const data = await dashboard.load(ALL_TIME, null);
    const t = EXPECTED_ALL.totals;
    expect(rounded(data.byServer)).toEqual(
      rounded([
        { server: null, calls: t.calls, hallucinated: t.hallucinated, rate: t.hallucinationRate, blocked: t.blocked },
        { server: 'crm', calls: 2, hallucinated: 0, rate: 0, blocked: 0 },
        { server: 'everything', calls: 3, hallucinated: 3, rate: 1, blocked: 2 },
      ]),
    );
    expect(data.totals.calls).toBe(t.calls + 5);
  });

  it('agent_activity_facts carries tool_server for the SQL editor', async () => {
    const { rows } = await db.query<{ tool_server: string; n: number }>(
      `select tool_server, count(*)::int as n from agent_activity_facts where tool_server is not null group by 1 order by 1`,
    );
    expect(rows).toEqual([
      { tool_server: 'crm', n: 2 },
      { tool_server: 'everything', n: 3 },
    ]);
  });
});
