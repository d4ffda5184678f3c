import { describe, expect, it } from 'vitest';
import { MAX_ENUM_VALUES, MAX_SCHEMA_BRANCHES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from '../limits.ts';
import { checkSchema, compiled } from './schema-compile.ts';
import { checkArguments } from './schema-repair.ts';
import { validate } from './schema.ts';
import type { JSONSchema } from '../types.ts';

/** `levels` anyOf levels around a string, each with a null branch: `{anyOf: [{anyOf: [… {type: string}], {type: null}]}`. */
function nestedAnyOf(levels: number, key: 'anyOf' | 'oneOf' = 'anyOf'): JSONSchema {
  let s: JSONSchema = { type: 'integer' };
  for (let i = 0; i < levels; i++) s = { [key]: [s, { type: 'null' }] };
  return s;
}

const tool = (items: JSONSchema): JSONSchema => ({ type: 'object', properties: { list: { type: 'array', items } }, required: ['list'] });

describe('checkSchema: the limits, checked once per schema', () => {
  it('reads an ordinary tool schema', () => {
    expect(checkSchema(tool({ type: 'string', enum: ['a', 'b'] }))).toEqual({ ok: true });
  });

  it('refuses a schema nested past the depth limit, and one nested 2,500 levels without overflowing', () => {
    // Each anyOf level is two levels of JSON (the object, its list); the tool's own wrapping takes 5.
    const within = tool(nestedAnyOf(Math.floor((MAX_SCHEMA_DEPTH - 6) / 2)));
    expect(checkSchema(within)).toEqual({ ok: true });
    const past = tool(nestedAnyOf(MAX_SCHEMA_DEPTH));
    expect(checkSchema(past)).toMatchObject({ ok: false, reason: expect.stringContaining(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`) });
    const deep = tool(nestedAnyOf(2_500, 'oneOf'));
    expect(checkSchema(deep).ok).toBe(false);
  });

  it('refuses too many branches, too large an enum, too many values', () => {
    // The anyOf node and its branches: one value checked against MAX_SCHEMA_BRANCHES subschemas at most.
    const branches = Array.from({ length: MAX_SCHEMA_BRANCHES }, (_, i) => ({ const: i }));
    expect(checkSchema(tool({ anyOf: branches }))).toMatchObject({ ok: false, reason: expect.stringContaining(`more than ${MAX_SCHEMA_BRANCHES} subschemas`) });
    expect(checkSchema(tool({ anyOf: branches.slice(1) })).ok).toBe(true);
    // Branches multiply: 10 object branches whose `size` is anyOf [integer, null] put 30 subschemas at `size`.
    const union = (k: number) => ({
      anyOf: Array.from({ length: 10 }, () => ({ type: 'object', properties: { size: { anyOf: Array.from({ length: k }, () => ({ type: 'integer' })) } } })),
    });
    expect(checkSchema(tool(union(2))).ok).toBe(true);
    expect(checkSchema(tool(union(3))).ok).toBe(false);
    const values = Array.from({ length: MAX_ENUM_VALUES + 1 }, (_, i) => `v${i}`);
    expect(checkSchema(tool({ enum: values }))).toMatchObject({ ok: false, reason: expect.stringContaining('enum of 5,001 values') });
    expect(checkSchema(tool({ enum: values.slice(1) })).ok).toBe(true);
    const properties = Object.fromEntries(Array.from({ length: MAX_SCHEMA_NODES / 2 }, (_, i) => [`p${i}`, { type: 'string' }]));
    expect(checkSchema({ type: 'object', properties })).toMatchObject({ ok: false, reason: expect.stringContaining('has more than 20,000 values') });
  });

  it('refuses a list of a million values before reading it', () => {
    expect(checkSchema({ type: 'object', examples: new Array(1_000_000).fill(0) }).ok).toBe(false);
  });

  it('checks a schema object once: the same answer object every time', () => {
    const s = tool(nestedAnyOf(3));
    expect(checkSchema(s)).toBe(checkSchema(s));
    const past = tool(nestedAnyOf(100));
    expect(checkSchema(past)).toBe(checkSchema(past));
  });

  it('a property named like a keyword is not taken for one', () => {
    const values = Array.from({ length: MAX_ENUM_VALUES + 1 }, (_, i) => i);
    expect(checkSchema({ type: 'object', properties: { enum: { type: 'array', items: { type: 'integer' } } }, examples: [{ enum: values }] }).ok).toBe(false);
    expect(checkSchema({ type: 'object', properties: { enum: { type: 'string' }, anyOf: { type: 'string' } } }).ok).toBe(true);
  });
});

describe('compiled nodes', () => {
  it('compiles a node once and reads hostile keyword shapes as no constraint', () => {
    const s: JSONSchema = {
      type: 'object',
      required: true as unknown as string[],
      properties: { a: 5 as unknown as JSONSchema, b: true as unknown as JSONSchema },
    };
    expect(compiled(s)).toBe(compiled(s));
    expect(compiled(s).required).toEqual([]);
    expect(Object.keys(compiled(s).properties!)).toEqual(['b']);
    expect(validate({ b: 1 }, s)).toEqual([]);
    expect(validate({ a: 1 }, s).map((p) => p.category)).toEqual(['unknown_parameter']);
  });

  it('looks enum values up as a set, scalars and structures alike', () => {
    const e = compiled({ enum: ['a', 1, null, { x: [1] }] }).enum!;
    expect([e.has('a'), e.has(1), e.has(null), e.has({ x: [1] }), e.has('b'), e.has({ x: [2] })]).toEqual([true, true, true, true, false, false]);
  });

  it("cuts a huge enum's text in messages", () => {
    const values = Array.from({ length: 4_000 }, (_, i) => `value-${i}`);
    const problems = validate({ v: 'nope' }, { type: 'object', properties: { v: { enum: values } } });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message.length).toBeLessThan(800);
  });
});

describe('nested anyOf: every value checked once per node', () => {
  const levels = Math.floor((MAX_SCHEMA_DEPTH - 6) / 2);
  const schema = tool(nestedAnyOf(levels));

  it('passes, repairs and blocks items under the deepest anyOf the limits allow', () => {
    expect(checkArguments({ list: [1, null, 3] }, schema).status).toBe('pass');
    const repaired = checkArguments({ list: ['1', null, '3'] }, schema);
    expect(repaired).toMatchObject({ status: 'repaired', args: { list: [1, null, 3] } });
    const blocked = checkArguments({ list: [1, 'x', 2.5] }, schema);
    expect(blocked.status).toBe('blocked');
    if (blocked.status === 'blocked') expect(blocked.problems.map((p) => p.path)).toEqual(['$.list[1]', '$.list[2]']);
  });

  it('oneOf reads as anyOf', () => {
    expect(checkArguments({ list: ['7'] }, tool(nestedAnyOf(levels, 'oneOf')))).toMatchObject({ status: 'repaired', args: { list: [7] } });
  });
});
