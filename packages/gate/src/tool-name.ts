// Layer 2: the tool name the model wrote → a tool of the toolset.
//
// Exact, then normalised (case, `.`/`_`/`-` separators, a known namespace prefix), then ranked by
// similarity. A similar name is only proposed for repair when it is the single clear winner; the caller
// (index.ts) additionally requires the arguments to fit that tool before it repairs, because a model
// that invents a tool usually invents it for a task no tool fits.
// The exact-or-normalised match is also what makes a JSON value written into the text a call
// (text-calls.ts): one resolver for both. An MCP tool is named `<server>__<tool>` (src/tools/mcp):
// between tools of one server the shared server part says nothing, so names are also ranked by the
// part after `__`.
//
// What may be guessed (repaired to, or suggested) is narrower than what is similar (issues 24, 29; the
// rule is stated once, in annotations.ts): a suggestion is an instruction a confused model tends to
// follow. A tool known to change nothing (`isReadOnly`) is guessed when the names match as a whole
// (every word of one side matched in the other, a typo of the whole name, or the tool's name with its
// namespace dropped), not on a shared word or substring (`profile` ⊃ `file`, `update` ~ `patch`); any
// other tool only for a near-certain typo of its own name (`delet_file`, `delete_fle`), never for a
// synonym, a loose match or a word left out (`remove_file`, `flush` for `flush_db`, `cancel_sub` for
// `cancel_subscription`), nor for another word one letter away: a word's first letter changed, dropped
// or added (`preset_config` is not `reset_config`, `skill` not `kill`), or a written word the gate
// knows as a word of its own (a verb of its lists, a word of the toolset's names, OTHER_WORDS:
// `clone_account` is not `close_account`, `stat_job` not `start_job`).
//
// A server's tools never shadow the app's own (issue 18): `evil__read_file` is as close to `read_fil`
// as `read_file` is, since the server part is dropped when comparing. On a tie the app's own tool ranks
// first (then names alphabetically), and a server's tool that is not strictly closer does not stand in
// the way of repairing to the app's own: the margin of an own candidate is measured to own tools only.
import { distance } from 'fastest-levenshtein';
import { CHANGING_WORDS, isReadOnly, READ_ONLY_WORDS } from './annotations.ts';
import { MAX_TOOL_NAME_CHARS } from './limits.ts';
import { osaDistance } from './paths/path-score.ts';
import { worthOffering } from './suggest.ts';
import { nameKey, nameTokens, singular } from './words.ts';

export type NameResolution =
  | { kind: 'exact'; name: string }
  /** Same name up to case, separators or a namespace prefix: safe to repair. */
  | { kind: 'normalised'; name: string }
  /** One clearly best similar name (`candidate`), plus the ranked suggestions. */
  | { kind: 'similar'; candidate: string; suggestions: string[] }
  /** `heldBack`: a tool not known to be read-only was as close as a suggestion, and is not offered (only its exact name calls it). */
  | { kind: 'unknown'; suggestions: string[]; heldBack?: true };

// Prefixes that API wrappers and chat templates put in front of function names.
const NAMESPACES = ['functions', 'function', 'default_api', 'tools', 'tool', 'api'];
function stripNamespace(name: string): string {
  let rest = name.trim();
  for (let changed = true; changed; ) {
    changed = false;
    for (const ns of NAMESPACES) {
      const m = rest.length > ns.length + 1 && rest.slice(0, ns.length).toLowerCase() === ns ? rest[ns.length] : undefined;
      if (m === '.' || m === ':' || m === '/') {
        rest = rest.slice(ns.length + 1);
        changed = true;
      }
    }
  }
  return rest;
}

