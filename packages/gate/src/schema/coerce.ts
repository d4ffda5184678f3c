// Layer 3b: lossless coercion of argument values towards their schema, at any depth.
//
// Only conversions that keep the model's meaning are made: "42"→42, "true"→true, 10→"10", a JSON (or
// single-quoted) string holding an object or array, "a, b"→["a","b"] for a list of strings, a single
// value→[value], a one-element list→its element for a scalar, and an enum value differing only in case
// or spacing. 5.2 for an integer, or "unknown" for an object, are left for the validator to report.
// So is null (or "" for an enum) where the schema takes neither: the model sent no value where one
// was expected, which as often means "I do not know it" as "leave it unset"; the validator's message
// tells it how to say the latter (leave the parameter out), and the model decides (schema.ts).
import { parseArgumentsText } from '../json/arguments-text.ts';
import { bound } from '../bounded.ts';
import { MAX_ECHO } from '../message.ts';
import { type CompiledNode, compiled, KIND_SAMPLES, type Links, links, scalarKind } from './schema-compile.ts';
import { fits, type Fits, fitsNode, indexed, matchesAny, matchesType, newFits } from './schema.ts';
import { isPlainObject } from '../plain-object.ts';
import type { JSONSchema, Repair } from '../types.ts';

const NO = Symbol('no-conversion');
// Digits, optional fraction, optional exponent; written so that no digit can be matched two ways
// (`\d+\.?\d*` backtracks quadratically on a long run of digits that ends in a letter).
const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A value as a repair's `from`/`to` shows it: JSON, cut by `bound` when long. */
const show = (v: unknown): string => bound(JSON.stringify(v) ?? String(v), MAX_ECHO);

/**
 * Returns the coerced value (a new object where anything changed) and appends what was done. `memo`
 * holds what is known of which value fits which node (schema.ts): share it across one call's checks.
 */
export function coerce(v: unknown, s: JSONSchema, path: string, repairs: Repair[], memo: Fits = newFits()): unknown {
  return coerceAt(v, compiled(s), path, repairs, memo);
}

function coerceAt(v: unknown, node: CompiledNode, path: string, repairs: Repair[], memo: Fits): unknown {
  // A value that fits needs nothing (and the memo usually knows at once): only what does not is walked.
  if (fitsNode(v, node, memo)) return v;
  if (node.branches) return coerceBranches(v, node, path, repairs, memo);

  const types = node.types;
  if (types && v !== null && !matchesAny(v, types)) {
    const converted = convert(v, node, types);
    if (converted !== NO) {
      repairs.push({ kind: 'coerce', path, from: show(v), to: show(converted), category: 'wrong_type' });
      v = converted;
    }
  }
  if (isPlainObject(v)) return coerceObject(v, node, path, repairs, memo);
  if (Array.isArray(v) && node.items) {
    // A copy only once an item changes, and an item's path only for one that does not fit.
    const items = links(node).items!;
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const y = fitsNode(x, items, memo) ? x : coerceAt(x, items, `${path}[${i}]`, repairs, memo);
      if (y !== x) {
        out ??= v.slice();
        out[i] = y;
      }
    }
    v = out ?? v;
  }
  if (typeof v === 'string' && node.enum && !node.enum.has(v)) {
    const match = node.enum.fold(v);
    if (match !== undefined) {
      repairs.push({ kind: 'enum_case', path, from: show(v), to: show(match), category: 'enum_violation' });
      return match;
    }
  }
  return v;
}

function coerceObject(v: Record<string, unknown>, node: CompiledNode, path: string, repairs: Repair[], memo: Fits): Record<string, unknown> {
  const { properties, additional } = links(node);
  const extra = additional || undefined;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(v)) {
    const ps = properties?.[key] ?? extra;
    if (!ps) continue;
    const val = v[key];
    const next = fitsNode(val, ps, memo) ? val : coerceAt(val, ps, `${path}.${key}`, repairs, memo);
    if (next !== val) {
      out ??= { ...v };
      out[key] = next;
    }
  }
  return out ?? v;
}

/**
 * The value as it stands when a branch takes it, else the first branch's coercion that it takes; each
 * answer from the memo. A branch no coercion can make the value fit (`beyondCoercion`) is not tried.
 */
function coerceBranches(v: unknown, node: CompiledNode, path: string, repairs: Repair[], memo: Fits): unknown {
  const linked = links(node);
  const { branches, index } = linked;
  const asked = typeof v !== 'object' || v === null ? coercibleLeaves(linked, v) : index?.coerced && isPlainObject(v) ? indexed(v, index) : branches!;
  for (const b of asked) {
    if (beyondCoercion(v, b, memo)) continue;
    const mark = repairs.length;
    const next = coerceAt(v, b, path, repairs, memo);
    if (next !== v && fitsNode(next, b, memo)) return next;
    repairs.length = mark; // the branch does not take it: what was done towards it is not kept
  }
  return v;
}

/**
 * The nodes to try a scalar that fits no branch against: a branch with branches of its own takes the
 * first coercion one of its leaves takes (a value fits a node when it fits one of its branches), so
 * the leaves are tried in order, and only those whose `type` or `enum` coercion may bring a scalar of
 * this kind to (`keptAsIs`); at any other it stays as it is and fits no better. Kept per kind.
 */
