// The one schema compiler. A tool's parameters schema is checked against the limits of limits.ts once
// per schema object, by an iterative walk (a schema nested thousands of levels is refused before
// anything recursive, JSON.stringify included, meets it); each node the gate reads is compiled once
// into what a call needs of it: its types, its branches, its enum as a set (a lookup per value, not a
// scan), the enum's text for messages and its case-folded values for repairs. Both are cached in
// WeakMaps keyed by the schema objects, so no call recompiles a schema, and a schema dropped with its
// request (the gateway's) or its listing (an MCP server's) is dropped here too.
//
// What a caller does with a schema over the limits depends on where it came from (Rebound's docs/configuration.md § Limits):
// the gateway forwards the request ungated, the MCP source leaves the tool out, functions/ refuses to
// start. The gate itself blocks a call to such a tool rather than walk its schema (index.ts).
import { bound } from '../bounded.ts';
import { formatCount, MAX_ENUM_VALUES, MAX_SCHEMA_BRANCHES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from '../limits.ts';
import { isPlainObject } from '../plain-object.ts';
import type { JSONSchema } from '../types.ts';

/** `reason` completes "the schema …": "nests deeper than 64 levels of JSON; the gate reads at most 64". */
export type SchemaCheck = { ok: true } | { ok: false; reason: string };

const OK: SchemaCheck = { ok: true };
const checks = new WeakMap<object, SchemaCheck>();

/** Whether the gate reads `schema` (a tool's parameters): within every limit of limits.ts. Cached per object. */
export function checkSchema(schema: unknown): SchemaCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { ok: false, reason: 'is not a JSON object' };
  let known = checks.get(schema);
  if (!known) {
    known = walk(schema);
    if (known.ok) known = fanOut(schema as JSONSchema);
    checks.set(schema, known);
  }
  return known;
}

function over(reason: string): SchemaCheck {
  return { ok: false, reason };
}

/** Depth-first with an explicit stack; counts a container's entries before it reads them, so a huge one is refused unread. */
function walk(root: object): SchemaCheck {
  const stack: Array<{ value: object; depth: number }> = [{ value: root, depth: 1 }];
  let nodes = 1;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    const entries = Array.isArray(value) ? value : Object.keys(value);
    nodes += entries.length;
    if (nodes > MAX_SCHEMA_NODES) return over(`has more than ${formatCount(MAX_SCHEMA_NODES)} values; the gate reads at most ${formatCount(MAX_SCHEMA_NODES)}`);
    for (let i = 0; i < entries.length; i++) {
      const key = Array.isArray(value) ? undefined : (entries[i] as string);
      const child: unknown = key === undefined ? entries[i] : (value as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null) continue;
      if (Array.isArray(child) && key === 'enum' && child.length > MAX_ENUM_VALUES) {
        return over(`has an enum of ${formatCount(child.length)} values; the gate reads at most ${formatCount(MAX_ENUM_VALUES)}`);
      }
      if (depth >= MAX_SCHEMA_DEPTH) return over(`nests deeper than ${MAX_SCHEMA_DEPTH} levels of JSON; the gate reads at most ${MAX_SCHEMA_DEPTH}`);
      stack.push({ value: child, depth: depth + 1 });
    }
  }
  return OK;
}

/**
 * The most subschemas one value is checked against (limits.ts, MAX_SCHEMA_BRANCHES): for each place
 * in the arguments, the schemas that reach it and all their branches, counted. Run once the walk has
 * bounded the depth and size; each schema node is counted at one place only (a schema is a tree).
 */
function fanOut(root: JSONSchema): SchemaCheck {
  const places: JSONSchema[][] = [[root]];
  while (places.length > 0) {
    const reaching = places.pop()!;
    const checked: JSONSchema[] = [];
    for (const open = [...reaching]; open.length > 0; ) {
      const s = open.pop()!;
      checked.push(s);
      if (checked.length > MAX_SCHEMA_BRANCHES) {
        return over(
          `has a place where one value would be checked against more than ${MAX_SCHEMA_BRANCHES} subschemas through anyOf/oneOf; the gate checks at most ${MAX_SCHEMA_BRANCHES}`,
        );
      }
      open.push(...(compiled(s).branches ?? []));
    }
    const below = new Map<string, JSONSchema[]>();
    const add = (key: string, s: JSONSchema | false | undefined) => {
      if (!s) return;
      const list = below.get(key);
      if (list) list.push(s);
      else below.set(key, [s]);
    };
    for (const s of checked) {
      const node = compiled(s);
      for (const [name, sub] of Object.entries(node.properties ?? {})) add(`.${name}`, sub);
      add('[]', node.items);
      add('*', node.additional);
    }
    for (const list of below.values()) places.push(list);
  }
  return OK;
}

// ---- compiled nodes ------------------------------------------------------------------------------------

/** An enum as a call uses it. */
export interface CompiledEnum {
  /** Whether `v` is one of the values (a set lookup for scalars; objects and arrays compared in full). */
  has(v: unknown): boolean;
  /** The values as JSON for a message, cut when long. */
  text: string;
  /** The one value equal to `v` up to case, spaces, `_` and `-`, or undefined (none, or several). */
  fold(v: string): unknown;
}

