// The activity rows of the gateway's calls: one per gated call and attempt, built by the loop's own
// row builder (calls/activity-row.ts), so both sources mean the same thing by each column. A gateway
// request has no session or turn: turn_id and session_id hold the request's id, iteration the attempt,
// source 'gateway'
// (supabase/migrations/20261123000300_activity_source.sql).
import type { ActivityWriter } from '../activity/types.ts';
import { activityRow } from '../calls/activity-row.ts';
import type { GatedCall } from './gated-call.ts';

export interface RequestContext {
  requestId: string;
  userId: string | null;
  /** The model name sent upstream. */
  model: string;
}

/** One attempt of a request: its number (1-based) and the calls its answer held, as gated. */
export interface Attempt {
  attempt: number;
  calls: readonly GatedCall[];
}

export function recordAttempt(activity: ActivityWriter, ctx: RequestContext, { attempt, calls }: Attempt): void {
  const call = { turnId: ctx.requestId, sessionId: ctx.requestId, userId: ctx.userId, iteration: attempt, model: ctx.model, source: 'gateway' as const };
  for (const g of calls) {
    const gated = { call: g.proposed, durationMs: g.gateMs };
    // A call that passed is handed on to the client, which runs it; a blocked one is re-asked.
    activity.recordCall(
      activityRow(
        call,
        g.verdict.verdict === 'blocked'
          ? { kind: 'blocked', ...gated, verdict: g.verdict, escalation: null }
          : { kind: 'handed_on', ...gated, verdict: g.verdict },
      ),
    );
  }
}
