// Layer 3c: top-level parameter names the tool does not declare.
//
// One wrapper level is removed ({"arguments": {…}} and the like); an unknown name that is plainly a
// declared one (same name up to case/separators, a known synonym, a near spelling) is renamed when its
// value fits; whatever remains unknown is taken out of the executed call and reported as invented,
// because it is a feature request rather than something the tool can use.
import { distance } from 'fastest-levenshtein';
import { fitsAfterCoercion } from './coerce.ts';
import { MAX_RENAME_CANDIDATES } from '../limits.ts';
import { compiled } from './schema-compile.ts';
import { validate } from './schema.ts';
import { isPlainObject } from '../plain-object.ts';
import { worthOffering } from '../suggest.ts';
import { nameKey, nameTokens, singular, words } from '../words.ts';
import type { JSONSchema, Repair } from '../types.ts';

const WRAPPERS = new Set(['arguments', 'args', 'input', 'inputs', 'params', 'parameters', 'kwargs', 'payload', 'data', 'properties']);

// Names models use interchangeably for the same slot.
const SYNONYM_GROUPS = [
  ['content', 'contents', 'value', 'text', 'body', 'data'],
  ['path', 'file', 'filename', 'filepath', 'file_path', 'file_name', 'fname'],
  ['dir', 'directory', 'folder', 'dirpath', 'dir_path', 'folder_path'],
  ['query', 'q', 'search', 'search_query', 'search_term', 'term', 'keyword', 'keywords'],
  ['url', 'uri', 'link', 'endpoint', 'href'],
  ['limit', 'max_results', 'count', 'top_k', 'num_results', 'n'],
  ['command', 'cmd'],
  ['message', 'msg'],
];
const SYNONYMS = new Map<string, number>();
for (const [i, group] of SYNONYM_GROUPS.entries()) for (const w of group) SYNONYMS.set(nameKey(w), i);

export interface RenameResult {
  args: Record<string, unknown>;
  repairs: Repair[];
  /** Unknown names dropped from the call. */
  invented: string[];
  /** Unknown name → declared names it might have meant (for the message when blocking). */
  near: Record<string, string[]>;
}

/**
 * `{"params": {…declared keys…}}` → the inner object, when the wrapper itself is not a parameter.
 * Keys beside a known wrapper name (`{"dataset": "functions.t_test", "parameters": {…}}`) are carried
 * along to the inner object, where they are judged like any other unknown name.
 */
export function unwrapWrapper(args: Record<string, unknown>, schema: JSONSchema, repairs: Repair[]): Record<string, unknown> {
  const props = compiled(schema).properties ?? {};
  const keys = Object.keys(args);
  const isDeclared = (k: string) => Object.hasOwn(props, k);
  const declaredInside = (inner: Record<string, unknown>) => Object.keys(inner).filter(isDeclared).length;
  let key: string | undefined;
  if (keys.length === 1) {
    const k = keys[0]!;
    const inner = args[k];
    // Any other name only counts as a wrapper when everything inside it is declared.
    if (
      !isDeclared(k) &&
      isPlainObject(inner) &&
      declaredInside(inner) > 0 &&
      (WRAPPERS.has(k.toLowerCase()) || declaredInside(inner) === Object.keys(inner).length)
    )
      key = k;
  } else if (!keys.some(isDeclared)) {
    const wrappers = keys.filter((k) => WRAPPERS.has(k.toLowerCase()) && isPlainObject(args[k]) && declaredInside(args[k] as Record<string, unknown>) > 0);
    if (wrappers.length === 1) key = wrappers[0];
  }
  if (key === undefined) return args;
  const inner = args[key] as Record<string, unknown>;
  repairs.push({ kind: 'unwrap', path: `$.${key}`, from: key, to: '$', category: 'unknown_parameter' });
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => k !== key && !Object.hasOwn(inner, k)));
  return { ...inner, ...rest };
}

/** A parameter name as the comparison reads it: its key and its words, worked out once per name. */
interface NameForm {
  key: string;
  tokens: string[];
}

const formOf = (name: string): NameForm => ({ key: nameKey(name), tokens: nameTokens(name) });

/** How plainly `written` names the declared parameter `declared`, in [0, 1]. */
export function paramSimilarity(written: string, declared: string): number {
  return formSimilarity(formOf(written), formOf(declared));
}

