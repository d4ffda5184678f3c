// One valid value for a JSON Schema, to show a model that keeps sending the same broken call what a
// call that works looks like. Smallest useful example: required properties only, one item per array,
// and for each value, in order, its const, its first enum value, a valid default or example, or a
// plain value of its type within its bounds. Pure: it reads the schema and nothing else.
import { schemaTypes, validate } from './schema.ts';
import { isPlainObject } from '../plain-object.ts';
import type { JSONSchema } from '../types.ts';

/** Deeper than any tool schema goes; guards against self-referencing schemas built in code. */
const MAX_DEPTH = 32;

const FORMATS: Record<string, string> = {
  'date-time': '2025-01-01T00:00:00Z',
  date: '2025-01-01',
  time: '00:00:00Z',
  email: 'user@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
};

export function schemaExample(schema: JSONSchema): unknown {
  return example(schema, 0);
}

function example(s: JSONSchema, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  // A value the author wrote down is the best example, when it is actually valid.
  for (const given of [s.default, ...(Array.isArray(s.examples) ? s.examples : [])]) {
    if (given !== undefined && valid(given, s, depth)) return given;
  }
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches) && branches.length > 0) {
    const built = branches.map((b) => example(b, depth + 1));
    return built.find((v, i) => valid(v, branches[i]!, depth)) ?? built[0];
  }
  const types = schemaTypes(s);
  // Prefer a real value to null when the schema allows both; infer the type from its keywords when undeclared.
  const type = types?.find((t) => t !== 'null') ?? types?.[0] ?? (s.properties || s.required ? 'object' : s.items ? 'array' : 'string');
  switch (type) {
    case 'object':
      return objectExample(s, depth);
    case 'array':
      return arrayExample(s, depth);
    case 'integer':
      return numberExample(s, true);
    case 'number':
      return numberExample(s, false);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return stringExample(s);
  }
}

/**
 * As the gate validates (undeclared keys are an error at the top level only), and within the value's
 * own bounds, which the gate does not check but a tool's own parser may.
 */
function valid(value: unknown, s: JSONSchema, depth: number): boolean {
  return validate(value, s, { strictTopLevel: depth === 0 }).length === 0 && withinBounds(value, s);
}

function withinBounds(value: unknown, s: JSONSchema): boolean {
  const min = (key: string, n: number) => bound(s[key]) === undefined || n >= bound(s[key])!;
  const max = (key: string, n: number) => bound(s[key]) === undefined || n <= bound(s[key])!;
  if (typeof value === 'string') return min('minLength', value.length) && max('maxLength', value.length);
  if (Array.isArray(value)) return min('minItems', value.length) && max('maxItems', value.length);
  if (typeof value !== 'number') return true;
  const exMin = bound(s.exclusiveMinimum);
  const exMax = bound(s.exclusiveMaximum);
  const multiple = bound(s.multipleOf);
  return (
    min('minimum', value) &&
    max('maximum', value) &&
    (exMin === undefined || value > exMin) &&
    (exMax === undefined || value < exMax) &&
    (multiple === undefined || multiple <= 0 || Number.isInteger(value / multiple))
  );
}

function objectExample(s: JSONSchema, depth: number): Record<string, unknown> {
  const props = s.properties ?? {};
  const extra = isPlainObject(s.additionalProperties) ? (s.additionalProperties as JSONSchema) : {};
  const out: Record<string, unknown> = {};
  for (const name of s.required ?? []) {
    out[name] = example(Object.hasOwn(props, name) ? props[name]! : extra, depth + 1);
  }
  return out;
}

function arrayExample(s: JSONSchema, depth: number): unknown[] {
  const min = bound(s.minItems) ?? 0;
  const max = bound(s.maxItems) ?? Infinity;
  // One item shows the shape; more only when the schema asks for more.
  const count = Math.min(Math.max(min, 1), max);
  const items = isPlainObject(s.items) ? s.items : {};
  return Array.from({ length: count }, () => example(items, depth + 1));
}

function numberExample(s: JSONSchema, integer: boolean): number {
  const step = integer ? 1 : 0.5;
  let v = 1;
  const min = bound(s.minimum);
  const exMin = bound(s.exclusiveMinimum);
  const max = bound(s.maximum);
  const exMax = bound(s.exclusiveMaximum);
  if (min !== undefined && v < min) v = min;
  if (exMin !== undefined && v <= exMin) v = exMin + step;
  if (max !== undefined && v > max) v = max;
  if (exMax !== undefined && v >= exMax) v = exMax - step;
  if (integer && !Number.isInteger(v)) {
    // Round towards the inside of the range.
    v = max !== undefined && Math.ceil(v) > max ? Math.floor(v) : Math.ceil(v);
  }
  const multiple = bound(s.multipleOf);
  if (multiple !== undefined && multiple > 0 && !Number.isInteger(v / multiple)) v = Math.ceil(v / multiple) * multiple;
  return v;
}

function stringExample(s: JSONSchema): string {
  const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
  let v = format ?? 'example';
  const min = bound(s.minLength);
  const max = bound(s.maxLength);
  if (min !== undefined && v.length < min) v = v.padEnd(min, 'x');
  if (max !== undefined && v.length > max) v = v.slice(0, max);
  return v;
}

function bound(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
