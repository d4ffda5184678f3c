// Layer 3: parsed arguments against the tool's schema. Validate; when something is wrong, try the
// repairs in order (wrapper, names, values) and validate again: a call is only repaired when the
// repaired call is fully valid, otherwise it is blocked with what is still wrong.
import { distance } from 'fastest-levenshtein';
import { coerce } from './coerce.ts';
import { renameUnknown, unwrapWrapper } from './rename.ts';
import { MAX_TOOL_NAME_CHARS } from '../limits.ts';
import { compiled } from './schema-compile.ts';
import { newFits, passes, validate } from './schema.ts';
import { isPlainObject } from '../plain-object.ts';
import { worthOffering } from '../suggest.ts';
import type { JSONSchema, Problem, Repair } from '../types.ts';

export type ArgumentsCheck =
  | { status: 'pass'; args: Record<string, unknown> }
  | { status: 'repaired'; args: Record<string, unknown>; repairs: Repair[]; invented: string[] }
  | { status: 'blocked'; problems: Problem[]; suggestions: string[]; invented: string[]; repairs: Repair[] };

export function checkArguments(args: Record<string, unknown>, schema: JSONSchema): ArgumentsCheck {
  // One memo of which value fits which node for every check of this call (schema.ts).
  const fits = newFits();
  if (passes(args, schema, fits)) return { status: 'pass', args };

  const repairs: Repair[] = [];
  const unwrapped = unwrapWrapper(args, schema, repairs);
  const renamed = renameUnknown(unwrapped, schema);
  repairs.push(...renamed.repairs);
  const coerced = fillDefaults(coerce(renamed.args, schema, '$', repairs, fits) as Record<string, unknown>, schema, '$', repairs);
  const problems = passes(coerced, schema, fits) ? [] : validate(coerced, schema, { fits });
  if (problems.length === 0) return { status: 'repaired', args: coerced, repairs, invented: renamed.invented };

  return {
    status: 'blocked',
    problems: sortProblems(problems),
    suggestions: suggest(problems, coerced, schema, renamed.near),
    invented: renamed.invented,
    repairs,
  };
}

/**
 * A required parameter the model left out, whose schema declares a default: the tool's author said
 * what it means when unknown, so the default is filled in rather than the call sent back. The
 * declaration is the `default` keyword, or a sentence of the description that says it ("Default is
 * 52.", "If not specified, it will default to ascending."), when the value it names is one the
 * schema takes as written: true/false, a number, an enum member, a quoted string. Objects are filled
 * at any depth; nothing without a declared default is ever made up.
 */
function fillDefaults(value: Record<string, unknown>, schema: JSONSchema, path: string, repairs: Repair[]): Record<string, unknown> {
  const node = compiled(schema);
  const props = node.properties ?? {};
  let out = value;
  for (const name of node.required) {
    const prop = props[name];
    if (Object.hasOwn(out, name) || !prop) continue;
    const declared = Object.hasOwn(prop, 'default') ? { value: prop.default } : describedDefault(prop);
    if (!declared) continue;
    if (out === value) out = { ...value };
    out[name] = declared.value;
    const repair: Repair = { kind: 'fill_default', path: `${path}.${name}`, to: JSON.stringify(declared.value), category: 'missing_required' };
    if (!Object.hasOwn(prop, 'default')) repair.from = 'its description';
    repairs.push(repair);
  }
  for (const [name, prop] of Object.entries(props)) {
    const inner = out[name];
    if (!isPlainObject(inner) || !prop.properties) continue;
    const filled = fillDefaults(inner, prop, `${path}.${name}`, repairs);
    if (filled !== inner) out = { ...out, [name]: filled };
  }
  return out;
}

// "Default is 52.", "default: 'asc'", "defaults to true", "(default 5)", "will default to ascending".
const DESCRIBED_DEFAULT = /\bdefault(?:s| value)?(?:\s+(?:is|to|of|=)|\s*[:=])?\s+("[^"\n]{0,80}"|'[^'\n]{0,80}'|[\w.+-]{1,40})/i;

