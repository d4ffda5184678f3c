// The activity rows of the gateway's calls: one per gated call and attempt, built by the loop's own
// row builder (calls/activity-row.ts), so both sources mean the same thing by each column. A gateway
// request has no session or turn: turn_id and session_id hold the request's id, iteration the attempt,
// source 'gateway'
// (supabase/migrations/20261123000300_activity_source.sql).
import type { ActivityWriter } from '../activity/types.ts';
import { activityRow } from '../calls/activity-row.ts';
import { costShares, isWasted } from '../calls/wasted.ts';
import { isPlainObject } from 'rebound-gate/internal';
import type { GatedCall } from './gated-call.ts';
import type { GatewayProtocol } from '../vocabulary.ts';

export interface RequestContext {
  requestId: string;
  userId: string | null;
  /** The model name sent upstream. */
  model: string;
  /** The protocol the client spoke. */
  protocol: GatewayProtocol;
}

/** What an attempt said besides its calls: its visible text and the upstream's usage object. */
export interface AttemptSaid {
  text: string | null;
  usage: unknown;
}

/** One attempt of a request: its number (1-based), the calls its answer held, as gated, what else it said, and its wall time. */
export interface Attempt extends Partial<AttemptSaid> {
  attempt: number;
  calls: readonly GatedCall[];
  ms?: number;
}

/**
 * One row per gated call of an attempt, each with its share of the attempt's cost (src/calls/wasted.ts):
 * an attempt whose every call was blocked and that said nothing is wasted (the gateway then retries it,
 * or hands the blocked calls on), so the usage of its retries is on these rows.
 */
export function recordAttempt(activity: ActivityWriter, ctx: RequestContext, { attempt, calls, text = null, usage, ms = 0 }: Attempt): void {
  const call = { turnId: ctx.requestId, sessionId: ctx.requestId, userId: ctx.userId, iteration: attempt, model: ctx.model, source: 'gateway' as const };
  const reported = isPlainObject(usage) ? usage : {};
  const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0);
  const cost = { promptTokens: count(reported.prompt_tokens), completionTokens: count(reported.completion_tokens), ms };
  const wasted = isWasted(
    calls.map((g) => g.verdict.verdict === 'blocked'),
    text,
  );
  const shares = costShares(cost, calls.length, wasted);
  for (const [i, g] of calls.entries()) {
    const gated = { call: g.proposed, durationMs: g.gateMs };
    // A call that passed is handed on to the client, which runs it; a blocked one is re-asked.
    activity.recordCall({
      ...activityRow(
        call,
        g.verdict.verdict === 'blocked'
          ? { kind: 'blocked', ...gated, verdict: g.verdict, escalation: null }
          : { kind: 'handed_on', ...gated, verdict: g.verdict },
      ),
      ...shares[i],
      protocol: ctx.protocol,
    });
  }
}