// Words tool names use for one action or thing: a model that writes `add` for a `get-sum` tool, or
// `remove_file` for `delete_file`, is naming the same tool. Worth less than an abbreviation.
const SYNONYM_GROUPS = [
  ['add', 'sum', 'plus', 'total'],
  ['get', 'fetch', 'retrieve', 'obtain', 'load'],
  ['list', 'ls', 'enumerate'],
  ['delete', 'remove', 'rm', 'del', 'erase'],
  ['create', 'make', 'new'],
  ['search', 'find', 'query', 'lookup', 'grep'],
  ['write', 'save', 'store', 'put'],
  ['run', 'execute', 'exec', 'invoke'],
  ['update', 'edit', 'modify', 'patch', 'change'],
  ['calc', 'calculate', 'compute'],
  ['dir', 'directory', 'folder'],
];
const SYNONYM = new Map<string, number>();
for (const [i, group] of SYNONYM_GROUPS.entries()) for (const w of group) SYNONYM.set(w, i);

function tokenMatch(a: string, b: string): number {
  if (a === b) return 1;
  // Abbreviation (bio/biology, calc/calculate): one is a prefix of the other.
  if (a.length >= 3 && b.length >= 3 && (a.startsWith(b) || b.startsWith(a))) return 0.8;
  if (Math.min(a.length, b.length) >= 5 && distance(a, b) <= 2) return 0.8;
  const group = SYNONYM.get(a);
  if (group !== undefined && group === SYNONYM.get(b)) return 0.6;
  return 0;
}

/** Dice coefficient over name tokens with partial credit for abbreviations and typos. */
function tokenScore(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const used = new Array<boolean>(b.length).fill(false);
  let sum = 0;
  for (const ta of a) {
    let best = 0;
    let at = -1;
    for (let j = 0; j < b.length; j++) {
      if (used[j]) continue;
      const m = tokenMatch(ta, b[j]!);
      if (m > best) [best, at] = [m, j];
    }
    if (at >= 0) used[at] = true;
    sum += best;
  }
  return (2 * sum) / (a.length + b.length);
}

/** `<server>__<tool>`: the server and the tool part of an MCP tool's name, or undefined. */
function mcpParts(name: string): { server: string; tool: string } | undefined {
  const at = name.indexOf('__');
  return at > 0 && at + 2 < name.length ? { server: nameKey(name.slice(0, at)), tool: name.slice(at + 2) } : undefined;
}

/**
 * The pairs of names to compare: within one server the tool parts; otherwise the whole names, and
 * the tool part alone when the written name has no server.
 */
function comparedPairs(written: string, tool: string): Array<[string, string]> {
  const bare = stripNamespace(written);
  const t = mcpParts(tool);
  const w = t && mcpParts(bare);
  if (t && w && w.server === t.server) return [[w.tool, t.tool]];
  return t && !w
    ? [
        [bare, tool],
        [bare, t.tool],
      ]
    : [[bare, tool]];
}

/** Similarity of a written name to a tool name in [0, 1]. */
export function toolNameSimilarity(written: string, tool: string): number {
  return Math.max(...comparedPairs(written, tool).map(([w, t]) => fullSimilarity(w, t)));
}

/**
 * Whether `tool` may be guessed for `written` at all (see the top of this file). `toolsetWords`: the
 * words of the toolset's names (toolsetWords), which mean themselves like KNOWN_WORDS.
 */
export function mayGuess(written: string, tool: string, readOnly: boolean, toolsetWords: ReadonlySet<string> = new Set()): boolean {
  return comparedPairs(written, tool).some(([w, t]) => (readOnly ? wholeMatch(w, t) : nearTypo(w, t, toolsetWords)));
}

/**
 * Real words one letter from a verb of a tool that acts (`preset` / `reset`, `clone` / `close`,
 * `flash` / `flush`, `exit` / `edit`): written, each means itself. Not a dictionary (nobody could
 * list every word one letter from every verb); the first-letter rule of nearTypo does most of the work.
 */
