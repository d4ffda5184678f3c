// Layer 3a: does a value satisfy a JSON Schema? Semantics follow the benchmark's labelling rules (and
// JSON Schema where those are silent): `integer` accepts 5.0, `number` accepts integers, booleans are
// never numbers, `null` matches no type but `null`; a type mismatch hides deeper checks; unknown keys
// are reported at the top level always (the model invented a parameter) and below only under
// `additionalProperties: false`.
//
// Work: each schema node is compiled once (schema-compile.ts: types, enum set); a value is checked
// against each node of the schema at most once per call. Whether a value fits a node is memoised per
// (node, value) in a `Fits` the caller may share across its validations (coercion asks the same
// question of every anyOf level, schema-repair.ts asks before and after repairing), so nested anyOf
// costs (argument size × schema size), not depth² × items.
import { echo } from '../message.ts';
import { type CompiledNode, compiled, deepEqual } from './schema-compile.ts';
import type { JSONSchema, Problem } from '../types.ts';
import { isPlainObject } from '../plain-object.ts';

export { deepEqual };

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

export function matchesType(v: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return isPlainObject(v);
    case 'array':
      return Array.isArray(v);
    case 'null':
      return v === null;
    default:
      return true; // an unknown type keyword constrains nothing we can check
  }
}

/** `types.some(t => matchesType(v, t))` without a closure per value (this runs per value and node). */
function matchesAny(v: unknown, types: readonly string[]): boolean {
  for (const t of types) if (matchesType(v, t)) return true;
  return false;
}

export function schemaTypes(schema: JSONSchema): string[] | undefined {
  return compiled(schema).types;
}

export function fitsType(v: unknown, schema: JSONSchema): boolean {
  const types = schemaTypes(schema);
  return types === undefined || matchesAny(v, types);
}

export const childPath = (path: string, key: string): string => `${path}.${key}`;
export const itemPath = (path: string, i: number): string => `${path}[${i}]`;

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

export function validate(value: unknown, schema: JSONSchema, options: ValidateOptions = {}): Problem[] {
  const ctx = { strictTop: options.strictTopLevel ?? true, fits: options.fits ?? newFits() };
  if (!ctx.strictTop && fits(value, schema, ctx.fits)) return [];
  const found: Found[] = [];
  check(value, schema, '$', true, ctx, found);
  const problems: Problem[] = [];
  for (const f of found) problems.push({ category: f.category, path: f.path, message: say(f) });
  return problems;
}

/** Whether `v` satisfies `s` below the top level (no problem listed): validate's verdict without its messages, memoised in `memo`. */
export function fits(v: unknown, s: JSONSchema, memo: Fits): boolean {
  const node = compiled(s);
  // A scalar against a node without branches is answered at once; the memo is for the rest.
  if (!node.branches && (typeof v !== 'object' || v === null)) return fitsNow(v, s, node, false, memo);
  const last = node.last;
  if (last.owner === memo && last.value === v) return last.answer;
  const answer = fitsNow(v, s, node, false, memo);
  last.owner = memo;
  last.value = v;
  last.answer = answer;
  return answer;
}

/** `top`: the arguments object itself, where undeclared keys are problems (strict validation only). */
function fitsNow(v: unknown, s: JSONSchema, node: CompiledNode, top: boolean, memo: Fits): boolean {
  if (node.branches) return fitsABranch(v, node.branches, top, memo);
  if (node.types && !matchesAny(v, node.types)) return false;
  if (node.enum && !node.enum.has(v)) return false;
  if (s.const !== undefined && !deepEqual(s.const, v)) return false;
  if (isPlainObject(v) && node.objectLike) {
    const props = node.properties;
    for (const name of node.required) if (!Object.hasOwn(v, name)) return false;
    for (const key of Object.keys(v)) {
      const ps = props?.[key];
      if (ps) {
        if (!fits(v[key], ps, memo)) return false;
      } else if (node.additional) {
        if (!fits(v[key], node.additional, memo)) return false;
      } else if (top || node.additional === false) return false;
    }
  } else if (Array.isArray(v) && node.items) {
    const items = node.items;
    for (const x of v) if (!fits(x, items, memo)) return false;
  }
  return true;
}

/**
 * null (or "") for an optional parameter whose schema takes neither: the model sent no value. The
 * gate does not decide whether it meant "unset" or "unknown"; the message says how to say "unset".
 */
function checkNoValue(val: null | '', s: JSONSchema, path: string, key: string, ctx: Ctx, out: Found[]): void {
  const found: Found[] = [];
  check(val, s, path, false, ctx, found);
  const first = found[0];
  if (first) out.push({ category: first.category, path, why: { kind: 'no_value', inner: first, key, sent: val } });
}

function fitsABranch(v: unknown, branches: JSONSchema[], top: boolean, memo: Fits): boolean {
  for (const b of branches) if (top ? fitsNow(v, b, compiled(b), true, memo) : fits(v, b, memo)) return true;
  return false;
}

function check(v: unknown, s: JSONSchema, path: string, top: boolean, ctx: Ctx, out: Found[]): void {
  const node = compiled(s);
  const strictHere = top && ctx.strictTop;
  if (node.branches) {
    // A branch that fits ends it; otherwise the branch with the fewest problems speaks. Each branch is
    // checked once, and its own branches answer from the memo.
    if (fitsABranch(v, node.branches, strictHere, ctx.fits)) return;
    let best: Found[] | undefined;
    for (const b of node.branches) {
      const p: Found[] = [];
      check(v, b, path, top, ctx, p);
      if (!best || p.length < best.length) best = p;
      if (best.length <= 1) break; // no branch has fewer than one problem
    }
    if (best) for (const f of best) out.push(f);
    return; // sibling keywords next to anyOf are rare in tool schemas; the branches decide
  }
  const types = node.types;
  if (types && !matchesAny(v, types)) {
    out.push({ category: 'wrong_type', path, why: { kind: 'type', expected: types.join(' or '), got: v } });
    return;
  }
  const allowed = node.enum;
  if (allowed && !allowed.has(v)) {
    out.push({ category: 'enum_violation', path, why: { kind: 'enum', got: v, allowed: allowed.text } });
  }
  if (s.const !== undefined && !deepEqual(s.const, v)) {
    out.push({ category: 'enum_violation', path, why: { kind: 'const', expected: s.const } });
  }
  if (isPlainObject(v) && node.objectLike) {
    const props = node.properties;
    for (const name of node.required) {
      if (!Object.hasOwn(v, name)) out.push({ category: 'missing_required', path: childPath(path, name), why: { kind: 'required', name } });
    }
    const required = node.required.length > 0 ? new Set(node.required) : undefined;
    for (const key of Object.keys(v)) {
      const val = v[key];
      const ps = props?.[key];
      if (ps && (val === null || val === '') && !required?.has(key)) checkNoValue(val, ps, childPath(path, key), key, ctx, out);
      else if (ps) {
        if (!fits(val, ps, ctx.fits)) check(val, ps, childPath(path, key), false, ctx, out);
      } else if (node.additional) {
        if (!fits(val, node.additional, ctx.fits)) check(val, node.additional, childPath(path, key), false, ctx, out);
      } else if (strictHere || node.additional === false) {
        out.push({ category: 'unknown_parameter', path: childPath(path, key), why: { kind: 'unknown', key } });
      }
    }
  } else if (Array.isArray(v) && node.items) {
    const items = node.items;
    for (let i = 0; i < v.length; i++) {
      if (!fits(v[i], items, ctx.fits)) check(v[i], items, itemPath(path, i), false, ctx, out);
    }
  }
}
