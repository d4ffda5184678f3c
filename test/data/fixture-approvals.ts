// Calls sent to a person for the dashboard tests (agent_approvals rows, as the loop's pause writes
// them), on the hand-worked fixture's turns, with their decisions and times; the figures worked by hand.
import type { ApprovalFigures } from '../../src/dashboard/types.ts';
import { USER_A, USER_B } from './fixture.ts';

/*
 *      turn user tool             status    asked                decided after
 *   a1 T1   A    delete_file      approved  2025-03-01 10:00:00  10 s
 *   a2 T2   A    delete_file      denied    2025-03-01 11:00:00  30 s
 *   a3 T3   A    crm__send_email  approved  2025-03-02 09:00:00  60 s
 *   a4 T4   B    delete_file      expired   2025-03-02 12:00:00  15 min (the clock, not a person)
 *   a5 T4   B    crm__send_email  denied    2025-03-02 12:01:00  20 s
 *   a6 T5   B    delete_file      pending   2025-03-02 12:59:00  -
 * All: 6 asked; 2 approved of the 5 ended = 0.4; decisions 10, 20, 30, 60 s: median 25 s (the expiry
 * is no decision); denied: crm__send_email 1 of 2, delete_file 1 of 4 (a tie: by name).
 * User A: a1..a3, 2 of 3 approved, median of 10, 30, 60 s = 30 s. Day 2: a3..a6, 1 of 3 ended
 * approved, median of 60 and 20 s = 40 s.
 */
const APPROVALS: Array<[id: string, turn: string, user: string, tool: string, status: string, asked: string, decidedAfterMs: number | null]> = [
  ['a1', 'T1', USER_A, 'delete_file', 'approved', '2025-03-01T10:00:00Z', 10_000],
  ['a2', 'T2', USER_A, 'delete_file', 'denied', '2025-03-01T11:00:00Z', 30_000],
  ['a3', 'T3', USER_A, 'crm__send_email', 'approved', '2025-03-02T09:00:00Z', 60_000],
  ['a4', 'T4', USER_B, 'delete_file', 'expired', '2025-03-02T12:00:00Z', 900_000],
  ['a5', 'T4', USER_B, 'crm__send_email', 'denied', '2025-03-02T12:01:00Z', 20_000],
  ['a6', 'T5', USER_B, 'delete_file', 'pending', '2025-03-02T12:59:00Z', null],
  // MCP servers' questions (inp_ ids): counted apart, as questions, never as approvals.
  ['inp_q1', 'T1', USER_A, 'shop__confirm_order', 'approved', '2025-03-01T13:00:00Z', 5_000],
  ['inp_q2', 'T4', USER_B, 'shop__confirm_order', 'denied', '2025-03-02T13:00:00Z', 8_000],
];

/** The questions of the fixture (docs/approval.md § A server's question), all time. */
export const EXPECTED_QUESTIONS_ALL = { asked: 2, answered: 1, declined: 1, expired: 0, pending: 0 };

/** One insert per approval: `$1…$11` parameters, for PGlite's query and postgres' unsafe alike. */
export function approvalInserts(): Array<{ text: string; params: Array<string | null> }> {
  return APPROVALS.map(([id, turn, user, tool, status, asked, after]) => {
    const at = Date.parse(asked);
    return {
      text: `insert into public.agent_approvals (id, turn_id, session_id, user_id, tool_call_id, tool_name, arguments, args_hash, status, reason, created_at, expires_at, decided_at)
       values ($1, $2, $3, $4, $5, $6, '{"path": "x"}', 'h', $7, $8, $9, $10, $11)`,
      params: [
        id,
        turn,
        `S-${turn}`,
        user,
        `call_${id}`,
        tool,
        status,
        status === 'denied' ? 'not now' : null,
        asked,
        new Date(at + 900_000).toISOString(),
        after === null ? null : new Date(at + after).toISOString(),
      ],
    };
  });
}

export const EXPECTED_APPROVALS_ALL: ApprovalFigures = {
  requested: 6,
  approved: 2,
  denied: 2,
  expired: 1,
  pending: 1,
  approvalRate: 0.4,
  medianDecisionMs: 25_000,
  deniedByTool: [
    { tool: 'crm__send_email', denied: 1, requested: 2 },
    { tool: 'delete_file', denied: 1, requested: 4 },
  ],
};

export const EXPECTED_APPROVALS_USER_A: ApprovalFigures = {
  requested: 3,
  approved: 2,
  denied: 1,
  expired: 0,
  pending: 0,
  approvalRate: 2 / 3,
  medianDecisionMs: 30_000,
  deniedByTool: [{ tool: 'delete_file', denied: 1, requested: 2 }],
};
