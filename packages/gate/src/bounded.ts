// Every string and list of a verdict that the model's input can make long, bounded once on the way
// out of gate(). A verdict travels far: its repairs go into the tool_result event and the activity
// row, its invented names into the row (and the dashboard's feature requests), its problems into the
// row. A megabyte-long parameter name, or 8,000 invented ones, must cost a few KB there, not megabytes.
// Strings are cut with `echo` (message.ts) only when they are too long, so that a short name or value
// keeps its exact spelling (two spaces stay two spaces); lists keep their first entries and, where a
// reader would otherwise miss what was left out, one more entry that says how many.
import { formatCount } from './limits.ts';
import { echo, MAX_ECHO, MAX_NAME, MAX_PROBLEM } from './message.ts';
import type { Problem, Repair, Verdict } from './types.ts';

/** Most entries of a list in a verdict (repairs, problems, invented names). */
export const MAX_LISTED = 20;
/** Most entries of a blocked path's folder listing. */
export const MAX_LISTING_ENTRIES = 50;
/** A suggestion the model is meant to copy (an existing path can be long): cut only past this. */
const MAX_SUGGESTION = 1000;

/** `text` as it is when it is at most `max` characters, else `echo`'s one-line cut that says its length. */
export function bound(text: string, max: number): string {
  return text.length <= max ? text : echo(text, max);
}

export function boundedNames(names: readonly string[]): string[] {
  return names.slice(0, MAX_LISTED).map((n) => bound(n, MAX_NAME));
}

export function boundedRepairs(repairs: readonly Repair[]): Repair[] {
  return capped(repairs, boundedRepair, (rest, next) => ({
    kind: 'omitted',
    path: '$',
    to: `${formatCount(rest)} more repairs of this call, not listed`,
    category: next.category,
  }));
}

/** The first MAX_LISTED entries, mapped; past that one fewer and a last entry (`note`) saying how many more. */
function capped<T>(list: readonly T[], map: (entry: T) => T, note: (rest: number, next: T) => T): T[] {
  const over = list.length > MAX_LISTED;
  const out = list.slice(0, over ? MAX_LISTED - 1 : MAX_LISTED).map(map);
  if (over) out.push(note(list.length - out.length, list[out.length]!));
  return out;
}

function boundedRepair(r: Repair): Repair {
  const out: Repair = { ...r, path: bound(r.path, MAX_NAME) };
  if (r.from !== undefined) out.from = bound(r.from, MAX_ECHO);
  if (r.to !== undefined) out.to = bound(r.to, MAX_ECHO);
  return out;
}

export function boundedProblems(problems: readonly Problem[]): Problem[] {
  return capped(
    problems,
    (p) => ({ ...p, path: bound(p.path, MAX_NAME), message: bound(p.message, MAX_PROBLEM) }),
    (rest, next) => ({ category: next.category, path: '$', message: `… and ${formatCount(rest)} more problems, not listed` }),
  );
}

/** The verdict with every model-sized string and list bounded (see the top of this file). */
export function boundedVerdict(v: Verdict): Verdict {
  // No invented name (nearly every call): nothing to bound, and no copy of an empty list.
  const invented = v.invented.length === 0 ? v.invented : boundedNames(v.invented);
  if (v.verdict === 'pass') return { ...v, invented };
  if (v.verdict === 'repaired') return { ...v, invented, repairs: boundedRepairs(v.repairs) };
  const out = { ...v, invented, problems: boundedProblems(v.problems), suggestions: v.suggestions.map((s) => bound(s, MAX_SUGGESTION)) };
  if (v.listing) {
    out.listing = { folder: bound(v.listing.folder, MAX_SUGGESTION), entries: v.listing.entries.slice(0, MAX_LISTING_ENTRIES).map((e) => bound(e, MAX_NAME)) };
  }
  return out;
}
