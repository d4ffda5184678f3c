// What a tool changed in the workspace travels beside its result: the page shows it as a diff in the
// tool card, the model never reads it (it has the tool's own summary, and a diff of every write would
// cost tokens on every later turn). A tool of this app puts the diffs under one key of its result
// (withDiffs); the loop takes them off before the tool message is written (takeDiffs, in
// loop/execute.ts) and sends them on the tool_result event.
import { isPlainObject } from 'rebound-gate/internal';
import type { FileDiff } from '../vocabulary.ts';

const DIFFS_KEY = '_diffs';

/** `result` with `diffs` for the page; an empty list adds nothing. */
export function withDiffs(result: Record<string, unknown>, diffs: FileDiff[]): Record<string, unknown> {
  return diffs.length > 0 ? { ...result, [DIFFS_KEY]: diffs } : result;
}

/** The result as the model reads it, and the diffs that were on it (null when there were none). */
export function takeDiffs(result: unknown): { result: unknown; diffs: FileDiff[] | null } {
  if (!isPlainObject(result) || !(DIFFS_KEY in result)) return { result, diffs: null };
  const { [DIFFS_KEY]: diffs, ...rest } = result;
  return { result: rest, diffs: Array.isArray(diffs) && diffs.length > 0 ? (diffs as FileDiff[]) : null };
}
