// Layer 2: the tool name the model wrote → a tool of the toolset.
//
// Exact, then normalised (case, `.`/`_`/`-` separators, a known namespace prefix), then ranked by
// similarity. A similar name is only proposed for repair when it is the single clear winner; the caller
// (index.ts) additionally requires the arguments to fit that tool before it repairs, because a model
// that invents a tool usually invents it for a task no tool fits.
import { distance } from 'fastest-levenshtein';
import { MAX_TOOL_NAME_CHARS } from './limits.ts';

export type NameResolution =
  | { kind: 'exact'; name: string }
  /** Same name up to case, separators or a namespace prefix: safe to repair. */
  | { kind: 'normalised'; name: string }
  /** One clearly best similar name (`candidate`), plus the ranked suggestions. */
  | { kind: 'similar'; candidate: string; suggestions: string[] }
  | { kind: 'unknown'; suggestions: string[] };

// Prefixes that API wrappers and chat templates put in front of function names.
const NAMESPACES = ['functions', 'function', 'default_api', 'tools', 'tool', 'api'];
const SEPARATORS = /[\s._\-/:]+/g;

/** Lower case with every separator removed: `player_stats.getLast-game` → `playerstatsgetlastgame`. */
export function nameKey(name: string): string {
  return name.toLowerCase().replace(SEPARATORS, '');
}

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

/** Words of a name: split at separators and camelCase humps, lower-cased; digits dropped as noise. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    // An acronym before a word (HTTPServer → HTTP Server); a lookahead, so a long capital run is one pass.
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t !== '' && !/^\d+$/.test(t));
}

function tokenMatch(a: string, b: string): number {
  if (a === b) return 1;
  // Abbreviation (bio/biology, calc/calculate): one is a prefix of the other.
  if (a.length >= 3 && b.length >= 3 && (a.startsWith(b) || b.startsWith(a))) return 0.8;
  if (Math.min(a.length, b.length) >= 5 && distance(a, b) <= 2) return 0.8;
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

/** Similarity of a written name to a tool name in [0, 1]. */
export function nameSimilarity(written: string, tool: string): number {
  const ka = nameKey(stripNamespace(written));
  const kb = nameKey(tool);
  if (ka === '' || kb === '') return 0;
  const lev = 1 - distance(ka, kb) / Math.max(ka.length, kb.length);
  let score = Math.max(lev, tokenScore(nameTokens(stripNamespace(written)), nameTokens(tool)));
  // The model dropped the tool's namespace (`FindTrains` for `Trains_1_FindTrains`).
  if (ka.length >= 6 && kb.endsWith(ka)) score = Math.max(score, 0.85);
  return score;
}

const MIN_SUGGESTION = 0.35;
const MIN_CANDIDATE = 0.7;
const MIN_MARGIN = 0.1;

export function resolveToolName(written: string, toolNames: readonly string[]): NameResolution {
  if (toolNames.includes(written)) return { kind: 'exact', name: written };
  if (written.length > MAX_TOOL_NAME_CHARS) return { kind: 'unknown', suggestions: [] };
  const key = nameKey(stripNamespace(written));
  const same = toolNames.filter((t) => nameKey(t) === key);
  if (same.length === 1) return { kind: 'normalised', name: same[0]! };

  const ranked = toolNames
    .map((name) => ({ name, score: nameSimilarity(written, name) }))
    .sort((x, y) => y.score - x.score || x.name.localeCompare(y.name));
  const suggestions = ranked.filter((r) => r.score >= MIN_SUGGESTION).slice(0, 3).map((r) => r.name);
  const [first, second] = ranked;
  if (same.length === 0 && first && first.score >= MIN_CANDIDATE && first.score - (second?.score ?? 0) >= MIN_MARGIN) {
    return { kind: 'similar', candidate: first.name, suggestions };
  }
  return { kind: 'unknown', suggestions: same.length > 1 ? same.slice(0, 3) : suggestions };
}
