// The dashboard filtered by source on PGlite: the hand-worked fixture (the loop's calls) plus a few
// gateway calls. Filtered to the loop, every figure is the fixture's own; filtered to the gateway,
// the figures below, worked out by hand; unfiltered, both together.
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityRow } from '../../src/activity/types.ts';
import type { DashboardSource } from '../../src/dashboard/types.ts';
import { checkDashboardAll, rounded } from './dashboard-checks.ts';
import { ALL_TIME, EXPECTED_ALL, activityRows } from './fixture.ts';
import { openFixtureDashboard } from './fixture-dashboard.ts';

/*
 * Gateway calls, 2025-03-02, model gw-model, no user (a gateway key):
 *   R1 attempt 1  g1 get_weather  blocked  missing_required
 *   R1 attempt 2  g2 get_weather  pass     valid              → g1 corrected on the first retry
 *   R2 attempt 1  g3 getWeather   repaired phantom_tool        (resolved get_weather)
 *   R2 attempt 1  g4 search_notes repaired wrong_type
 * calls 4, hallucinated g1 g3 g4 = 3, repaired 2, blocked 1; no turns; self-correction 1 of 1.
 */
function gatewayRows(): ActivityRow[] {
  const row = (
    id: string,
    turn: string,
    iteration: number,
    requested: string,
    resolved: string | null,
    verdict: ActivityRow['verdict'],
    category: ActivityRow['category'],
    at: string,
  ): ActivityRow => ({
    id,
    turn_id: turn,
    session_id: turn,
    user_id: null,
    iteration,
    model: 'gw-model',
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
    duration_ms: 0.1,
    created_at: at,
    source: 'gateway',
  });
  return [
    row('g1', 'R1', 1, 'get_weather', null, 'blocked', 'missing_required', '2025-03-02T15:00:01Z'),
    row('g2', 'R1', 2, 'get_weather', 'get_weather', 'pass', 'valid', '2025-03-02T15:00:02Z'),
    row('g3', 'R2', 1, 'getWeather', 'get_weather', 'repaired', 'phantom_tool', '2025-03-02T16:00:01Z'),
    row('g4', 'R2', 1, 'search_notes', 'search_notes', 'repaired', 'wrong_type', '2025-03-02T16:00:02Z'),
  ];
}

let db: PGlite;
let dashboard: DashboardSource;
beforeAll(async () => {
  ({ db, dashboard } = await openFixtureDashboard(gatewayRows()));
});
afterAll(async () => {
  await db?.close();
});

describe('the dashboard by source', () => {
  it("stores the source of every row; a row written without one is the loop's", async () => {
    const { rows } = await db.query<{ source: string; n: number }>('select source, count(*)::int as n from agent_activity group by source order by source');
    expect(rows).toEqual([
      { source: 'gateway', n: 4 },
      { source: 'loop', n: activityRows().length },
    ]);
    await db.query(
      `insert into agent_activity (id, turn_id, session_id, iteration, model, call_id, tool_requested, verdict, category) values ('old', 'T', 'S', 1, 'm', 'c', 't', 'pass', 'valid')`,
    );
    expect((await db.query<{ source: string }>(`select source from agent_activity where id = 'old'`)).rows).toEqual([{ source: 'loop' }]);
    await db.query(`delete from agent_activity where id = 'old'`);
    await expect(
      db.query(
        `insert into agent_activity (id, turn_id, session_id, iteration, model, call_id, tool_requested, verdict, category, source) values ('bad', 'T', 'S', 1, 'm', 'c', 't', 'pass', 'valid', 'proxy')`,
      ),
    ).rejects.toThrow(/check constraint/);
  });

  it('filtered to the loop: exactly the hand-worked fixture', async () => {
    await checkDashboardAll(async (range, user) => {
      const data = await dashboard.load({ ...range, source: 'loop' }, user);
      expect(data.range.source).toBe('loop');
      return { ...data, range };
    });
  });

  it('filtered to the gateway: its calls only, no turns, its retries as self-correction', async () => {
    const data = await dashboard.load({ ...ALL_TIME, source: 'gateway' }, null);
    expect(data.range.source).toBe('gateway');
    expect(rounded(data.totals)).toMatchObject(
      rounded({ calls: 4, hallucinated: 3, hallucinationRate: 0.75, repaired: 2, repairRate: 0.5, blocked: 1, turns: 0 }),
    );
    expect(data.ratesOverTime).toEqual([{ bucket: '2025-03-02T00:00:00Z', model: 'gw-model', calls: 4, hallucinated: 3, rate: 0.75 }]);
    expect(data.phantomTools).toEqual([{ name: 'getWeather', count: 1 }]);
    expect(data.categories).toEqual([
      { category: 'missing_required', count: 1 },
      { category: 'phantom_tool', count: 1 },
      { category: 'valid', count: 1 },
      { category: 'wrong_type', count: 1 },
    ]);
    expect(rounded(data.selfCorrection)).toEqual({ blocked: 1, correctedFirstRetry: 1, correctedSecondRetry: 1, rateFirst: 1, rateSecond: 1 });
  });

  it('unfiltered: both sources together', async () => {
    const data = await dashboard.load(ALL_TIME, null);
    expect(data.totals.calls).toBe(EXPECTED_ALL.totals.calls + 4);
    expect(data.totals.hallucinated).toBe(EXPECTED_ALL.totals.hallucinated + 3);
    expect(data.totals.turns).toBe(EXPECTED_ALL.totals.turns);
    expect(data.selfCorrection.blocked).toBe(EXPECTED_ALL.selfCorrection.blocked + 1);
  });
});
