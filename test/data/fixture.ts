// Seeded activity for the dashboard tests, small enough to work every number out by hand.
// Two users, two models, two days; the expectations below are derived in the comments.
import type { ActivityRow, TurnRow } from '../../src/activity/types.ts';
import { costShares } from '../../src/calls/wasted.ts';

export const USER_A = '11111111-1111-4111-8111-111111111111';
export const USER_B = '22222222-2222-4222-8222-222222222222';

type Spec = [
  id: string,
  turn: string,
  user: string,
  model: string,
  iteration: number,
  requested: string,
  resolved: string | null,
  verdict: ActivityRow['verdict'],
  category: ActivityRow['category'],
  suggestions: string[],
  invented: string[],
  at: string,
];

// prettier-ignore
const SPECS: Spec[] = [
  ['c1', 'T1', USER_A, 'm1', 1, 'read_fille', null, 'blocked', 'phantom_tool', ['read_file'], [], '2025-03-01T10:00:01Z'],
  ['c2', 'T1', USER_A, 'm1', 2, 'read_file', 'read_file', 'pass', 'valid', [], [], '2025-03-01T10:00:02Z'],
  ['c3', 'T1', USER_A, 'm1', 2, 'write_file', 'write_file', 'repaired', 'unknown_parameter', [], ['append', 'mode'], '2025-03-01T10:00:03Z'],
  ['c4', 'T2', USER_A, 'm1', 1, 'write_file', null, 'blocked', 'missing_required', ['content'], ['append', 'overwrite'], '2025-03-01T11:00:01Z'],
  ['c5', 'T2', USER_A, 'm1', 2, 'write_file', null, 'blocked', 'missing_required', ['content'], ['append'], '2025-03-01T11:00:02Z'],
  ['c6', 'T2', USER_A, 'm1', 3, 'write_file', 'write_file', 'repaired', 'unknown_parameter', [], ['append'], '2025-03-01T11:00:03Z'],
  ['c7', 'T3', USER_A, 'm2', 1, 'list_files', 'list_files', 'pass', 'valid', [], [], '2025-03-02T09:00:01Z'],
  ['c8', 'T3', USER_A, 'm2', 1, 'search_files', 'search_files', 'pass', 'execution_error', [], [], '2025-03-02T09:00:02Z'],
  ['c9', 'T3', USER_A, 'm2', 2, 'run_shell', null, 'blocked', 'phantom_tool', ['search_files'], [], '2025-03-02T09:00:03Z'],
  ['c10', 'T4', USER_B, 'm1', 1, 'run_shell', null, 'blocked', 'phantom_tool', [], [], '2025-03-02T12:00:01Z'],
  ['c11', 'T4', USER_B, 'm1', 2, 'run_shell', null, 'blocked', 'phantom_tool', [], [], '2025-03-02T12:00:02Z'],
  ['c12', 'T4', USER_B, 'm1', 2, 'write_file', 'write_file', 'repaired', 'unknown_parameter', [], ['append', 'line_end'], '2025-03-02T12:00:03Z'],
  // One reply of five calls (the loop breaker counts within a reply too): the same bad read_file three
  // times, then the same failing search twice.
  ['c13', 'T5', USER_B, 'm2', 1, 'read_file', null, 'blocked', 'missing_required', [], [], '2025-03-02T12:59:01Z'],
  ['c14', 'T5', USER_B, 'm2', 1, 'read_file', null, 'blocked', 'repeated_failure', [], [], '2025-03-02T12:59:02Z'],
  ['c15', 'T5', USER_B, 'm2', 1, 'read_file', null, 'blocked', 'repeated_failure', [], [], '2025-03-02T12:59:03Z'],
  ['c16', 'T5', USER_B, 'm2', 1, 'search_files', 'search_files', 'pass', 'execution_error', [], [], '2025-03-02T12:59:04Z'],
  ['c17', 'T5', USER_B, 'm2', 1, 'search_files', 'search_files', 'pass', 'repeated_failure', [], [], '2025-03-02T12:59:05Z'],
];

/**
 * What each model call (turn, iteration) cost: 60 prompt and 6 completion tokens, 300 ms, split over its
 * rows (src/calls/wasted.ts). Wasted (every call failed, no text): T1.1 T2.1 T2.2 T3.2 T4.1 T5.1.
 */
