// What failures cost, on one pinned formula for the loop and the gateway (issue 24; docs/dashboard.md §
// What failures cost, supabase/migrations/20261125000400_failure_cost.sql):
//   A model call is WASTED when it proposed at least one tool call, every call it proposed failed
//   (blocked by the gate, refused as withheld, denied, or run and errored), and it gave no answer
//   text (its visible text is empty or white space).
//   Its cost is its prompt and completion tokens (as the provider reported them, retries of that one
//   call included) and its wall time in ms (request to last chunk). Each of its calls' activity rows
//   carries an equal share of that cost (whole numbers; the remainder goes to the first rows, so the
//   rows of one model call add up to it exactly) and `wasted = true`. A call of a model call that was
//   not wasted carries its share too, with `wasted = false`: the dashboard divides wasted tokens by all.
//   A turn (agent_turns) adds up its wasted model calls: their count, tokens and ms.

/** The cost of one model call. */
export interface ModelCallCost {
  promptTokens: number;
  completionTokens: number;
  ms: number;
}

/** One activity row's part of its model call's cost: the agent_activity columns. */
export interface CostShare {
  prompt_tokens: number;
  completion_tokens: number;
  model_ms: number;
  wasted: boolean;
}

/** The formula above: `failed[i]` says whether the i-th proposed call failed; `text` is the call's visible text. */
export function isWasted(failed: readonly boolean[], text: string | null | undefined): boolean {
  return failed.length > 0 && failed.every(Boolean) && (text ?? '').trim() === '';
}

/** The cost split over `n` rows, the remainder on the first ones. */
export function costShares(cost: ModelCallCost, n: number, wasted: boolean): CostShare[] {
  const split = (total: number) => {
    const whole = Math.max(0, Math.round(total));
    const base = Math.floor(whole / n);
    return (i: number) => base + (i < whole - base * n ? 1 : 0);
  };
  const p = split(cost.promptTokens);
  const c = split(cost.completionTokens);
  const m = split(cost.ms);
  return Array.from({ length: n }, (_, i) => ({ prompt_tokens: p(i), completion_tokens: c(i), model_ms: m(i), wasted }));
}
