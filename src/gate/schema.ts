// Layer 3a: does a value satisfy a JSON Schema? Semantics follow the benchmark's labelling rules (and
// JSON Schema where those are silent): `integer` accepts 5.0, `number` accepts integers, booleans are
// never numbers, `null` matches no type but `null`; a type mismatch hides deeper checks; unknown keys
// are reported at the top level always (the model invented a parameter) and below only under
// `additionalProperties: false`.
import { echo } from './message.ts';
import type { JSONSchema, Problem } from './types.ts';
import { isPlainObject } from './plain-object.ts';

export interface ValidateOptions {
  /** Report top-level keys the schema does not declare (default true). Plain JSON Schema does not. */
  strictTopLevel?: boolean;
}

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

export function schemaTypes(schema: JSONSchema): string[] | undefined {
  const t = schema.type;
  if (t === undefined) return undefined;
  return Array.isArray(t) ? t : [t];
}

export function fitsType(v: unknown, schema: JSONSchema): boolean {
  const types = schemaTypes(schema);
  return types === undefined || types.some((t) => matchesType(v, t));
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export const childPath = (path: string, key: string): string => `${path}.${key}`;
export const itemPath = (path: string, i: number): string => `${path}[${i}]`;

/**
 * null (or "") for an optional parameter whose schema takes neither: the model sent no value. The
 * gate does not decide whether it meant "unset" or "unknown"; the message says how to say "unset".
 */
function checkNoValue(val: null | '', s: JSONSchema, path: string, key: string, out: Problem[]): void {
  const found: Problem[] = [];
  check(val, s, path, false, false, found);
  if (found.length === 0) return;
  const category = found[0]!.category;
  const what = val === null ? 'null' : '""';
  out.push({ category, path, message: `${found[0]!.message}. To leave "${echo(key, 80)}" unset, omit it instead of sending ${what}; otherwise send a value` });
}

export function validate(value: unknown, schema: JSONSchema, options: ValidateOptions = {}): Problem[] {
  const problems: Problem[] = [];
  check(value, schema, '$', true, options.strictTopLevel ?? true, problems);
  return problems;
}

function check(v: unknown, s: JSONSchema, path: string, top: boolean, strictTop: boolean, out: Problem[]): void {
  const branches = s.anyOf ?? s.oneOf;
  if (branches && branches.length > 0) {
    let best: Problem[] | undefined;
    for (const b of branches) {
      const p: Problem[] = [];
      check(v, b, path, top, strictTop, p);
      if (p.length === 0) {
        best = p;
        break;
      }
      if (!best || p.length < best.length) best = p;
    }
    if (best && best.length > 0) out.push(...best);
    return; // sibling keywords next to anyOf are rare in tool schemas; the branches decide
  }
  const types = schemaTypes(s);
  if (types && !types.some((t) => matchesType(v, t))) {
    out.push({ category: 'wrong_type', path, message: `expected ${types.join(' or ')}, got ${typeOf(v) === 'integer' ? 'number' : typeOf(v)}` });
    return;
  }
  if (s.enum && !s.enum.some((e) => deepEqual(e, v))) {
    out.push({ category: 'enum_violation', path, message: `${echo(JSON.stringify(v) ?? String(v), 80)} is not one of ${JSON.stringify(s.enum)}` });
  }
  if (s.const !== undefined && !deepEqual(s.const, v)) {
    out.push({ category: 'enum_violation', path, message: `must be ${JSON.stringify(s.const)}` });
  }
  if (isPlainObject(v) && (types?.includes('object') || s.properties || s.required)) {
    const props = s.properties ?? {};
    for (const name of s.required ?? []) {
      if (!Object.hasOwn(v, name)) out.push({ category: 'missing_required', path: childPath(path, name), message: `missing required parameter "${name}"` });
    }
    const required = new Set(s.required ?? []);
    for (const [key, val] of Object.entries(v)) {
      const ps = Object.hasOwn(props, key) ? props[key] : undefined;
      if (ps && (val === null || val === '') && !required.has(key)) checkNoValue(val, ps, childPath(path, key), key, out);
      else if (ps) check(val, ps, childPath(path, key), false, strictTop, out);
      else if (isPlainObject(s.additionalProperties)) check(val, s.additionalProperties, childPath(path, key), false, strictTop, out);
      else if ((top && strictTop) || s.additionalProperties === false) {
        out.push({ category: 'unknown_parameter', path: childPath(path, key), message: `unknown parameter "${echo(key, 80)}"` });
      }
    }
  } else if (Array.isArray(v) && s.items && typeof s.items === 'object') {
    for (let i = 0; i < v.length; i++) check(v[i], s.items, itemPath(path, i), false, strictTop, out);
  }
}