const MODEL_CALL = { promptTokens: 60, completionTokens: 6, ms: 300 };
const WASTED = new Set(['T1.1', 'T2.1', 'T2.2', 'T3.2', 'T4.1', 'T5.1']);

function costOf(turn: string, iteration: number, id: string) {
  const group = SPECS.filter((s) => s[1] === turn && s[4] === iteration).map((s) => s[0]);
  return costShares(MODEL_CALL, group.length, WASTED.has(`${turn}.${iteration}`))[group.indexOf(id)]!;
}

/** Ids are prefixed so that several suites can seed the same database without colliding. */
export function activityRows(prefix = ''): ActivityRow[] {
  return SPECS.map(([id, turn, user, model, iteration, requested, resolved, verdict, category, suggestions, invented, at]) => ({
    id: prefix + id,
    turn_id: prefix + turn,
    session_id: `${prefix}S-${user.slice(0, 1)}`,
    user_id: user,
    iteration,
    model,
    call_id: `call_${id}`,
    tool_requested: requested,
    tool_resolved: resolved,
    verdict,
    category,
    problems: verdict === 'blocked' ? [`${category} in ${requested}`] : [],
    repairs: verdict === 'repaired' ? [{ kind: 'drop', path: `$.${invented[0] ?? 'x'}`, category: 'unknown_parameter' }] : [],
    suggestions,
    invented_params: invented,
    arguments: '{"path":"a.txt"}',
    error: category === 'execution_error' || (category === 'repeated_failure' && verdict === 'pass') ? 'ENOENT' : null,
    duration_ms: 1.5,
    created_at: at,
    source: 'loop',
    tool_server: null,
    approval: null,
    protocol: null,
    mcp_protocol: null,
    elicitation: null,
    ...costOf(turn, iteration, id),
  }));
}

// prettier-ignore
const TURNS: Array<[id: string, user: string, model: string, outcome: TurnRow['outcome'], iterations: number, finished: string]> = [
  ['T1', USER_A, 'm1', 'completed', 2, '2025-03-01T10:01:00Z'],
  ['T2', USER_A, 'm1', 'no_progress', 3, '2025-03-01T11:01:00Z'],
  ['T3', USER_A, 'm2', 'aborted', 2, '2025-03-02T09:01:00Z'],
  ['T4', USER_B, 'm1', 'time_budget', 2, '2025-03-02T12:01:00Z'],
  ['T5', USER_B, 'm2', 'completed', 1, '2025-03-02T13:00:00Z'],
];

export function turnRows(prefix = ''): TurnRow[] {
  return TURNS.map(([id, user, model, outcome, iterations, finished]) => ({
    id: prefix + id,
    session_id: `${prefix}S-${user.slice(0, 1)}`,
    user_id: user,
    model,
    outcome,
    iterations,
    tool_calls: 3,
    prompt_tokens: 100,
    completion_tokens: 20,
    duration_ms: 60_000,
    started_at: new Date(Date.parse(finished) - 60_000).toISOString(),
    finished_at: finished,
    wasted_calls: 0,
    wasted_prompt_tokens: 0,
    wasted_completion_tokens: 0,
    wasted_ms: 0,
  }));
}

export const ALL_TIME = { from: '2025-03-01T00:00:00.000Z', to: '2025-03-03T00:00:00.000Z', bucket: 'day' as const };
export const DAY_2_HOURLY = { from: '2025-03-02T00:00:00.000Z', to: '2025-03-03T00:00:00.000Z', bucket: 'hour' as const };

