// Layer 3a: does a value satisfy a JSON Schema? Semantics follow the benchmark's labelling rules (and
// JSON Schema where those are silent): `integer` accepts 5.0, `number` accepts integers, booleans are
// never numbers, `null` matches no type but `null`; a type mismatch hides deeper checks; unknown keys
// are reported at the top level always (the model invented a parameter) and below only under
// `additionalProperties: false`.
//
// Work: each schema node is compiled once (schema-compile.ts: types, enum set, its subschemas linked as
// compiled nodes, the scalar kinds it takes, its branches indexed by a discriminator); a value is
// checked against each node of the schema at most once per call. Whether a value fits a node is
// memoised per (node, value) in a `Fits` the caller may share across its validations (coercion asks
// the same question of every anyOf level, schema-repair.ts asks before and after repairing), so nested
// anyOf costs (argument size × schema size), not depth² × items; a scalar is answered by its kind where
// no enum or const decides, and an object at a union by the branches its discriminator names. Problems
// are data written only for the branch that speaks (the others are counted, not listed).
import { echo } from '../message.ts';
import { type CompiledNode, compiled, deepEqual, type Links, links, matchesType, scalarKind } from './schema-compile.ts';
import type { JSONSchema, Problem } from '../types.ts';
import { isPlainObject } from '../plain-object.ts';

export { deepEqual, matchesType };

export interface ValidateOptions {
  /** Report top-level keys the schema does not declare (default true). Plain JSON Schema does not. */
  strictTopLevel?: boolean;
  /** Answers already known for this call (see `Fits`); a fresh one by default. */
  fits?: Fits;
}

/**
 * One call's memo of whether a value fits a schema node (below the top level): a token that the
 * compiled nodes keep their last answer under (schema-compile.ts). A value is asked about again at
 * the same node right after the first answer (coercion asks at each anyOf level what the level below
 * just answered), so one answer per node is enough and the memo costs no map however large the call.
 */
export type Fits = { readonly memo: true };

export const newFits = (): Fits => ({ memo: true });

export function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** `types.some(t => matchesType(v, t))` without a closure per value (this runs per value and node). */
export function matchesAny(v: unknown, types: readonly string[]): boolean {
  for (const t of types) if (matchesType(v, t)) return true;
  return false;
}

export function schemaTypes(schema: JSONSchema): string[] | undefined {
  return compiled(schema).types;
}

export const childPath = (path: string, key: string): string => `${path}.${key}`;
export const itemPath = (path: string, i: number): string => `${path}[${i}]`;
/** The path of a child where problems are listed; counting needs none. */
const childAt = (out: Sink, path: string, key: string): string => (out.found ? childPath(path, key) : path);
const itemAt = (out: Sink, path: string, i: number): string => (out.found ? itemPath(path, i) : path);

/**
 * A problem found, as data: its message is written only if it is reported (most found under an anyOf
 * are not: the branch with the fewest problems speaks). No closures here: this runs per value.
 */
interface Found {
  category: Problem['category'];
  path: string;
  why:
    | { kind: 'type'; expected: string; got: unknown }
    | { kind: 'enum'; got: unknown; allowed: string }
    | { kind: 'const'; expected: unknown }
    | { kind: 'required'; name: string }
    | { kind: 'unknown'; key: string }
    | { kind: 'no_value'; inner: Found; key: string; sent: null | '' };
}

function say(f: Found): string {
  const why = f.why;
  switch (why.kind) {
    case 'type':
      return `expected ${why.expected}, got ${typeOf(why.got) === 'integer' ? 'number' : typeOf(why.got)}`;
    case 'enum':
      return `${echo(JSON.stringify(why.got) ?? String(why.got), 80)} is not one of ${why.allowed}`;
    case 'const':
      return `must be ${JSON.stringify(why.expected)}`;
    case 'required':
      return `missing required parameter "${why.name}"`;
    case 'unknown':
      return `unknown parameter "${echo(why.key, 80)}"`;
    case 'no_value':
      return `${say(why.inner)}. To leave "${echo(why.key, 80)}" unset, omit it instead of sending ${why.sent === null ? 'null' : '""'}; otherwise send a value`;
  }
}

