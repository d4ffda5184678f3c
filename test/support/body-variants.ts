// Bodies around a valid request body, for the tests of the `fits` predicates that let a body skip its
// zod parse (src/http/body.ts `fits`: fitsChatBody, fitsMessagesBody, fitsResponsesBody): every field
// given every kind of value, an own `__proto__` key (which zod leaves out) at each object zod copies,
// and two fields changed at a time from a fixed seed; and the check that what a predicate passes, zod
// passes with the same data.
import { expect } from 'vitest';
import type * as z from 'zod';

type Json = Record<string, unknown>;

/** A value of every kind JSON has (and none: undefined deletes the field), the edges of numbers among them. */
export const JSON_KINDS: readonly unknown[] = [undefined, null, 0, 2, 1.5, -1, 2 ** 53, Number.POSITIVE_INFINITY, '', 'x', true, false, [], [{}], ['x'], {}];

/** The body (a JSON copy, so an own `__proto__` key stays one) with the value at path; undefined deletes it. */
export function withValue(body: unknown, path: string, value: unknown): Json {
  const copy = JSON.parse(JSON.stringify(body)) as Json;
  const keys = path.split('.');
  let at = copy;
  for (const key of keys.slice(0, -1)) {
    if (typeof at[key] !== 'object' || at[key] === null) return copy;
    at = at[key] as Json;
  }
  if (value === undefined) delete at[keys.at(-1)!];
  // Infinity is what JSON.parse makes of a number past the doubles (1e400).
  else at[keys.at(-1)!] = value === Number.POSITIVE_INFINITY ? JSON.parse('1e400') : JSON.parse(JSON.stringify(value));
  return copy;
}

export interface Variants {
  /** The fields to change, as dotted paths. */
  paths: string[];
  values: unknown[];
  /** The objects zod copies, as dotted paths ('' the body itself): each gets an own `__proto__` key. */
  protoAt: string[];
  /** Bodies with two fields changed, and the seed they are drawn from. */
  pairs: number;
  seed: number;
}

/** `base`, each path given each value, an own `__proto__` key at each of `protoAt`, and `pairs` bodies with two fields changed. */
export function bodyVariants(base: Json, { paths, values, protoAt, pairs, seed }: Variants): Json[] {
  const bodies: Json[] = [base];
  for (const path of paths) for (const value of values) bodies.push(withValue(base, path, value));
  for (const path of protoAt) {
    const marked = path === '' ? { __marker: 1, ...base } : withValue(base, `${path}.marker`, 1);
    bodies.push(JSON.parse(JSON.stringify(marked).replace(path === '' ? '"__marker":1' : '"marker":1', '"__proto__":{"x":1}')));
  }
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  for (let i = 0; i < pairs; i++) {
    const one = withValue(base, paths[next(paths.length)]!, values[next(values.length)]);
    bodies.push(withValue(one, paths[next(paths.length)]!, values[next(values.length)]));
  }
  return bodies;
}

/**
 * Each body `fits` passes, `schema` passes with the same data, and `same` (what the request becomes) is
 * alike for the body and zod's copy of it; how many bodies each passed.
 */
export function expectFitsWithin<S extends z.ZodType>(
  bodies: Json[],
  schema: S,
  fits: (body: Json) => boolean,
  same: (body: Json, parsed: z.infer<S>) => void = () => {},
): { fit: number; passed: number } {
  let fit = 0;
  let passed = 0;
  for (const body of bodies) {
    const parsed = schema.safeParse(body);
    if (parsed.success) passed++;
    if (!fits(body)) continue;
    fit++;
    expect(parsed.success, JSON.stringify(body)).toBe(true);
    if (!parsed.success) continue;
    expect(parsed.data).toEqual(body);
    same(body, parsed.data);
  }
  return { fit, passed };
}
