// A DashboardSource with fixed numbers: lets the pages and their tests run before (or without) SQL.
import type { DashboardData, DashboardRange, DashboardSource } from '../../src/dashboard/types.ts';

export function fixedDashboardData(range: DashboardRange): DashboardData {
  const hours = ['2025-03-01T10:00:00.000Z', '2025-03-01T11:00:00.000Z', '2025-03-01T12:00:00.000Z'];
  return {
    range,
    totals: {
      calls: 40,
      hallucinated: 12,
      hallucinationRate: 0.3,
      repaired: 6,
      repairRate: 0.15,
      blocked: 8,
      turns: 10,
      forcedSummaryRate: 0.1,
      abortedRate: 0.05,
      avgIterations: 3.4,
    },
    ratesOverTime: [
      ...hours.map((bucket, i) => ({ bucket, model: 'demo-model', calls: 10, hallucinated: 2 + i, rate: (2 + i) / 10 })),
      ...hours.slice(1).map((bucket, i) => ({ bucket, model: 'gpt-4o-mini', calls: 5, hallucinated: i, rate: i / 5 })),
    ],
    byTool: [
      { tool: 'read_file', calls: 20, hallucinated: 6, rate: 0.3 },
      { tool: 'write_file', calls: 12, hallucinated: 3, rate: 0.25 },
    ],
    categories: [
      { category: 'valid', count: 25 },
      { category: 'invalid_path', count: 5 },
      { category: 'phantom_tool', count: 4 },
      { category: 'placeholder_content', count: 3 },
      { category: 'execution_error', count: 3 },
    ],
    phantomTools: [
      { name: 'search_code', count: 3 },
      { name: '<script>alert(1)</script>', count: 1 },
    ],
    inventedParams: [
      { tool: 'read_file', param: 'encoding', count: 7, candidate: true },
      { tool: 'write_file', param: 'mode', count: 2, candidate: false },
    ],
    selfCorrection: { blocked: 8, correctedFirstRetry: 6, correctedSecondRetry: 7, rateFirst: 0.75, rateSecond: 0.875 },
  };
}

export function fakeDashboard(): DashboardSource & { calls: Array<{ range: DashboardRange; userId: string | null }> } {
  const calls: Array<{ range: DashboardRange; userId: string | null }> = [];
  return {
    calls,
    async load(range, userId) {
      calls.push({ range, userId });
      return fixedDashboardData(range);
    },
  };
}
