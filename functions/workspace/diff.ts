// What a write, patch or delete did to a file, as the chat page shows it in the tool card: a unified
// diff of the text before and after (3 lines of context), capped so that a rewrite of a large file
// stays a small event. The lines are matched with Myers' algorithm after trimming the common start
// and end (a patch touches a few lines of a long file), within a budget of edits: past it the changed
// middle is shown as removed, then added, which is still a correct diff, only a longer one.
import type { WorkspaceFile } from '../../src/store/types.ts';
import type { FileDiff } from '../../src/vocabulary.ts';
import { fileText, splitLines } from './text.ts';

/** Lines of hunks (headers included) one file's diff shows; the rest are counted in `omitted`. */
export const MAX_DIFF_LINES = 400;
/** A longer line is cut, with "…", in the diff (not in the file). */
export const MAX_LINE_CHARS = 400;
/** Myers' search stops past this many inserted plus deleted lines (its memory grows with their square). */
const MAX_EDITS = 1_000;
/** A changed middle longer than this is shown as replaced without a search. */
const MAX_MIDDLE_LINES = 20_000;
const CONTEXT = 3;

type Op = { kind: ' ' | '-' | '+'; text: string };

/** The diff of one file, `before` null when it was created, `after` null when it was deleted. */
export function fileDiff(
  path: string,
  before: Pick<WorkspaceFile, 'content' | 'encoding'> | null,
  after: Pick<WorkspaceFile, 'content' | 'encoding'> | null,
): FileDiff {
  const change = before === null ? 'created' : after === null ? 'deleted' : 'modified';
  const beforeText = before === null ? '' : fileText(before);
  const afterText = after === null ? '' : fileText(after);
  if (beforeText === null || afterText === null) return { path, change, added: 0, removed: 0, hunks: '', binary: true };
  const ops = diffLines(splitLines(beforeText), splitLines(afterText));
  const added = ops.filter((o) => o.kind === '+').length;
  const removed = ops.filter((o) => o.kind === '-').length;
  const lines = hunks(ops);
  const shown = lines.slice(0, MAX_DIFF_LINES);
  return {
    path,
    change,
    added,
    removed,
    hunks: shown.join('\n'),
    ...(lines.length > shown.length ? { omitted: lines.length - shown.length } : {}),
  };
}

/** The edit script from `a` to `b`: every line of both, in order, as kept, removed or added. */
export function diffLines(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const keep = (lines: string[]): Op[] => lines.map((text) => ({ kind: ' ', text }));
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  return [...keep(a.slice(0, start)), ...middle, ...keep(a.slice(endA))];
}

/**
 * Myers' O((N+M)·D) shortest edit script. Past MAX_EDITS (or on a middle of over MAX_MIDDLE_LINES), all
 * of `a` removed then all of `b` added.
 */
function myers(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const replaced = (): Op[] => [...a.map((text): Op => ({ kind: '-', text })), ...b.map((text): Op => ({ kind: '+', text }))];
  if (n === 0 || m === 0 || n + m > MAX_MIDDLE_LINES) return replaced();
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // Before step d, the part of v that step reads (k from -d-1 to d+1): what backtracking needs, in O(D²) space.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, d);
    }
  }
  return replaced();
}

function backtrack(trace: Int32Array[], a: string[], b: string[], dEnd: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  const keep = () => {
    x--;
    y--;
    ops.push({ kind: ' ', text: a[x]! });
  };
  for (let d = dEnd; d > 0; d--) {
    const saved = trace[d]!;
    const at = (k: number) => saved[k + d + 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) keep();
    if (down) ops.push({ kind: '+', text: b[--y]! });
    else ops.push({ kind: '-', text: a[--x]! });
  }
  while (x > 0 && y > 0) keep();
  return ops.reverse();
}

/** Unified-diff hunks: each change with CONTEXT lines around it, close changes sharing a hunk. */
function hunks(ops: Op[]): string[] {
  const out: string[] = [];
  const changed = ops.map((o, i) => (o.kind === ' ' ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return out;
  // Line numbers before each op, in the old and the new file.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const o of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (o.kind !== '+') oldLine++;
    if (o.kind !== '-') newLine++;
  }
  let i = 0;
  while (i < changed.length) {
    const from = Math.max(0, changed[i]! - CONTEXT);
    let last = changed[i]!;
    while (i + 1 < changed.length && changed[i + 1]! - last <= 2 * CONTEXT + 1) last = changed[++i]!;
    i++;
    const to = Math.min(ops.length, last + CONTEXT + 1);
    const slice = ops.slice(from, to);
    const oldCount = slice.filter((o) => o.kind !== '+').length;
    const newCount = slice.filter((o) => o.kind !== '-').length;
    // As diff -u writes them: a range of no lines starts at the line before it.
    const oldStart = oldCount === 0 ? oldAt[from]! - 1 : oldAt[from]!;
    const newStart = newCount === 0 ? newAt[from]! - 1 : newAt[from]!;
    out.push(`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`);
    for (const o of slice) out.push(o.kind + clip(o.text));
  }
  return out;
}

const range = (start: number, count: number) => (count === 1 ? String(start) : `${start},${count}`);
const clip = (text: string) => (text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS - 1)}…` : text);