/**
 * One schema node as a call reads it, its keywords in the shapes the gate expects: a keyword of
 * another shape (`required: true`, a property that is not a schema, `items` as a list) constrains
 * nothing here instead of throwing mid-call.
 */
export interface CompiledNode {
  /** The `type` keyword as a list; undefined when absent. */
  types: string[] | undefined;
  /** The non-empty `anyOf` (else `oneOf`): the branches decide. */
  branches: JSONSchema[] | undefined;
  enum: CompiledEnum | undefined;
  /** The declared properties that are schemas (own keys only). */
  properties: Record<string, JSONSchema> | undefined;
  required: string[];
  items: JSONSchema | undefined;
  /** A schema for undeclared keys, `false` when they are refused, undefined when anything goes. */
  additional: JSONSchema | false | undefined;
  /** The node reads as an object schema: `type` says so or it declares properties or required names. */
  objectLike: boolean;
  /** The `const` keyword, when present. */
  const: { value: unknown } | undefined;
  /**
   * The last answer of schema.ts's `fits` at this node: for which call (`owner`, its memo), which
   * value, and whether it fitted. One entry is enough: a value is asked about again right after
   * (coercion asks at each level what the check just below answered).
   */
  last: { owner: object | null; value: unknown; answer: boolean };
  /** The subschemas compiled and what the checks precompute of them (`links`); made on first use. */
  linked: Links | undefined;
}

/**
 * A node's subschemas as compiled nodes (so a check goes from node to node with no lookup) and the
 * answers a check would otherwise work out per value: which kinds of scalar fit, the properties that
 * pin a value (a `const` or `enum`), the branches indexed by a property every branch pins.
 */
export interface Links {
  branches: CompiledNode[] | undefined;
  properties: Record<string, CompiledNode> | undefined;
  items: CompiledNode | undefined;
  additional: CompiledNode | false | undefined;
  /**
   * The scalars that fit, a bit per `scalarKind`, when the kind alone decides (no enum or const at the
   * node or, for branches, in any branch); -1 otherwise.
   */
  scalars: number;
  /** Declared properties whose value must be one of a few (a `const` or an `enum`, no branches). */
  pins: Array<{ key: string; node: CompiledNode }>;
  /**
   * For branches that all require one property and pin it to a scalar `const`: the branches by that
   * value, in order. An object whose value there is not a key fits none of them. `coerced`: nor does
   * it once coerced (each branch reads an object as one, and no pin has a `type` or `enum` that coercion
   * could bring the value to).
   */
  index: { key: string; byValue: Map<unknown, CompiledNode[]>; coerced: boolean } | undefined;
  /**
   * With branches: the nodes without branches reached through them, in the order a branch-by-branch
   * walk meets them. A value fits the node when it fits one of these.
   */
  leaves: CompiledNode[] | undefined;
  /** The leaves coercion may change a scalar of each kind towards (coerce.ts), by the kind's bit position; made on first use. */
  coercible: Array<CompiledNode[] | undefined>;
}

/** The kind of a scalar, as a bit: what `type` tells of it (null, boolean, string, integer, other finite number, other number). */
export function scalarKind(v: unknown): number {
  if (v === null) return 1;
  switch (typeof v) {
    case 'boolean':
      return 2;
    case 'string':
      return 4;
    case 'number':
      return Number.isInteger(v) ? 8 : Number.isFinite(v) ? 16 : 32;
    default:
      return 64;
  }
}

/** One sample per kind of `scalarKind`, to ask `type` about each once. */
export const KIND_SAMPLES: ReadonlyArray<[number, unknown]> = [
  [1, null],
  [2, true],
  [4, ''],
  [8, 1],
  [16, 1.5],
  [32, Number.POSITIVE_INFINITY],
  [64, undefined],
];

/** The node's links (see `Links`), made once. Recursive through branches only, whose depth the limits bound. */
export function links(node: CompiledNode): Links {
  if (node.linked) return node.linked;
  const branches = node.branches?.map(compiled);
  let properties: Record<string, CompiledNode> | undefined;
  const pins: Links['pins'] = [];
  if (node.properties) {
    properties = Object.create(null) as Record<string, CompiledNode>;
    for (const [key, sub] of Object.entries(node.properties)) {
      const child = compiled(sub);
      properties[key] = child;
      if (!child.branches && (child.const || child.enum)) pins.push({ key, node: child });
    }
  }
  let scalars = 0;
  if (branches) {
    for (const b of branches) {
      const kinds = links(b).scalars;
      scalars = kinds < 0 || scalars < 0 ? -1 : scalars | kinds;
    }
  } else if (node.enum || node.const) scalars = -1;
  else for (const [bit, sample] of KIND_SAMPLES) if (!node.types || node.types.some((t) => matchesType(sample, t))) scalars |= bit;
  node.linked = {
    branches,
    properties,
    items: node.items && compiled(node.items),
    additional: node.additional && compiled(node.additional),
    scalars,
    pins,
    index: branches && indexBranches(branches),
    leaves: branches?.flatMap((b) => (b.branches ? links(b).leaves! : [b])),
    coercible: [],
  };
  return node.linked;
}

