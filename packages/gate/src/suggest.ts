// Suggestions worth reading. A blocked call's message offers at most three candidates, best first;
// a runner-up far below the best is noise the model (and the user reading along) has to rule out:
// told `list_files` and `save_memory` for `list_directory`, it may take the second. So every list
// of candidates (tool names, parameter names, enum values, paths) is cut the same way: a runner-up
// stays only when it scores within a fixed share of the best one.

/** A runner-up must score at least this share of the best candidate's score to be offered. */
export const RUNNER_UP_SHARE = 0.8;
export const MAX_SUGGESTIONS = 3;

/** The candidates worth offering from a list ranked best first: at most `limit`, none far below the first. */
export function worthOffering<T>(ranked: readonly T[], score: (candidate: T) => number, limit = MAX_SUGGESTIONS): T[] {
  if (ranked.length === 0) return [];
  const floor = score(ranked[0]!) * RUNNER_UP_SHARE;
  const out: T[] = [];
  for (const c of ranked) {
    if (out.length >= limit || score(c) < floor) break;
    out.push(c);
  }
  return out;
}