/*
 * All users, both days.
 *   calls 17. hallucinated: every category but valid/execution_error, and repeated_failure unless its verdict
 *   is pass = c1 c3 c4 c5 c6 c9 c10 c11 c12 c13 c14 c15 = 12 (not c17) → 12/17.
 *   repaired c3 c6 c12 = 3 → 3/17. blocked c1 c4 c5 c9 c10 c11 c13 c14 c15 = 9.
 *   repeated failures c14 c15 c17 = 3, in 1 turn (T5).
 *   self-correction (retry = later iteration, same turn, same tool or a suggested one):
 *     c1  → first retry c2 (read_file is suggested) pass                  corrected on the first
 *     c4  → c5 blocked, then c6 repaired                                   corrected on the second
 *     c5  → c6 repaired                                                    corrected on the first
 *     c9  → nothing after iteration 2 in T3                                not corrected
 *     c10 → c11 blocked, no second retry (c12 is write_file)               not corrected
 *     c11 → nothing                                                        not corrected
 *     c13 c14 c15 → nothing after iteration 1 in T5                        not corrected
 *     first 2/9, within two retries 3/9.
 *   turns 5; forced summary T2 (no_progress) T4 = 0.4; aborted T3 = 0.2; iterations (2+3+2+2+1)/5 = 2.
 *   categories: phantom_tool 4, missing_required 3, repeated_failure 3, unknown_parameter 3, execution_error 2, valid 2.
 *   phantom: run_shell 3, read_fille 1.
 *   invented (tool = resolved ?? requested, all write_file): append c3 c4 c5 c6 c12 = 5 → candidate; line_end, mode, overwrite 1.
 *   per day and model: 03-01 m1: c1..c6 = 6 calls, 5 hallucinated (c2 valid); 03-02 m1: c10..c12 = 3, 3;
 *   03-02 m2: c7..c9 c13..c17 = 8, 4 (c9 c13 c14 c15).
 *   per tool (calls desc, then name): write_file 5/5, read_file 4/3, run_shell 3/3, search_files 3/0, list_files 1/0, read_fille 1/1.
 */
export const EXPECTED_ALL = {
  totals: {
    calls: 17,
    hallucinated: 12,
    hallucinationRate: 12 / 17,
    repaired: 3,
    repairRate: 3 / 17,
    blocked: 9,
    repeatedFailures: 3,
    repeatedFailureTurns: 1,
    turns: 5,
    forcedSummaryRate: 0.4,
    abortedRate: 0.2,
    interrupted: 0,
    interruptedRate: 0,
    noProgress: 1,
    avgIterations: 2,
  },
  ratesOverTime: [
    { bucket: '2025-03-01T00:00:00Z', model: 'm1', calls: 6, hallucinated: 5, rate: 5 / 6 },
    { bucket: '2025-03-02T00:00:00Z', model: 'm1', calls: 3, hallucinated: 3, rate: 1 },
    { bucket: '2025-03-02T00:00:00Z', model: 'm2', calls: 8, hallucinated: 4, rate: 0.5 },
  ],
  byTool: [
    { tool: 'write_file', calls: 5, hallucinated: 5, rate: 1 },
    { tool: 'read_file', calls: 4, hallucinated: 3, rate: 0.75 },
    { tool: 'run_shell', calls: 3, hallucinated: 3, rate: 1 },
    { tool: 'search_files', calls: 3, hallucinated: 0, rate: 0 },
    { tool: 'list_files', calls: 1, hallucinated: 0, rate: 0 },
    { tool: 'read_fille', calls: 1, hallucinated: 1, rate: 1 },
  ],
  categories: [
    { category: 'phantom_tool', count: 4 },
    { category: 'missing_required', count: 3 },
    { category: 'repeated_failure', count: 3 },
    { category: 'unknown_parameter', count: 3 },
    { category: 'execution_error', count: 2 },
    { category: 'valid', count: 2 },
  ],
  phantomTools: [
    { name: 'run_shell', count: 3 },
    { name: 'read_fille', count: 1 },
  ],
  inventedParams: [
    { tool: 'write_file', param: 'append', count: 5, candidate: true },
    { tool: 'write_file', param: 'line_end', count: 1, candidate: false },
    { tool: 'write_file', param: 'mode', count: 1, candidate: false },
    { tool: 'write_file', param: 'overwrite', count: 1, candidate: false },
  ],
  selfCorrection: { blocked: 9, correctedFirstRetry: 2, correctedSecondRetry: 3, rateFirst: 2 / 9, rateSecond: 3 / 9 },
  /*
   * 6 wasted model calls of 66 tokens and 300 ms: 360 + 36 tokens, 1,800 ms, of 5 turns × 120 tokens = 600.
   * T5.1's five rows take 12 prompt tokens, 60 ms each and 2, 1, 1, 1, 1 completion tokens (c13 first).
   * by model: m1 c1 c4 c5 c10; m2 c9 c13..c17. by category: phantom_tool c1 c9 c10, missing_required
   * c4 c5 c13, repeated_failure c14 c15 c17, execution_error c16. by tool: run_shell c9 c10 and write_file
   * c4 c5 (a tie: by name), read_fille c1, read_file c13..c15, search_files c16 c17.
   */
  failureCost: {
    wastedModelCalls: 6,
    promptTokens: 360,
    completionTokens: 36,
    ms: 1800,
    totalTokens: 600,
    share: 396 / 600,
    byModel: [
      { key: 'm1', calls: 4, promptTokens: 240, completionTokens: 24, ms: 1200, share: 264 / 600 },
      { key: 'm2', calls: 6, promptTokens: 120, completionTokens: 12, ms: 600, share: 132 / 600 },
    ],
    byCategory: [
      { key: 'phantom_tool', calls: 3, promptTokens: 180, completionTokens: 18, ms: 900, share: 198 / 600 },
      { key: 'missing_required', calls: 3, promptTokens: 132, completionTokens: 14, ms: 660, share: 146 / 600 },
      { key: 'repeated_failure', calls: 3, promptTokens: 36, completionTokens: 3, ms: 180, share: 39 / 600 },
      { key: 'execution_error', calls: 1, promptTokens: 12, completionTokens: 1, ms: 60, share: 13 / 600 },
    ],
    byTool: [
      { key: 'run_shell', calls: 2, promptTokens: 120, completionTokens: 12, ms: 600, share: 132 / 600 },
      { key: 'write_file', calls: 2, promptTokens: 120, completionTokens: 12, ms: 600, share: 132 / 600 },
      { key: 'read_fille', calls: 1, promptTokens: 60, completionTokens: 6, ms: 300, share: 66 / 600 },
      { key: 'read_file', calls: 3, promptTokens: 36, completionTokens: 4, ms: 180, share: 40 / 600 },
      { key: 'search_files', calls: 2, promptTokens: 24, completionTokens: 2, ms: 120, share: 26 / 600 },
    ],
  },
};