/** The default a parameter's description states, when the schema takes it as written. */
export function describedDefault(prop: JSONSchema): { value: unknown } | undefined {
  const m = typeof prop.description === 'string' ? DESCRIBED_DEFAULT.exec(prop.description.slice(0, 2000)) : null;
  if (!m) return undefined;
  const raw = m[1]!;
  const quoted = /^(["']).*\1$/.test(raw);
  const word = quoted ? raw.slice(1, -1) : raw.replace(/\.$/, '');
  const candidates: unknown[] = [];
  if (prop.enum) candidates.push(...prop.enum.filter((e) => typeof e === 'string' && e.toLowerCase() === word.toLowerCase()));
  else if (quoted) candidates.push(word);
  else if (/^(true|false)$/i.test(word)) candidates.push(word.toLowerCase() === 'true');
  else if (/^-?\d+(\.\d+)?$/.test(word)) candidates.push(Number(word));
  const value = candidates[0];
  return candidates.length === 1 && validate(value, prop, { strictTopLevel: false }).length === 0 ? { value } : undefined;
}

const ORDER: Problem['category'][] = ['missing_required', 'wrong_type', 'enum_violation', 'unknown_parameter'];
const rank = (p: Problem) => {
  const i = ORDER.indexOf(p.category);
  return i < 0 ? ORDER.length : i;
};

function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => rank(a) - rank(b));
}

/** Enum problems whose values are ranked for suggestions: three are shown at most, each ranking reads a whole enum. */
const MAX_RANKED_ENUMS = 3;

/** Allowed enum values nearest to what was sent, or the declared names an unknown one resembles. */
function suggest(problems: Problem[], args: unknown, schema: JSONSchema, near: Record<string, string[]>): string[] {
  const out: string[] = [];
  let ranked = 0;
  for (const p of sortProblems(problems)) {
    if (p.category === 'enum_violation' && ranked++ < MAX_RANKED_ENUMS) {
      const s = schemaAt(schema, p.path);
      const v = valueAt(args, p.path);
      if (Array.isArray(s?.enum)) out.push(...closestValues(String(v), s.enum));
    }
  }
  for (const names of Object.values(near)) out.push(...names);
  return [...new Set(out)].slice(0, 3);
}

/** Longest value or enum member compared (characters): past it no value is a misspelling, and each comparison costs their product. */
const MAX_COMPARED = MAX_TOOL_NAME_CHARS;

/** The allowed values most like `v` (case-blind edit distance; containing it counts as close), worth offering. */
export function closestValues(v: string, allowed: readonly unknown[], limit = 3): string[] {
  if (v.length > MAX_COMPARED) return [];
  const key = v.toLowerCase();
  const ranked = allowed
    .map((a) => String(a))
    .filter((a) => a.length <= MAX_COMPARED)
    .map((a) => {
      const b = a.toLowerCase();
      const near = 1 - distance(key, b) / Math.max(key.length, b.length, 1);
      return { a, sim: key !== '' && (b.includes(key) || key.includes(b)) ? Math.max(near, 0.8) : near };
    })
    .filter((x) => x.sim > 0)
    .sort((x, y) => y.sim - x.sim);
  return worthOffering(ranked, (x) => x.sim, limit).map((x) => x.a);
}

const SEGMENT = /\.([^.[]*)|\[(\d+)\]/g;

function segments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of path.slice(1).matchAll(SEGMENT)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

function schemaAt(schema: JSONSchema, path: string): JSONSchema | undefined {
  let s: JSONSchema | undefined = schema;
  for (const seg of segments(path)) {
    if (!s) return undefined;
    s = typeof seg === 'number' ? s.items : (s.properties?.[seg] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined));
  }
  return s;
}

function valueAt(v: unknown, path: string): unknown {
  let cur: unknown = v;
  for (const seg of segments(path)) cur = cur === null || cur === undefined ? undefined : (cur as Record<string | number, unknown>)[seg];
  return cur;
}
