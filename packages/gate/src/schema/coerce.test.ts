import { describe, expect, it } from 'vitest';
import { coerce, fitsAfterCoercion } from './coerce.ts';
import { compiled } from './schema-compile.ts';
import { checkArguments } from './schema-repair.ts';
import type { JSONSchema, Repair } from '../types.ts';

/** The coerced value and the repairs, for a value at `$.v`. */
function run(v: unknown, s: JSONSchema): { value: unknown; repairs: Repair[] } {
  const repairs: Repair[] = [];
  return { value: coerce(v, s, '$.v', repairs), repairs };
}

describe('coerce: conversions that keep the meaning', () => {
  it.each([
    ['"42" for an integer', '42', { type: 'integer' }, 42],
    ['" -3.5e2 " for a number', ' -3.5e2 ', { type: 'number' }, -350],
    ['"TRUE" for a boolean', 'TRUE', { type: 'boolean' }, true],
    ['"false" for a boolean', 'false', { type: 'boolean' }, false],
    ['10 for a string', 10, { type: 'string' }, '10'],
    ['true for a string', true, { type: 'string' }, 'true'],
    ['a JSON object in a string', '{"a": 1}', { type: 'object' }, { a: 1 }],
    ['a JSON array in a string', '[1, 2]', { type: 'array', items: { type: 'integer' } }, [1, 2]],
    ['one value for a list', 'a.ts', { type: 'array', items: { type: 'string' } }, ['a.ts']],
    ['a one-element list for a scalar', ['7'], { type: 'integer' }, 7],
  ] as const)('%s', (_, v, s, expected) => {
    const { value, repairs } = run(v, s as JSONSchema);
    expect(value).toEqual(expected);
    expect(repairs).toEqual([{ kind: 'coerce', path: '$.v', from: JSON.stringify(v), to: JSON.stringify(expected), category: 'wrong_type' }]);
  });

  it('matches an enum value that differs only in case, spaces, _ or -', () => {
    const { value, repairs } = run('Dark Mode', { type: 'string', enum: ['light', 'dark-mode'] });
    expect(value).toBe('dark-mode');
    expect(repairs).toEqual([{ kind: 'enum_case', path: '$.v', from: '"Dark Mode"', to: '"dark-mode"', category: 'enum_violation' }]);
  });

  it('works at any depth and leaves the input untouched', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: { options: { type: 'object', properties: { depth: { type: 'integer' }, tags: { type: 'array', items: { type: 'number' } } } } },
    };
    const input = { options: { depth: '2', tags: ['1.5', 3] } };
    const repairs: Repair[] = [];
    const out = coerce(input, schema, '$', repairs);
    expect(out).toEqual({ options: { depth: 2, tags: [1.5, 3] } });
    expect(repairs.map((r) => r.path)).toEqual(['$.options.depth', '$.options.tags[0]']);
    expect(input).toEqual({ options: { depth: '2', tags: ['1.5', 3] } });
  });

  it('returns the same object when nothing changes', () => {
    const v = { n: 1, s: 'x' };
    const repairs: Repair[] = [];
    expect(coerce(v, { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string' } } }, '$', repairs)).toBe(v);
    expect(repairs).toEqual([]);
  });

  it('leaves null, and "" for an enum, in an optional field: whether it means "unset" is the model\'s to say (schema.ts tells it how)', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: { limit: { type: 'integer' }, mode: { type: 'string', enum: ['fast', 'full'] }, path: { type: 'string' } },
      required: ['path'],
    };
    const repairs: Repair[] = [];
    const v = { path: 'a', limit: null, mode: '' };
    expect(coerce(v, schema, '$', repairs)).toBe(v);
    expect(repairs).toEqual([]);
  });

  it('keeps a null the schema accepts, and a null for a required field (the validator reports it)', () => {
    const schema: JSONSchema = { type: 'object', properties: { a: { type: ['string', 'null'] }, b: { type: 'string' } }, required: ['b'] };
    const repairs: Repair[] = [];
    expect(coerce({ a: null, b: null }, schema, '$', repairs)).toEqual({ a: null, b: null });
    expect(repairs).toEqual([]);
  });

  it('picks the anyOf branch the value fits once coerced, and only that branch’s repairs', () => {
    const { value, repairs } = run('12', { anyOf: [{ type: 'boolean' }, { type: 'integer' }] });
    expect(value).toBe(12);
    expect(repairs).toHaveLength(1);
    expect(run('12', { anyOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual({ value: '12', repairs: [] });
  });
});

describe('coerce: what it leaves for the validator', () => {
  it.each([
    ['5.2 for an integer', '5.2', { type: 'integer' }],
    ['a word for a number', 'many', { type: 'number' }],
    ['"yes" for a boolean', 'yes', { type: 'boolean' }],
    ['"unknown" for an object', 'unknown', { type: 'object' }],
    ['a broken JSON array', '[1, 2', { type: 'array', items: { type: 'integer' } }],
    ['Infinity for a number', 'Infinity', { type: 'number' }],
    ['an object for a string', { a: 1 }, { type: 'string' }],
    ['two values for a scalar', ['1', '2'], { type: 'integer' }],
  ] as const)('%s', (_, v, s) => {
    expect(run(v, s as JSONSchema)).toEqual({ value: v, repairs: [] });
  });

  it('an enum value two allowed values match equally', () => {
    const fold = (v: string, values: string[]) => compiled({ enum: values }).enum!.fold(v);
    expect(fold('a-b', ['a_b', 'AB'])).toBeUndefined();
    expect(fold('A_B', ['a_b', 'c'])).toBe('a_b');
    expect(fold('A_B', ['a_b', 'a_b'])).toBe('a_b');
  });
});

describe('fitsAfterCoercion', () => {
  it('is true for a value that fits or fits once coerced, false otherwise', () => {
    expect(fitsAfterCoercion(3, { type: 'integer' })).toBe(true);
    expect(fitsAfterCoercion('3', { type: 'integer' })).toBe(true);
    expect(fitsAfterCoercion('three', { type: 'integer' })).toBe(false);
  });
});

describe('coerce through anyOf/oneOf: the branches no coercion can make fit are not tried, and the answer is the same', () => {
  const list = (items: JSONSchema): JSONSchema => ({ type: 'object', properties: { list: { type: 'array', items } } });
  const shape = (kind: JSONSchema, required = ['kind', 'n']): JSONSchema => ({
    type: 'object',
    properties: { kind, n: { type: 'integer' } },
    required,
  });

  it('takes the first branch whose coercion fits, past a null branch, for a scalar and for one wrapped into a list', () => {
    const items = { anyOf: [{ type: 'null' }, { type: 'integer' }, { type: 'array', items: { type: 'string' } }] };
    expect(checkArguments({ list: ['x', '5', 7] }, list(items))).toEqual({
      status: 'repaired',
      args: { list: [['x'], 5, 7] },
      repairs: [
        { kind: 'coerce', path: '$.list[0]', from: '"x"', to: '["x"]', category: 'wrong_type' },
        { kind: 'coerce', path: '$.list[1]', from: '"5"', to: '5', category: 'wrong_type' },
      ],
      invented: [],
    });
  });

  it('a scalar in nested unions takes the first leaf whose coercion fits: an enum value up to case, a number, a boolean', () => {
    const items = { anyOf: [{ type: 'null' }, { anyOf: [{ type: 'integer' }, { enum: ['Alpha', 'beta'] }, { type: 'boolean' }] }] };
    const checked = checkArguments({ list: ['ALPHA', 'x', '3', null, 'TRUE'] }, list(items));
    expect(checked).toMatchObject({
      status: 'blocked',
      problems: [{ category: 'wrong_type', path: '$.list[1]', message: 'expected null, got string' }],
      repairs: [
        { kind: 'enum_case', path: '$.list[0]', from: '"ALPHA"', to: '"Alpha"', category: 'enum_violation' },
        { kind: 'coerce', path: '$.list[2]', from: '"3"', to: '3', category: 'wrong_type' },
        { kind: 'coerce', path: '$.list[4]', from: '"TRUE"', to: 'true', category: 'wrong_type' },
      ],
    });
  });

  it('keeps a branch whose pinned value coercion reaches (0 for the string "0", "ALPHA" for the enum value "Alpha"), and only its repairs', () => {
    const items = { oneOf: [shape({ type: 'string', const: '0' }), shape({ enum: ['Alpha'] }), shape({ const: 'b' })] };
    expect(
      checkArguments(
        {
          list: [
            { kind: 0, n: '1' },
            { kind: 'ALPHA', n: '2' },
            { kind: 'b', n: '3' },
          ],
        },
        list(items),
      ),
    ).toEqual({
      status: 'repaired',
      args: {
        list: [
          { kind: '0', n: 1 },
          { kind: 'Alpha', n: 2 },
          { kind: 'b', n: 3 },
        ],
      },
      repairs: [
        { kind: 'coerce', path: '$.list[0].kind', from: '0', to: '"0"', category: 'wrong_type' },
        { kind: 'coerce', path: '$.list[0].n', from: '"1"', to: '1', category: 'wrong_type' },
        { kind: 'enum_case', path: '$.list[1].kind', from: '"ALPHA"', to: '"Alpha"', category: 'enum_violation' },
        { kind: 'coerce', path: '$.list[1].n', from: '"2"', to: '2', category: 'wrong_type' },
        { kind: 'coerce', path: '$.list[2].n', from: '"3"', to: '3', category: 'wrong_type' },
      ],
      invented: [],
    });
  });

  it('when no branch takes a value, the first branch with the fewest problems speaks (not the one its kind names)', () => {
    const items = { anyOf: [shape({ const: 'a' }), shape({ const: 'b' }, ['kind']), shape({ const: 'c' })] };
    const checked = checkArguments({ list: [{ kind: 'c', n: 'x' }, { kind: 'b' }, { kind: 'd', n: 1 }, { n: 'x' }] }, list(items));
    expect(checked).toMatchObject({ status: 'blocked', repairs: [] });
    expect(checked.status === 'blocked' && checked.problems).toEqual([
      { category: 'missing_required', path: '$.list[3].kind', message: 'missing required parameter "kind"' },
      { category: 'wrong_type', path: '$.list[0].n', message: 'expected integer, got string' },
      { category: 'wrong_type', path: '$.list[3].n', message: 'expected integer, got string' },
      { category: 'enum_violation', path: '$.list[2].kind', message: 'must be "a"' },
    ]);
  });
});
