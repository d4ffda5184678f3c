// Bounds a JSON body's work before JSON.parse builds it. Parsing is the expensive part of a hostile
// body: 4 MB of `{}` is 1.4 million objects, 0.4–0.8 s of JSON.parse on this machine before a single
// field is checked, and a schema validator then reports each of them. One pass over the text (strings
// skipped with indexOf) counts what the route bounds, and stops at the first count past its limit, so
// a refused body costs at most its limit's worth of scanning:
//   - the members of the arrays at given paths (`messages`, `messages.*.content`): the gateway's
//     documented counts;
//   - the values in the body (each object, array and member), whatever their path: no field a route
//     forwards unread can make the parse itself long;
//   - `keepLast`: a top-level array of which only the last member is read (useChat sends the whole
//     conversation; the server reads its last message): the others are skipped unbuilt, and the text
//     that is parsed holds the last one alone.
// And, asked for, the text of each member of one top-level array as the body sent it (`membersOf`: the
// gateway's tools, which it keeps by that text between requests, src/gateway/tool-specs.ts).
// It is not a JSON validator: JSON.parse still reads the text it returns. It finds what it needs
// (strings, brackets, commas, keys) and reports unbalanced brackets or an unterminated string itself,
// which JSON.parse would only find after building everything before them.

export interface JsonBounds {
  /** Most members of the arrays at these paths: top-level keys, `*` for any member of an array (`messages.*.content`). */
  maxItems?: Record<string, number>;
  /** Most values (objects, arrays and their members) in the text that is parsed. */
  maxValues?: number;
  /** A top-level key whose array is cut to its last member before parsing. */
  keepLast?: string;
  /** A top-level key whose array's members' text the scan hands back (Scan `members`). */
  membersOf?: string;
}

export type Scan =
  | {
      ok: true;
      /** The text to parse: the body, or with `keepLast` its array cut to the last member. */
      text: string;
      /** With `keepLast`: the members skipped before the one kept (its index in the original array). */
      skipped: number;
      /**
       * With `membersOf`: the text of each member of that key's array, as JSON.parse reads the key (the
       * last when it repeats), when each member is an object or an array; undefined otherwise (no such
       * array, another value, a member that is neither).
       */
      members?: string[] | undefined;
    }
  | { ok: false; kind: 'items'; path: string; max: number }
  | { ok: false; kind: 'values'; max: number }
  | { ok: false; kind: 'malformed'; reason: string };

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The paths a scan names and the depth it can reach open, worked out once per route's bounds (the routes pass constants). */
interface Plan {
  named: Set<string>;
  slots: number;
}

const plans = new WeakMap<Record<string, number>, Map<string, Plan>>();
const NO_ITEMS: Record<string, number> = {};

function planOf(maxItems: Record<string, number>, keepLast: string | undefined, membersOf: string | undefined): Plan {
  let byKeys = plans.get(maxItems);
  if (!byKeys) {
    byKeys = new Map();
    plans.set(maxItems, byKeys);
  }
  const planKey = `${keepLast ?? ''}\u0000${membersOf ?? ''}`;
  const kept = byKeys.get(planKey);
  if (kept) return kept;
  // The paths worth naming: those limited and their prefixes (`messages.*.content` needs `messages` and
  // `messages.*`). A container under any other path gets none, and costs no string.
  // Any other container is skipped whole (skip()), so only named ones are open in this loop.
  const named = new Set<string>(['']);
  let slots = 1;
  for (const path of [...Object.keys(maxItems), ...(keepLast ? [keepLast] : []), ...(membersOf ? [membersOf] : [])]) {
    const parts = path.split('.');
    slots = Math.max(slots, parts.length + 1);
    for (let n = 1; n <= parts.length; n++) named.add(parts.slice(0, n).join('.'));
  }
  const plan = { named, slots };
  byKeys.set(planKey, plan);
  return plan;
}