const OTHER_WORDS: readonly string[] = [
  ...['preset', 'resent', 'deplete', 'remote', 'clone', 'chose', 'flash', 'exit', 'emit', 'path', 'pitch', 'parse', 'replay', 'reply'],
  ...['summit', 'instill', 'invert', 'crate', 'white', 'wrote', 'same', 'safe', 'sane', 'salve', 'mode', 'more', 'movie', 'spell'],
  ...['shell', 'star', 'stare', 'step', 'shop', 'look', 'lead', 'loan', 'loud', 'least', 'leave', 'sing', 'sigh', 'line', 'slip', 'skip'],
  ...['point', 'paint', 'soft', 'sport', 'short', 'poll', 'pill', 'form', 'fort', 'port', 'past', 'mine', 'mist', 'logic', 'ease'],
];

/** The words of the gate's verb lists and OTHER_WORDS: written, each means itself. */
const KNOWN_WORDS: ReadonlySet<string> = new Set([...READ_ONLY_WORDS, ...CHANGING_WORDS, ...SYNONYM_GROUPS.flat(), ...OTHER_WORDS]);

/** The words of the toolset's names: in this toolset, each means itself. */
function toolsetWords(toolNames: readonly string[]): ReadonlySet<string> {
  return new Set(toolNames.flatMap(nameTokens));
}

/** A word that means itself: one of KNOWN_WORDS or of the toolset's names, in the singular or as written. */
function isKnownWord(w: string, toolset: ReadonlySet<string>): boolean {
  return KNOWN_WORDS.has(w) || toolset.has(w) || KNOWN_WORDS.has(singular(w)) || toolset.has(singular(w));
}

/**
 * A near-certain typo: the same words, at most two letters off in all, none more than one per word
 * (a transposition is one; `undelete` is not a typo of `delete`), and a word under 4 letters only
 * missing one (`fle`, `usr`). A word that differs other than in number (`tables` / `table`) keeps its
 * first letter (`preset` / `reset`, `skill` / `kill` are other words) and is not a word that means
 * itself (isKnownWord).
 */
function nearTypo(written: string, tool: string, toolset: ReadonlySet<string>): boolean {
  const a = nameTokens(written);
  const b = nameTokens(tool);
  if (a.length !== b.length || a.length === 0) return false;
  let total = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    const d = osaDistance(x, y);
    if (d > 1) return false;
    // A short word may have lost a letter (`fle`, `usr`), not changed one (`get` / `set`).
    const shorter = Math.min(x.length, y.length);
    if (shorter < 3 || (shorter < 4 && x.length === y.length)) return false;
    if (singular(x) !== singular(y) && (x[0] !== y[0] || isKnownWord(x, toolset))) return false;
    total += d;
  }
  return total <= 2;
}

/** The names match as a whole: a typo of the whole name, the tool's name without its namespace, or every word of one side matched in the other. */
function wholeMatch(written: string, tool: string): boolean {
  const ka = nameKey(written);
  const kb = nameKey(tool);
  if (ka === '' || kb === '') return false;
  if (1 - distance(ka, kb) / Math.max(ka.length, kb.length) >= WHOLE_TYPO) return true;
  if (ka.length >= 6 && kb.endsWith(ka)) return true;
  const a = nameTokens(written);
  const b = nameTokens(tool);
  return covers(a, b) || covers(b, a);
}

/** Every word of `a` matches (exactly, as an abbreviation, a typo or a synonym) a distinct word of `b`. */
function covers(a: string[], b: string[]): boolean {
  if (a.length === 0) return false;
  const used = new Array<boolean>(b.length).fill(false);
  for (const ta of a) {
    const at = b.findIndex((tb, j) => !used[j] && tokenMatch(ta, tb) > 0);
    if (at < 0) return false;
    used[at] = true;
  }
  return true;
}

function fullSimilarity(written: string, tool: string): number {
  const ka = nameKey(written);
  const kb = nameKey(tool);
  if (ka === '' || kb === '') return 0;
  const lev = 1 - distance(ka, kb) / Math.max(ka.length, kb.length);
  let score = Math.max(lev, tokenScore(nameTokens(written), nameTokens(tool)));
  // The model dropped the tool's namespace (`FindTrains` for `Trains_1_FindTrains`).
  if (ka.length >= 6 && kb.endsWith(ka)) score = Math.max(score, 0.85);
  return score;
}