interface Ctx {
  strictTop: boolean;
  fits: Fits;
}

/**
 * Where `check` puts what it finds: the problems, or only how many (`found` null, to compare anyOf
 * branches without writing theirs). A count is exact below `limit`; at it the walk stops (a branch with
 * as many problems as the best so far cannot speak). Counting allocates nothing.
 */
interface Sink {
  found: Found[] | null;
  n: number;
  limit: number;
}

export function validate(value: unknown, schema: JSONSchema, options: ValidateOptions = {}): Problem[] {
  const ctx = { strictTop: options.strictTopLevel ?? true, fits: options.fits ?? newFits() };
  const node = compiled(schema);
  if (!ctx.strictTop && fitsNode(value, node, ctx.fits)) return [];
  const found: Found[] = [];
  check(value, node, '$', true, ctx, { found, n: 0, limit: Number.POSITIVE_INFINITY });
  const problems: Problem[] = [];
  for (const f of found) problems.push({ category: f.category, path: f.path, message: say(f) });
  return problems;
}

/** Whether `validate(value, schema)` (strict at the top) would list no problem, told without listing any. */
export function passes(value: unknown, schema: JSONSchema, memo: Fits): boolean {
  return fitsNow(value, compiled(schema), true, memo);
}

/** Whether `v` satisfies `s` below the top level (no problem listed): validate's verdict without its messages, memoised in `memo`. */
export function fits(v: unknown, s: JSONSchema, memo: Fits): boolean {
  return fitsNode(v, compiled(s), memo);
}

/** `fits` at a compiled node. */
export function fitsNode(v: unknown, node: CompiledNode, memo: Fits): boolean {
  if (typeof v !== 'object' || v === null) {
    // A scalar: its kind answers when no enum or const decides, else it is checked at once (through
    // branches, from the memo).
    const kinds = links(node).scalars;
    if (kinds >= 0) return (kinds & scalarKind(v)) !== 0;
    if (!node.branches) return fitsNow(v, node, false, memo);
  }
  const last = node.last;
  if (last.owner === memo && last.value === v) return last.answer;
  const answer = fitsNow(v, node, false, memo);
  last.owner = memo;
  last.value = v;
  last.answer = answer;
  return answer;
}

/** `top`: the arguments object itself, where undeclared keys are problems (strict validation only). */
function fitsNow(v: unknown, node: CompiledNode, top: boolean, memo: Fits): boolean {
  if (node.branches) return fitsABranch(v, node, top, memo);
  if (node.types && !matchesAny(v, node.types)) return false;
  if (node.enum && !node.enum.has(v)) return false;
  if (node.const && !deepEqual(node.const.value, v)) return false;
  if (isPlainObject(v) && node.objectLike) {
    const { properties, additional } = links(node);
    for (const name of node.required) if (!Object.hasOwn(v, name)) return false;
    for (const key of Object.keys(v)) {
      const ps = properties?.[key];
      if (ps) {
        if (!fitsNode(v[key], ps, memo)) return false;
      } else if (additional) {
        if (!fitsNode(v[key], additional, memo)) return false;
      } else if (top || additional === false) return false;
    }
  } else if (Array.isArray(v) && node.items) {
    const items = links(node).items!;
    for (const x of v) if (!fitsNode(x, items, memo)) return false;
  }
  return true;
}

const NO_BRANCHES: CompiledNode[] = [];

/** Whether a branch takes `v`. With an index (schema-compile.ts) an object is asked only of the branches that pin the value it has there. */
function fitsABranch(v: unknown, node: CompiledNode, top: boolean, memo: Fits): boolean {
  const { branches, index } = links(node);
  const asked = index && isPlainObject(v) ? indexed(v, index) : branches!;
  for (const b of asked) if (top ? fitsNow(v, b, true, memo) : fitsNode(v, b, memo)) return true;
  return false;
}

