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
import { distance } from 'fastest-levenshtein';
import { MAX_TOOL_NAME_CHARS } from './limits.ts';
import { worthOffering } from './suggest.ts';
import { nameKey, nameTokens } from './words.ts';

export type NameResolution =
  | { kind: 'exact'; name: string }
  /** Same name up to case, separators or a namespace prefix: safe to repair. */
  | { kind: 'normalised'; name: string }
  /** One clearly best similar name (`candidate`), plus the ranked suggestions. */
  | { kind: 'similar'; candidate: string; suggestions: string[] }
  | { kind: 'unknown'; suggestions: string[] };

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

/** Similarity of a written name to a tool name in [0, 1]. */
export function nameSimilarity(written: string, tool: string): number {
  const bare = stripNamespace(written);
  const t = mcpParts(tool);
  const w = t && mcpParts(bare);
  // Within one server the tool parts decide; with the server left out, the tool part may match alone.
  if (t && w && w.server === t.server) return fullSimilarity(w.tool, t.tool);
  const score = fullSimilarity(bare, tool);
  return t && !w ? Math.max(score, fullSimilarity(bare, t.tool)) : score;
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

export function resolveToolName(written: string, toolNames: readonly string[]): NameResolution {
  const match = toolNameMatcher(toolNames)(written);
  if (match && match.kind !== 'ambiguous') return match;
  if (written.length > MAX_TOOL_NAME_CHARS) return { kind: 'unknown', suggestions: [] };

  const ranked = toolNames.map((name) => ({ name, score: nameSimilarity(written, name) })).sort((x, y) => y.score - x.score || x.name.localeCompare(y.name));
  const suggestions = worthOffering(
    ranked.filter((r) => r.score >= MIN_SUGGESTION),
    (r) => r.score,
  ).map((r) => r.name);
  const [first, second] = ranked;
  if (!match && first && first.score >= MIN_CANDIDATE && first.score - (second?.score ?? 0) >= MIN_MARGIN) {
    return { kind: 'similar', candidate: first.name, suggestions };
  }
  return { kind: 'unknown', suggestions: match ? match.names.slice(0, 3) : suggestions };
}