export function scanJson(text: string, bounds: JsonBounds): Scan {
  const maxItems = bounds.maxItems ?? NO_ITEMS;
  const maxValues = bounds.maxValues ?? Number.POSITIVE_INFINITY;
  const { membersOf } = bounds;
  const { named, slots } = planOf(maxItems, bounds.keepLast, membersOf);
  // The open containers, one slot per depth: whether each is an array, its members so far and their
  // cap, whether an object's next string is a key and its last key, and its path.
  const isArray = new Uint8Array(slots);
  const items = new Float64Array(slots);
  const max = new Float64Array(slots);
  const expectKey = new Uint8Array(slots);
  const paths: Array<string | null> = [];
  const keys: Array<string | null> = [];
  /** An array's members' path, worked out once when it opens. */
  const memberPaths: Array<string | null> = [];
  let depth = 0;
  let values = 0;
  /** The spans left out of the text to parse: the members before the last of each keepLast array. */
  const cuts: Array<{ from: number; to: number }> = [];
  let skipped = 0;
  /** `membersOf`'s array while it is open (its members' text so far; null: none open, or a member that is no container), and the last one's, closed. */
  let collecting: string[] | null = null;
  let members: string[] | undefined;

  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    const d = depth - 1; // the innermost open container's slot
    // The first member of an array starts at its first non-space character that does not close it.
    if (d >= 0 && isArray[d] === 1 && items[d] === 0 && c !== 0x5d) {
      items[d] = 1;
      if (1 > max[d]!) return { ok: false, kind: 'items', path: paths[d]!, max: max[d]! };
    }
    if (c === 0x22) {
      // A string: skip to its closing quote (one not preceded by an odd run of backslashes).
      const start = i;
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end < 0) return { ok: false, kind: 'malformed', reason: `a string opened at position ${start} is never closed` };
        let slashes = 0;
        for (let k = end - 1; text.charCodeAt(k) === 0x5c; k--) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
      if (d >= 0 && isArray[d] === 0 && expectKey[d] === 1) {
        expectKey[d] = 0;
        if (paths[d] !== null) keys[d] = keyOf(text, start, i);
        // The key again: its earlier array is not what JSON.parse keeps (its value now may be no array).
        if (d === 0 && keys[0] === membersOf) members = undefined;
      }
      continue;
    }
    switch (c) {
      case 0x7b: // {
      case 0x5b: {
        // [
        values++;
        const array = c === 0x5b;
        let path: string | null = null;
        if (depth === 0) path = '';
        else if (isArray[d] === 1) path = memberPaths[d]!;
        else if (paths[d] != null) path = childPath(named, paths[d]!, keys[d] ?? '');
        if (array && depth === 1 && path !== null && path === bounds.keepLast) {
          // The array read for its last member alone: the others are skipped, and cut from the text to parse.
          const end = skip(text, i, Number.POSITIVE_INFINITY, true);
          if (end < 0) return { ok: false, kind: 'malformed', reason: `the array "${path}" opened at position ${i} is not closed as it should be` };
          if (skippedMembers > 1) {
            cuts.push({ from: i + 1, to: lastMember });
            skipped = skippedMembers - 1;
          }
          i = end;
          break;
        }
        if (path === null && depth > 0) {
          // Nothing below is limited: skip it in the tight loop, its values counted.
          const end = skip(text, i, maxValues - values);
          if (end === -1) return { ok: false, kind: 'malformed', reason: `a string opened after position ${i} is never closed` };
          if (end === -2) return { ok: false, kind: 'malformed', reason: `the brackets opened at position ${i} do not match` };
          if (end === -3) return { ok: false, kind: 'values', max: maxValues };
          values += skippedValues - 1;
          if (collecting !== null && d === 1) collecting.push(text.slice(i, end + 1));
          i = end;
          break;
        }
        // A member of membersOf's array read here (a limit names a path below it): its text is not taken.
        if (d === 1) collecting = null;
        if (array && depth === 1 && path !== null && path === membersOf) collecting = [];
        isArray[depth] = array ? 1 : 0;
        items[depth] = 0;
        max[depth] = array && path !== null ? (maxItems[path] ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY;
        expectKey[depth] = array ? 0 : 1;
        paths[depth] = path;
        keys[depth] = null;
        memberPaths[depth] = array && path !== null ? childPath(named, path, '*') : null;
        depth++;
        break;
      }
      case 0x7d: // }
      case 0x5d: {
        // ]
        const array = c === 0x5d;
        if (d < 0 || (isArray[d] === 1) !== array)
          return { ok: false, kind: 'malformed', reason: `an unexpected "${String.fromCharCode(c)}" at position ${i}` };
        // membersOf's array closes: its members' text when every member was a container (one text each).
        if (d === 1 && array && paths[1] === membersOf) {
          members = collecting !== null && collecting.length === items[1] ? collecting : undefined;
          collecting = null;
        }
        depth--;
        break;
      }
      case 0x2c: // ,
        values++;
        if (d < 0) break;
        if (isArray[d] === 1) {
          items[d]!++;
          if (items[d]! > max[d]!) return { ok: false, kind: 'items', path: paths[d]!, max: max[d]! };
        } else expectKey[d] = 1;
        break;
    }
    if (values > maxValues) return { ok: false, kind: 'values', max: maxValues };
  }
  if (depth > 0) return { ok: false, kind: 'malformed', reason: `${depth} unclosed bracket(s) at the end` };
  if (values > maxValues) return { ok: false, kind: 'values', max: maxValues };
  if (cuts.length === 0) return membersOf === undefined ? { ok: true, text, skipped: 0 } : { ok: true, text, skipped: 0, members };
  // JSON.parse keeps the last of duplicate keys: each array under keepLast's key is cut; `skipped` is the last one's.
  let out = '';
  let from = 0;
  for (const cut of cuts) {
    out += text.slice(from, cut.from);
    from = cut.to;
  }
  // What is left is checked as any body is: the kept member's values and items count now.
  const rest = scanJson(out + text.slice(from), { ...bounds, keepLast: undefined });
  return rest.ok ? { ...rest, skipped } : rest;
}

