// Asserts a DashboardSource (or the views) against the hand-worked numbers in fixture.ts.
import { expect } from 'vitest';
import type { DashboardData } from '../../src/dashboard/types.ts';
import { ALL_TIME, DAY_2_HOURLY, EXPECTED_ALL, EXPECTED_DAY_2_HOURLY, EXPECTED_USER_A, USER_A } from './fixture.ts';

/** Rates come back through float8 and numeric: compare to 9 places. */
export function rounded<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_k, v) => (typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v)) as T;
}

type Load = (range: typeof ALL_TIME | typeof DAY_2_HOURLY, user: string | null) => Promise<DashboardData>;

export async function checkDashboardAll(load: Load): Promise<void> {
  const all = await load(ALL_TIME, null);
  expect(all.range).toEqual(ALL_TIME);
  expect(rounded(all.totals)).toEqual(rounded(EXPECTED_ALL.totals));
  expect(rounded(all.ratesOverTime)).toEqual(rounded(EXPECTED_ALL.ratesOverTime));
  expect(rounded(all.byTool)).toEqual(rounded(EXPECTED_ALL.byTool));
  // The fixture's calls are all to the app's own tools: one group, the totals.
  const t = EXPECTED_ALL.totals;
  expect(rounded(all.byServer)).toEqual(
    rounded([{ server: null, calls: t.calls, hallucinated: t.hallucinated, rate: t.hallucinationRate, blocked: t.blocked }]),
  );
  expect(all.categories).toEqual(EXPECTED_ALL.categories);
  expect(all.phantomTools).toEqual(EXPECTED_ALL.phantomTools);
  expect(all.inventedParams).toEqual(EXPECTED_ALL.inventedParams);
  expect(rounded(all.selfCorrection)).toEqual(rounded(EXPECTED_ALL.selfCorrection));
  expect(rounded(all.failureCost)).toEqual(rounded(EXPECTED_ALL.failureCost));
  // The fixture sent no call to a person (test/data/dashboard-approvals.test.ts has some).
  expect(all.approvals).toEqual({
    requested: 0,
    approved: 0,
    denied: 0,
    expired: 0,
    pending: 0,
    approvalRate: 0,
    medianDecisionMs: null,
    deniedByTool: [],
  });

  const day2 = await load(DAY_2_HOURLY, null);
  expect(rounded(day2.ratesOverTime)).toEqual(rounded(EXPECTED_DAY_2_HOURLY.ratesOverTime));
  expect(rounded(day2.totals)).toMatchObject(rounded(EXPECTED_DAY_2_HOURLY.totals));

  // A range without a call: the failure cost is zeros, not null (the page read its share and failed).
  const empty = await load({ ...DAY_2_HOURLY, from: '2030-01-01T00:00:00.000Z', to: '2030-01-02T00:00:00.000Z' }, null);
  expect(empty.failureCost).toEqual({
    wastedModelCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    ms: 0,
    totalTokens: 0,
    share: 0,
    byModel: [],
    byCategory: [],
    byTool: [],
  });
}

export async function checkDashboardUserA(load: Load, user: string | null = USER_A): Promise<void> {
  const a = await load(ALL_TIME, user);
  expect(rounded(a.totals)).toEqual(rounded(EXPECTED_USER_A.totals));
  expect(a.phantomTools).toEqual(EXPECTED_USER_A.phantomTools);
  expect(a.inventedParams.find((p) => p.param === 'append')).toEqual({
    tool: 'write_file',
    param: 'append',
    count: EXPECTED_USER_A.appendCount,
    candidate: false,
  });
  expect(rounded(a.selfCorrection)).toEqual(rounded(EXPECTED_USER_A.selfCorrection));
}

/** The all-time views, read through any `select * from view` function, against the same fixture. */
export async function checkViews(select: (view: string) => Promise<Record<string, unknown>[]>): Promise<void> {
  const sortBy = (rows: Record<string, unknown>[], ...keys: string[]) =>
    [...rows].sort((x, y) => keys.map((k) => String(x[k]).localeCompare(String(y[k]))).find((c) => c !== 0) ?? 0);
  const num = (rows: Record<string, unknown>[]) =>
    rounded(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]))));

  const daily = num(await select('dashboard_hallucination_daily')).map((r) => ({
    ...r,
    day: String(r.day instanceof Date ? r.day.toISOString() : r.day).slice(0, 10),
  }));
  expect(daily).toHaveLength(9);
  expect(daily).toContainEqual({ day: '2025-03-01', model: 'm1', tool: 'write_file', calls: 4, hallucinated: 4, rate: 1 });
  expect(daily).toContainEqual({ day: '2025-03-01', model: 'm1', tool: 'read_file', calls: 1, hallucinated: 0, rate: 0 });
  expect(daily).toContainEqual({ day: '2025-03-02', model: 'm2', tool: 'search_files', calls: 3, hallucinated: 0, rate: 0 });
  expect(daily).toContainEqual({ day: '2025-03-02', model: 'm2', tool: 'read_file', calls: 3, hallucinated: 3, rate: 1 });
  expect(daily).toContainEqual({ day: '2025-03-02', model: 'm1', tool: 'run_shell', calls: 2, hallucinated: 2, rate: 1 });

  expect(sortBy(num(await select('dashboard_categories')), 'category')).toEqual(sortBy(EXPECTED_ALL.categories, 'category'));
  expect(sortBy(num(await select('dashboard_phantom_tools')), 'name')).toEqual(sortBy(EXPECTED_ALL.phantomTools, 'name'));
  expect(sortBy(num(await select('dashboard_invented_params')), 'param')).toEqual(sortBy(EXPECTED_ALL.inventedParams, 'param'));
  expect(num(await select('dashboard_self_correction'))).toEqual([
    { blocked: 9, corrected_first_retry: 2, corrected_second_retry: 3, rate_first: rounded(2 / 9), rate_second: rounded(3 / 9) },
  ]);
  expect(num(await select('dashboard_repair_rate'))).toEqual([{ calls: 17, repaired: 3, rate: rounded(3 / 17) }]);
  expect(num(await select('dashboard_turn_outcomes'))).toEqual([
    { turns: 5, forced_summary: 2, aborted: 1, forced_summary_rate: 0.4, aborted_rate: 0.2, avg_iterations: 2, interrupted: 0, interrupted_rate: 0 },
  ]);
  expect(sortBy(num(await select('dashboard_iterations_per_turn')), 'iterations')).toEqual([
    { iterations: 1, turns: 1 },
    { iterations: 2, turns: 3 },
    { iterations: 3, turns: 1 },
  ]);
}