/** The index of `Links.index`: the first property the first branch requires that every branch requires and pins with a scalar `const`. */
function indexBranches(branches: CompiledNode[]): Links['index'] {
  const first = branches[0];
  if (!first || branches.some((b) => b.branches || !b.objectLike)) return undefined;
  const pinned = (b: CompiledNode, key: string) => {
    const c = b.required.includes(key) ? b.properties?.[key] : undefined;
    const node = c && compiled(c);
    return node && !node.branches && node.const && (typeof node.const.value !== 'object' || node.const.value === null) ? node.const : undefined;
  };
  const key = first.required.find((k) => branches.every((b) => pinned(b, k)));
  if (key === undefined) return undefined;
  const byValue = new Map<unknown, CompiledNode[]>();
  let coerced = true;
  for (const b of branches) {
    const value = pinned(b, key)!.value;
    const list = byValue.get(value);
    if (list) list.push(b);
    else byValue.set(value, [b]);
    const pin = compiled(b.properties![key]!);
    if ((b.types && !b.types.includes('object')) || pin.types || pin.enum) coerced = false;
  }
  return { key, byValue, coerced };
}

/** Whether `v` is of JSON Schema type `type` (`integer` takes 5.0; `number` takes integers, not booleans). */
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

/** Longest enum text in a message (the problem is cut at 1,000 characters anyway). */
const MAX_ENUM_TEXT = 600;

const nodes = new WeakMap<object, CompiledNode>();

/** The compiled form of one node of a schema, made on first use and kept as long as the node. */
export function compiled(s: JSONSchema): CompiledNode {
  if (!isSchema(s)) return EMPTY;
  let node = nodes.get(s);
  if (!node) {
    node = compile(s);
    nodes.set(s, node);
  }
  return node;
}

const EMPTY: CompiledNode = {
  types: undefined,
  branches: undefined,
  enum: undefined,
  properties: undefined,
  required: [],
  items: undefined,
  additional: undefined,
  objectLike: false,
  const: undefined,
  last: { owner: null, value: undefined, answer: false },
  linked: undefined,
};

const isSchema = (v: unknown): v is JSONSchema => typeof v === 'object' && v !== null && !Array.isArray(v);
/** `true` as a subschema (JSON Schema's "anything"); `false` too, which the gate does not enforce. */
const ANYTHING: JSONSchema = Object.freeze({});
const subschema = (v: unknown): JSONSchema | undefined => (isSchema(v) ? v : typeof v === 'boolean' ? ANYTHING : undefined);
const subschemas = (v: unknown): JSONSchema[] => (Array.isArray(v) ? v.map(subschema).filter((x): x is JSONSchema => x !== undefined) : []);

function compile(s: JSONSchema): CompiledNode {
  const t = s.type;
  const types = typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : undefined;
  const anyOf = subschemas(s.anyOf);
  const oneOf = subschemas(s.oneOf);
  const branches = anyOf.length > 0 ? anyOf : oneOf.length > 0 ? oneOf : undefined;
  let properties: Record<string, JSONSchema> | undefined;
  if (isSchema(s.properties)) {
    properties = Object.create(null) as Record<string, JSONSchema>;
    for (const [k, v] of Object.entries(s.properties)) {
      const sub = subschema(v);
      if (sub) properties[k] = sub;
    }
  }
  const required = Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === 'string') : [];
  const additional = isSchema(s.additionalProperties) ? s.additionalProperties : s.additionalProperties === false ? false : undefined;
  return {
    types,
    branches,
    enum: Array.isArray(s.enum) ? compileEnum(s.enum) : undefined,
    properties,
    required,
    items: isSchema(s.items) ? s.items : undefined, // a list (tuple form) or `true`: no constraint read
    additional,
    objectLike: !!types?.includes('object') || properties !== undefined || Array.isArray(s.required),
    const: s.const !== undefined ? { value: s.const } : undefined,
    last: { owner: null, value: undefined, answer: false },
    linked: undefined,
  };
}

const AMBIGUOUS = Symbol('ambiguous');
const foldKey = (v: string): string => v.toLowerCase().replace(/[\s_-]+/g, '');

function compileEnum(values: readonly unknown[]): CompiledEnum {
  const scalars = new Set<unknown>();
  const structured: unknown[] = [];
  const folded = new Map<string, unknown>();
  for (const v of values) {
    if (typeof v === 'object' && v !== null) structured.push(v);
    else scalars.add(v);
    if (typeof v === 'string') {
      const key = foldKey(v);
      folded.set(key, folded.has(key) && folded.get(key) !== v ? AMBIGUOUS : v);
    }
  }
  return {
    has: (v) => (typeof v === 'object' && v !== null ? structured.some((e) => deepEqual(e, v)) : scalars.has(v)),
    text: bound(JSON.stringify(values), MAX_ENUM_TEXT),
    fold: (v) => {
      const hit = folded.get(foldKey(v));
      return hit === AMBIGUOUS ? undefined : hit;
    },
  };
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
