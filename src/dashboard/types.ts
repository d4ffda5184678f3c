// The dashboard's data contract: what /v1/dashboard returns and what the page draws. Implemented by
// SQL sources (PGlite locally, the agent_dashboard() function through PostgREST, with postgrest-js, on the edge).
import type { ActivitySource } from '../vocabulary.ts';

/**
 * A call counts as hallucinated when the model proposed something wrong: any category but valid and
 * execution_error, and a repeated_failure unless it passed the gate untouched (see supabase/dashboard.sql).
 */
export interface DashboardRange {
  from: string; // ISO timestamp, inclusive
  to: string; // ISO timestamp, exclusive
  bucket: 'hour' | 'day';
  /** Only the loop's calls or only the gateway's (agent_activity.source); absent: both. */
  source?: ActivitySource;
}

export interface DashboardData {
  range: DashboardRange;
  totals: {
    calls: number;
    hallucinated: number;
    hallucinationRate: number;
    repaired: number;
    repairRate: number;
    blocked: number;
    /** Calls that failed as an earlier call of their turn did (category repeated_failure), and the turns they were in. */
    repeatedFailures: number;
    repeatedFailureTurns: number;
    turns: number;
    forcedSummaryRate: number;
    abortedRate: number;
    /** Turns whose process died while they ran, closed later as `interrupted` (src/store/interrupted.ts). */
    interrupted: number;
    interruptedRate: number;
    /** Turns stopped because the model only repeated failures (outcome no_progress; counted in forcedSummaryRate too). */
    noProgress: number;
    avgIterations: number;
  };
  /** One point per bucket and model. */
  ratesOverTime: Array<{ bucket: string; model: string; calls: number; hallucinated: number; rate: number }>;
  byTool: Array<{ tool: string; calls: number; hallucinated: number; rate: number }>;
  /** Calls grouped by the MCP server of their tool (agent_activity.tool_server); `server` null: the app's own tools. */
  byServer: Array<{ server: string | null; calls: number; hallucinated: number; rate: number; blocked: number }>;
  categories: Array<{ category: string; count: number }>;
  phantomTools: Array<{ name: string; count: number }>;
  /** Parameters models invented; `candidate` when invented 5 or more times (a feature request). */
  inventedParams: Array<{ tool: string; param: string; count: number; candidate: boolean }>;
  /**
   * What failures cost (src/calls/wasted.ts has the formula): the wasted model calls' tokens and ms, all
   * and by model, category and tool; `share` is their tokens over all tokens (the loop's turns' and the
   * gateway rows').
   */
  failureCost: {
    wastedModelCalls: number;
    promptTokens: number;
    completionTokens: number;
    ms: number;
    totalTokens: number;
    share: number;
    byModel: FailureCostGroup[];
    byCategory: FailureCostGroup[];
    byTool: FailureCostGroup[];
  };
  selfCorrection: { blocked: number; correctedFirstRetry: number; correctedSecondRetry: number; rateFirst: number; rateSecond: number };
  approvals: ApprovalFigures;
  /** MCP servers' questions to the person (docs/approval.md § A server's question), apart from approvals. */
  questions: QuestionFigures;
}

/** Questions asked by MCP servers (elicitation), by the time they were asked: answered is accept; declined is decline or cancel. */
export interface QuestionFigures {
  asked: number;
  answered: number;
  declined: number;
  expired: number;
  pending: number;
}

/**
 * Calls sent to a person (agent_approvals, docs/approval.md § On the dashboard), by the time they were asked: `approvalRate`
 * is approved over the ended ones (approved, denied, expired), `medianDecisionMs` the median time from
 * the request to a person's approve or deny (null: none yet), `deniedByTool` the tools with a denial.
 */
export interface ApprovalFigures {
  requested: number;
  approved: number;
  denied: number;
  expired: number;
  pending: number;
  approvalRate: number;
  medianDecisionMs: number | null;
  deniedByTool: Array<{ tool: string; denied: number; requested: number }>;
}

/** One group's part of the failure cost: `calls` counts its tool calls in wasted model calls. */
export interface FailureCostGroup {
  key: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  ms: number;
  share: number;
}

export interface DashboardSource {
  /**
   * Rows visible to `userId` (null: local mode, everything). `accessToken` is the caller's verified JWT:
   * a Supabase source queries with it so that RLS, not only a filter, decides what the user sees.
   */
  load(range: DashboardRange, userId: string | null, accessToken?: string): Promise<DashboardData>;
}
