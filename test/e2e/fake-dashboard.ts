// A DashboardSource with fixed numbers: lets the pages and their tests run before (or without) SQL.
import type { DashboardData, DashboardRange, DashboardSource } from '../../src/dashboard/types.ts';

const STEP = { hour: 3_600_000, day: 86_400_000 };

/** The last 12 buckets of the range, oldest first, as the SQL would key them. */
function lastBuckets(range: DashboardRange): string[] {
  const step = STEP[range.bucket];
  const last = Math.floor((Date.parse(range.to) - 1) / step) * step;
  return Array.from({ length: 12 }, (_, i) => last - (11 - i) * step)
    .filter((t) => t + step > Date.parse(range.from))
    .map((t) => new Date(t).toISOString());
}

export function fixedDashboardData(range: DashboardRange): DashboardData {
  const buckets = lastBuckets(range);
  // Deterministic wiggle: a model that improves over the day and one that is steadier.
  const demo = [6, 5, 6, 4, 5, 3, 4, 3, 2, 3, 2, 2];
  const gpt = [2, 3, 2, 2, 1, 2, 1, 1, 2, 1, 1, 0];
  return {
    range,
    totals: {
      calls: 40,
      hallucinated: 12,
      hallucinationRate: 0.3,
      repaired: 6,
      repairRate: 0.15,
      blocked: 8,
      repeatedFailures: 2,
      repeatedFailureTurns: 1,
      turns: 10,
      forcedSummaryRate: 0.1,
      abortedRate: 0.05,
      interrupted: 1,
      interruptedRate: 0.1,
      noProgress: 1,
      avgIterations: 3.4,
    },
    ratesOverTime: [
      ...buckets.map((bucket, i) => ({ bucket, model: 'demo-model', calls: 12, hallucinated: demo[i]!, rate: demo[i]! / 12 })),
      // gpt-4o-mini was not used in the 4th bucket: a gap in its line.
      ...buckets.flatMap((bucket, i) =>
        i === 3 ? [] : [{ bucket, model: 'gpt-4o-mini', calls: 8 + (i % 3), hallucinated: gpt[i]!, rate: gpt[i]! / (8 + (i % 3)) }],
      ),
    ],
    byTool: [
      { tool: 'read_file', calls: 20, hallucinated: 6, rate: 0.3 },
      { tool: 'write_file', calls: 12, hallucinated: 3, rate: 0.25 },
    ],
    byServer: [{ server: null, calls: 32, hallucinated: 9, rate: 9 / 32, blocked: 5 }],
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
    approvals: {
      requested: 9,
      approved: 5,
      denied: 3,
      expired: 1,
      pending: 0,
      approvalRate: 5 / 9,
      medianDecisionMs: 18_500,
      deniedByTool: [
        { tool: 'delete_file', denied: 2, requested: 4 },
        { tool: 'crm__send_email', denied: 1, requested: 5 },
      ],
    },
    questions: { asked: 4, answered: 2, declined: 1, expired: 1, pending: 0 },
    failureCost: {
      wastedModelCalls: 5,
      promptTokens: 6100,
      completionTokens: 140,
      ms: 4200,
      totalTokens: 52000,
      share: 6240 / 52000,
      byModel: [
        { key: 'demo-model', calls: 4, promptTokens: 4800, completionTokens: 100, ms: 3100, share: 4900 / 52000 },
        { key: 'gpt-4o-mini', calls: 2, promptTokens: 1300, completionTokens: 40, ms: 1100, share: 1340 / 52000 },
      ],
      byCategory: [
        { key: 'repeated_failure', calls: 3, promptTokens: 3900, completionTokens: 80, ms: 2500, share: 3980 / 52000 },
        { key: 'phantom_tool', calls: 2, promptTokens: 1600, completionTokens: 40, ms: 1200, share: 1640 / 52000 },
        { key: 'invalid_path', calls: 1, promptTokens: 600, completionTokens: 20, ms: 500, share: 620 / 52000 },
      ],
      byTool: [
        { key: 'update_customer_profile', calls: 4, promptTokens: 5000, completionTokens: 110, ms: 3400, share: 5110 / 52000 },
        { key: 'read_file', calls: 2, promptTokens: 1100, completionTokens: 30, ms: 800, share: 1130 / 52000 },
      ],
    },
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
