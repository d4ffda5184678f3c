// What the call pieces (call-outcome.ts, activity-row.ts) say of a call, as plain
// data: what the gate decided, what running it gave, how the loop breaker escalated a repeat. The loop
// produces them (execute.ts, loop-breaker.ts) and the gateway reuses the pieces, so the types live
// here, below both, rather than in the loop the gateway must not import.
import type { JSONSchema, Verdict } from 'rebound-gate';
import type { FileDiff } from '../vocabulary.ts';

export type BlockedVerdict = Extract<Verdict, { verdict: 'blocked' }>;
export type PassedVerdict = Exclude<Verdict, { verdict: 'blocked' }>;

/** What running one tool gave (loop/execute.ts). */
export type Execution =
  /**
   * `result` is bounded (calls/bounded-result.ts: past 40,000 characters of JSON, the start of its JSON
   * and `truncated`, which says the original length); `json` is it as JSON text (a tool returning
   * nothing gives "null"); `diffs`, for the page only, are not in it. `error` is cut too (2,000 characters).
   */
  { ok: true; result: unknown; json: string; truncated?: string; diffs?: FileDiff[] } | { ok: false; error: string; hint: string; timedOut: boolean };

/** How the loop breaker (loop/loop-breaker.ts) answers a failure that repeats an earlier one of the turn. */
export interface Escalation {
  /** How many times this identical call has failed in this turn, this one included (2 or more). */
  repeats: number;
  /** This failure withheld the tool for the rest of the turn. */
  withheld: boolean;
  /** What to tell the model, after the failure's own message. */
  note: string;
  /** The tool's parameters and one valid set of arguments, on the escalation that shows them: added to the tool message. */
  shown?: { schema: JSONSchema; example: unknown };
}