function coercibleLeaves(linked: Links, x: unknown): readonly CompiledNode[] {
  const bit = scalarKind(x);
  if (bit > 32) return linked.branches!; // undefined, a bigint…: no JSON value, tried branch by branch
  const k = 31 - Math.clz32(bit);
  let leaves = linked.coercible[k];
  if (!leaves) {
    const sample = KIND_SAMPLES.find(([b]) => b === bit)![1];
    leaves = linked.leaves!.filter((leaf) => !keptAsIs(sample, leaf) || (typeof sample === 'string' && leaf.enum));
    linked.coercible[k] = leaves;
  }
  return leaves;
}

/**
 * A value that `node` cannot take however it is coerced, told without coercing it: a scalar that does
 * not fit and that coercion leaves as it is (no conversion to the node's types applies, no enum value
 * differs from it in case only); an object the node reads as one (no conversion) that lacks a required
 * name (coercion adds none) or holds such a scalar at a pinned property. So the discriminator of a
 * union (`kind: {const: "circle"}`) rules out the other branches at once, and `{type: "null"}` a string.
 */
function beyondCoercion(v: unknown, node: CompiledNode, memo: Fits): boolean {
  if (node.branches) return false;
  if (typeof v !== 'object' || v === null) return keptAsIs(v, node) && !fitsNode(v, node, memo);
  if (!isPlainObject(v) || !node.objectLike || (node.types && !matchesAny(v, node.types))) return false;
  for (const name of node.required) if (!Object.hasOwn(v, name)) return true;
  for (const { key, node: pin } of links(node).pins) {
    const x = v[key];
    if (Object.hasOwn(v, key) && (typeof x !== 'object' || x === null) && beyondCoercion(x, pin, memo)) return true;
  }
  return false;
}

/** Whether coercion towards `node` (no branches) leaves the scalar `x` as it is: no conversion of `convertTo` can apply, nor an enum's case. */
function keptAsIs(x: unknown, node: CompiledNode): boolean {
  if (node.types && x !== null && !matchesAny(x, node.types)) {
    for (const t of node.types) if (mayConvert(x, t)) return false;
  }
  return !(typeof x === 'string' && node.enum && node.enum.fold(x) !== undefined);
}

/** Whether `convertTo(x, t)` may return a value for the scalar `x` (a superset: `convertTo` decides). */
function mayConvert(x: unknown, t: string): boolean {
  switch (t) {
    case 'integer':
    case 'number':
    case 'boolean':
    case 'object':
      return typeof x === 'string';
    case 'string':
      return typeof x === 'number' || typeof x === 'boolean';
    case 'array':
      return x !== null && x !== undefined;
    default:
      return false;
  }
}

function convert(v: unknown, node: CompiledNode, types: string[]): unknown {
  for (const t of types) {
    const r = convertTo(v, t, node);
    if (r !== NO) return r;
  }
  return NO;
}

function convertTo(v: unknown, t: string, node: CompiledNode): unknown {
  switch (t) {
    case 'integer':
    case 'number': {
      if (typeof v === 'string' && NUMERIC.test(v.trim())) {
        const n = Number(v.trim());
        if (Number.isFinite(n) && (t === 'number' || Number.isInteger(n))) return n;
      }
      return unwrapSingle(v, t, node);
    }
    case 'boolean':
      if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true';
      return unwrapSingle(v, t, node);
    case 'string':
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      if (typeof v === 'boolean') return String(v);
      return unwrapSingle(v, t, node);
    case 'object':
      if (typeof v === 'string' && v.trim().startsWith('{')) {
        const parsed = parseArgumentsText(v);
        if (parsed.ok && isPlainObject(parsed.value)) return parsed.value;
      }
      return NO;
    case 'array':
      return toArray(v, node);
    default:
      return NO;
  }
}

/** `["x"]` where a scalar is expected: the model wrapped one value in a list. */
function unwrapSingle(v: unknown, t: string, node: CompiledNode): unknown {
  if (!Array.isArray(v) || v.length !== 1) return NO;
  const x = v[0];
  if (matchesType(x, t)) return x;
  const inner = typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? convertTo(x, t, node) : NO;
  return inner;
}

function toArray(v: unknown, node: CompiledNode): unknown {
  if (typeof v === 'string') {
    const text = v.trim();
    if (text.startsWith('[')) {
      const parsed = parseArgumentsText(text);
      if (parsed.ok && Array.isArray(parsed.value)) return parsed.value;
      return NO;
    }
    // "a, b" is how a list of words is written in prose; only split where items are words.
    const itemTypes = node.items ? compiled(node.items).types : undefined;
    const stringItems = !itemTypes || itemTypes.includes('string');
    if (stringItems && text.includes(',')) {
      const parts = text
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '');
      if (parts.length > 1) return parts;
    }
    return [v];
  }
  if (v === null || v === undefined) return NO;
  return [v];
}

/** Whether `v` satisfies `s` once losslessly coerced (used to judge a rename or a tool-name repair). */
export function fitsAfterCoercion(v: unknown, s: JSONSchema, memo: Fits = newFits()): boolean {
  if (fits(v, s, memo)) return true;
  const next = coerce(v, s, '$', [], memo);
  return next !== v && fits(next, s, memo);
}