/*
 * User A only (RLS as A, or p_user = A): c1..c9, turns T1 T2 T3.
 *   calls 9, hallucinated c1 c3 c4 c5 c6 c9 = 6 → 2/3; repaired c3 c6 = 2/9; blocked c1 c4 c5 c9 = 4.
 *   self-correction: c1 first, c4 second, c5 first, c9 none → 2/4, 3/4.
 *   turns 3: forced T2 = 1/3, aborted T3 = 1/3, iterations (2+3+2)/3 = 7/3.
 *   phantom: read_fille 1, run_shell 1 (tie: by name). append invented 4 times: not yet a candidate.
 */
export const EXPECTED_USER_A = {
  totals: {
    calls: 9,
    hallucinated: 6,
    hallucinationRate: 6 / 9,
    repaired: 2,
    repairRate: 2 / 9,
    blocked: 4,
    repeatedFailures: 0,
    repeatedFailureTurns: 0,
    turns: 3,
    forcedSummaryRate: 1 / 3,
    abortedRate: 1 / 3,
    interrupted: 0,
    interruptedRate: 0,
    noProgress: 1,
    avgIterations: 7 / 3,
  },
  phantomTools: [
    { name: 'read_fille', count: 1 },
    { name: 'run_shell', count: 1 },
  ],
  appendCount: 4,
  selfCorrection: { blocked: 4, correctedFirstRetry: 2, correctedSecondRetry: 3, rateFirst: 0.5, rateSecond: 0.75 },
};

/*
 * Day 2, hourly, all users: c7..c17, turns T3 T4 T5.
 *   09:00 m2: c7 c8 c9 = 3 calls, 1 hallucinated; 12:00 m1: c10 c11 c12 = 3, 3; 12:00 m2: c13..c17 = 5, 3.
 *   repeated failures c14 c15 c17 = 3, in T5.
 *   turns 3: forced T4 = 1/3, aborted T3 = 1/3, iterations (2+2+1)/3 = 5/3.
 */
export const EXPECTED_DAY_2_HOURLY = {
  ratesOverTime: [
    { bucket: '2025-03-02T09:00:00Z', model: 'm2', calls: 3, hallucinated: 1, rate: 1 / 3 },
    { bucket: '2025-03-02T12:00:00Z', model: 'm1', calls: 3, hallucinated: 3, rate: 1 },
    { bucket: '2025-03-02T12:00:00Z', model: 'm2', calls: 5, hallucinated: 3, rate: 0.6 },
  ],
  totals: {
    calls: 11,
    hallucinated: 7,
    repeatedFailures: 3,
    repeatedFailureTurns: 1,
    turns: 3,
    forcedSummaryRate: 1 / 3,
    abortedRate: 1 / 3,
    avgIterations: 5 / 3,
  },
};