function formSimilarity(written: NameForm, declared: NameForm): number {
  const a = written.key;
  const b = declared.key;
  if (a === '' || b === '') return 0;
  if (a === b) return 1;
  const sa = SYNONYMS.get(a);
  if (sa !== undefined && sa === SYNONYMS.get(b)) return 0.9;
  const lev = 1 - distance(a, b) / Math.max(a.length, b.length);
  const ta = written.tokens;
  const tb = declared.tokens;
  // gradeDict / grades, start_date / date_start: the same words, one trimmed or reordered.
  const shared = ta.filter((t) => tb.some((u) => u === t || (t.length >= 4 && u.length >= 4 && (u.startsWith(t) || t.startsWith(u))))).length;
  const tok = ta.length + tb.length === 0 ? 0 : (2 * shared) / (ta.length + tb.length);
  return Math.max(lev, tok * 0.9);
}

const RENAME_AT = 0.75;
const RENAME_SOLE_PAIR_AT = 0.45;
const MARGIN = 0.1;

/**
 * The one unknown name and the one missing required parameter, when that parameter's description
 * uses the unknown name for it ("action" for `type`: "The action to be performed"; "scores" for
 * `gradeDict`: "… values represent scores") and the value fits its schema as it stands: the model
 * named the slot by its description. Nothing else could take that value.
 */
function describedPair(
  u: string,
  value: unknown,
  unknown: readonly string[],
  missingRequired: readonly string[],
  props: Record<string, JSONSchema>,
): { from: string; to: string; score: number } | undefined {
  if (unknown.length !== 1 || missingRequired.length !== 1) return undefined;
  const to = missingRequired[0]!;
  const description = props[to]?.description;
  if (typeof description !== 'string') return undefined;
  const said = new Set(words(description.slice(0, 2000)).map(singular));
  const named = nameTokens(u).map(singular);
  if (named.length === 0 || !named.every((w) => said.has(w))) return undefined;
  return validate(value, props[to]!, { strictTopLevel: false }).length === 0 ? { from: u, to, score: 1 } : undefined;
}

export function renameUnknown(args: Record<string, unknown>, schema: JSONSchema): RenameResult {
  const node = compiled(schema);
  const props = node.properties ?? {};
  const required = node.required;
  const unknown = Object.keys(args).filter((k) => !Object.hasOwn(props, k));
  const result: RenameResult = { args, repairs: [], invented: [], near: {} };
  if (unknown.length === 0) return result;

  const absent = Object.keys(props).filter((p) => !Object.hasOwn(args, p));
  const missingRequired = required.filter((r) => !Object.hasOwn(args, r));
  type Pair = { from: string; to: string; score: number };
  const pairs: Pair[] = [];
  const absentForms = absent.map(formOf);
  for (const u of unknown.length > MAX_RENAME_CANDIDATES ? [] : unknown) {
    const form = formOf(u);
    const scored = absent
      .map((p, i) => ({ from: u, to: p, score: formSimilarity(form, absentForms[i]!) }))
      .filter((x) => x.score > 0.3)
      .sort((x, y) => y.score - x.score);
    result.near[u] = worthOffering(scored, (x) => x.score).map((x) => x.to);
    const described = describedPair(u, args[u], unknown, missingRequired, props);
    if (described) {
      pairs.push(described);
      continue;
    }
    const [best, second] = scored;
    if (!best || best.score - (second?.score ?? 0) < MARGIN) continue;
    // One unknown name and one missing required name: the pairing itself is evidence, so a looser
    // likeness is enough (grades → gradeDict).
    const solePair = unknown.length === 1 && missingRequired.length === 1 && missingRequired[0] === best.to;
    if (best.score < (solePair ? RENAME_SOLE_PAIR_AT : RENAME_AT)) continue;
    if (!fitsAfterCoercion(args[u], props[best.to]!)) continue;
    pairs.push(best);
  }

  const out: Record<string, unknown> = {};
  const claimed = new Set<string>();
  const renameTo = new Map<string, string>();
  for (const p of pairs.sort((x, y) => y.score - x.score)) {
    if (claimed.has(p.to)) continue;
    claimed.add(p.to);
    renameTo.set(p.from, p.to);
  }
  for (const [k, v] of Object.entries(args)) {
    const to = renameTo.get(k);
    if (to !== undefined) {
      out[to] = v;
      result.repairs.push({
        kind: 'rename',
        path: `$.${k}`,
        from: k,
        to,
        category: required.includes(to) ? 'missing_required' : 'unknown_parameter',
      });
    } else if (Object.hasOwn(props, k)) out[k] = v;
    else {
      result.invented.push(k);
      result.repairs.push({ kind: 'drop_unknown', path: `$.${k}`, from: k, category: 'unknown_parameter' });
    }
  }
  result.args = out;
  return result;
}