const MIN_SUGGESTION = 0.35;
/** Levenshtein similarity of the whole keys that makes a name a typo of another as a whole. */
const WHOLE_TYPO = 0.8;
const MIN_CANDIDATE = 0.7;
const MIN_MARGIN = 0.1;

/** A written name that is a tool's name, exactly or up to case, separators and namespace prefixes. */
export type NameMatch = { kind: 'exact' | 'normalised'; name: string } | { kind: 'ambiguous'; names: string[] } | undefined;

/**
 * Matches written names against one toolset, its keys worked out once: `ambiguous` when several
 * tools share the written name's spelling, undefined when none does.
 */
export function toolNameMatcher(toolNames: readonly string[]): (written: string) => NameMatch {
  const exact = new Set(toolNames);
  const byKey = new Map<string, string[]>();
  for (const name of toolNames) {
    const k = nameKey(name);
    const list = byKey.get(k);
    if (list) list.push(name);
    else byKey.set(k, [name]);
  }
  return (written) => {
    if (exact.has(written)) return { kind: 'exact', name: written };
    if (written.length > MAX_TOOL_NAME_CHARS) return undefined;
    const same = byKey.get(nameKey(stripNamespace(written)));
    if (!same) return undefined;
    return same.length === 1 ? { kind: 'normalised', name: same[0]! } : { kind: 'ambiguous', names: same };
  };
}

export interface ResolveOptions {
  /** Which tools are known to change nothing (default: by their names, annotations.ts `isReadOnly`); any other is guessed only for a near-certain typo of its own name. */
  readOnly?: (name: string) => boolean;
  /** Which tools come from an MCP server rather than the app itself (default: none): they never win a tie. */
  fromServer?: (name: string) => boolean;
}

/** The tool a written name means (see the top of this file). */
export function resolveToolName(written: string, toolNames: readonly string[], options: ResolveOptions = {}): NameResolution {
  // A name the toolset has as written (nearly every call): the matcher's first answer, without building
  // it, the toolset's words or the ranking (each call pays this on a gateway's stream).
  if (toolNames.includes(written)) return { kind: 'exact', name: written };
  const readOnly = options.readOnly ?? ((name: string) => isReadOnly({ name }));
  const fromServer = options.fromServer ?? (() => false);
  const known = toolsetWords(toolNames);
  const match = toolNameMatcher(toolNames)(written);
  if (match && match.kind !== 'ambiguous') return match;
  if (written.length > MAX_TOOL_NAME_CHARS) return { kind: 'unknown', suggestions: [] };

  const ranked = toolNames
    .map((name) => ({ name, score: toolNameSimilarity(written, name), server: fromServer(name) }))
    .sort((x, y) => y.score - x.score || Number(x.server) - Number(y.server) || x.name.localeCompare(y.name))
    .map((r) => {
      const ro = readOnly(r.name);
      return { ...r, readOnly: ro, guess: r.score >= MIN_SUGGESTION && mayGuess(written, r.name, ro, known) };
    });
  const suggestions = worthOffering(
    ranked.filter((r) => r.guess),
    (r) => r.score,
  ).map((r) => r.name);
  // Held back: a tool that would have been guessed were it read-only.
  const heldBack = ranked.some((r) => !r.readOnly && !r.guess && r.score >= MIN_SUGGESTION && mayGuess(written, r.name, true))
    ? { heldBack: true as const }
    : {};
  const first = ranked[0];
  // An own candidate is measured against own tools only: a server's tool as close does not displace it.
  const second = ranked.slice(1).find((r) => !(first && !first.server && r.server));
  if (!match && first?.guess && first.score >= MIN_CANDIDATE && first.score - (second?.score ?? 0) >= MIN_MARGIN) {
    return { kind: 'similar', candidate: first.name, suggestions };
  }
  return { kind: 'unknown', suggestions: match ? match.names.slice(0, 3) : suggestions, ...heldBack };
}