/**
 * The path of `parent`'s member `segment` when a bound names it (null: none below it is bounded). A module
 * function, not a closure made per scan (docs/benchmarks.md § The streaming paths at the physical limit).
 */
function childPath(named: ReadonlySet<string>, parent: string, segment: string): string | null {
  const path = parent === '' ? segment : `${parent}.${segment}`;
  return named.has(path) ? path : null;
}

/** What skip() found in the container it skipped: its values, its members, where its last member starts. */
let skippedValues = 0;
let skippedMembers = 0;
let lastMember = 0;
let kinds = new Uint8Array(256);

/**
 * Skips the container that opens at `from` (a `{` or `[`), counting its values, and returns the index
 * of its closing bracket: -1 for a string never closed, -2 for a bracket that does not match, -3 when
 * its values pass `budget`. The tight loop for everything no limit names, which is most of a body:
 * no path, no key, no member count, only balance.
 */
function skip(text: string, from: number, budget: number, members = false): number {
  let depth = 0;
  let values = 0;
  let commas = 0;
  let any = false;
  lastMember = from + 1;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      any = true;
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end < 0) return -1;
        let slashes = 0;
        for (let k = end - 1; text.charCodeAt(k) === 0x5c; k--) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (depth === kinds.length) {
        const grown = new Uint8Array(depth * 2);
        grown.set(kinds);
        kinds = grown;
      }
      if (depth === 1) any = true;
      kinds[depth++] = c;
      if (++values > budget) return -3;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 0 || kinds[--depth] !== c - 2) return -2; // `}` is `{` + 2, `]` is `[` + 2
      if (depth === 0) {
        skippedValues = values;
        skippedMembers = any ? commas + 1 : 0;
        return i;
      }
    } else if (c === 0x2c) {
      if (++values > budget) return -3;
      if (members && depth === 1) {
        commas++;
        lastMember = i + 1;
      }
    } else if (!any && depth === 1 && !isSpace(c)) any = true;
  }
  return -1;
}

/** A key as JSON.parse reads it (escapes resolved, so `"mess\u0061ges"` is `messages`). */
function keyOf(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return raw;
  }
}