/** The branches of `index` (schema-compile.ts) that pin the value the object `v` has at its key; none when it has none there. */
export function indexed(v: Record<string, unknown>, index: NonNullable<Links['index']>): CompiledNode[] {
  if (!Object.hasOwn(v, index.key)) return NO_BRANCHES;
  const x = v[index.key];
  // A scalar `const` equals only the same scalar (NaN equals nothing, though a Map finds it).
  return (typeof x === 'object' && x !== null) || Number.isNaN(x) ? NO_BRANCHES : (index.byValue.get(x) ?? NO_BRANCHES);
}

/**
 * null (or "") for an optional parameter whose schema takes neither: the model sent no value. The
 * gate does not decide whether it meant "unset" or "unknown"; the message says how to say "unset".
 */
function checkNoValue(val: null | '', node: CompiledNode, path: string, key: string, ctx: Ctx, out: Sink): void {
  const inner: Sink = { found: out.found && [], n: 0, limit: out.found ? Number.POSITIVE_INFINITY : 1 };
  check(val, node, path, false, ctx, inner);
  if (inner.n === 0) return;
  const first = inner.found?.[0];
  if (first) out.found?.push({ category: first.category, path, why: { kind: 'no_value', inner: first, key, sent: val } });
  out.n++;
}

function check(v: unknown, node: CompiledNode, path: string, top: boolean, ctx: Ctx, out: Sink): void {
  const strictHere = top && ctx.strictTop;
  if (node.branches) {
    // A branch that fits ends it; otherwise the first branch with the fewest problems speaks (none has
    // fewer than one). The branches are compared by counting; only the one that speaks is walked for its problems.
    if (fitsABranch(v, node, strictHere, ctx.fits)) return;
    let best: CompiledNode | undefined;
    let fewest = Number.POSITIVE_INFINITY;
    const count: Sink = { found: null, n: 0, limit: 0 };
    for (const b of links(node).branches!) {
      count.n = 0;
      count.limit = Math.min(fewest, out.limit - out.n);
      check(v, b, path, top, ctx, count);
      if (count.n < fewest) {
        best = b;
        fewest = count.n;
      }
      if (fewest <= 1) break;
    }
    if (best && out.found) check(v, best, path, top, ctx, out);
    else if (best) out.n += fewest;
    return; // sibling keywords next to anyOf are rare in tool schemas; the branches decide
  }
  const types = node.types;
  if (types && !matchesAny(v, types)) {
    out.found?.push({ category: 'wrong_type', path, why: { kind: 'type', expected: types.join(' or '), got: v } });
    out.n++;
    return;
  }
  const allowed = node.enum;
  if (allowed && !allowed.has(v)) {
    out.found?.push({ category: 'enum_violation', path, why: { kind: 'enum', got: v, allowed: allowed.text } });
    out.n++;
  }
  if (node.const && !deepEqual(node.const.value, v)) {
    out.found?.push({ category: 'enum_violation', path, why: { kind: 'const', expected: node.const.value } });
    out.n++;
  }
  if (isPlainObject(v) && node.objectLike) {
    const { properties, additional } = links(node);
    for (const name of node.required) {
      if (Object.hasOwn(v, name)) continue;
      out.found?.push({ category: 'missing_required', path: childPath(path, name), why: { kind: 'required', name } });
      out.n++;
    }
    for (const key of Object.keys(v)) {
      if (out.n >= out.limit) return;
      const val = v[key];
      const ps = properties?.[key];
      if (ps && (val === null || val === '') && !node.required.includes(key)) checkNoValue(val, ps, childAt(out, path, key), key, ctx, out);
      else if (ps) {
        if (!fitsNode(val, ps, ctx.fits)) check(val, ps, childAt(out, path, key), false, ctx, out);
      } else if (additional) {
        if (!fitsNode(val, additional, ctx.fits)) check(val, additional, childAt(out, path, key), false, ctx, out);
      } else if (strictHere || additional === false) {
        out.found?.push({ category: 'unknown_parameter', path: childPath(path, key), why: { kind: 'unknown', key } });
        out.n++;
      }
    }
  } else if (Array.isArray(v) && node.items) {
    const items = links(node).items!;
    for (let i = 0; i < v.length; i++) {
      if (out.n >= out.limit) return;
      if (!fitsNode(v[i], items, ctx.fits)) check(v[i], items, itemAt(out, path, i), false, ctx, out);
    }
  }
}
