import { describe, expect, it } from 'vitest';
import { checkArguments } from './schema-repair.ts';
import { validate } from './schema.ts';
import type { JSONSchema } from '../types.ts';

const cats = (problems: { category: string; path: string }[]) => problems.map((p) => `${p.category} ${p.path}`);

describe('validate (corpus semantics)', () => {
  const schema: JSONSchema = {
    type: 'object',
    properties: {
      n: { type: 'integer' },
      x: { type: 'number' },
      name: { type: 'string' },
      mode: { type: 'string', enum: ['fast', 'slow'] },
      points: { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
      opts: { type: 'object', properties: { depth: { type: 'integer' } }, required: ['depth'] },
    },
    required: ['n'],
  };

  it('accepts 5.0 for an integer and an integer for a number', () => {
    expect(validate(JSON.parse('{"n": 5.0, "x": 3}'), schema)).toEqual([]);
  });

  it('never accepts a boolean as a number, nor null for an optional string', () => {
    expect(cats(validate({ n: true, name: null }, schema))).toEqual(['wrong_type $.n', 'wrong_type $.name']);
  });

  it('reports missing, unknown, enum and nested problems with JSON paths', () => {
    const problems = validate(
      {
        mode: 'FAST',
        opts: {},
        points: [
          [1, 2],
          [3, 'x'],
        ],
        extra: 1,
      },
      schema,
    );
    expect(cats(problems).sort()).toEqual(
      ['enum_violation $.mode', 'missing_required $.n', 'missing_required $.opts.depth', 'unknown_parameter $.extra', 'wrong_type $.points[1][1]'].sort(),
    );
  });

  it('gives a wrong-typed value only wrong_type, not also enum_violation', () => {
    expect(cats(validate({ n: 1, mode: 3 }, schema))).toEqual(['wrong_type $.mode']);
  });

  it('allows unknown keys in nested objects unless additionalProperties is false', () => {
    expect(validate({ n: 1, opts: { depth: 1, more: true } }, schema)).toEqual([]);
    const strict: JSONSchema = { type: 'object', properties: { o: { type: 'object', properties: {}, additionalProperties: false } } };
    expect(cats(validate({ o: { more: true } }, strict))).toEqual(['unknown_parameter $.o.more']);
  });
});

describe('checkArguments (repairs)', () => {
  it('repairs {"with_verdict": "True"} to a boolean', () => {
    const r = checkArguments({ with_verdict: 'True' }, { type: 'object', properties: { with_verdict: { type: 'boolean' } } });
    expect(r).toMatchObject({ status: 'repaired', args: { with_verdict: true } });
    expect(r.status === 'repaired' && r.repairs[0]).toMatchObject({ kind: 'coerce', path: '$.with_verdict', category: 'wrong_type' });
  });

  it('coerces losslessly and leaves lossy values blocked', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: {
        count: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' } },
        filter: { type: 'object' },
        ids: { type: 'array', items: { type: 'integer' } },
        label: { type: 'string' },
      },
    };
    const r = checkArguments({ count: '42', tags: 'a, b', filter: "{'k': 1}", ids: 7, label: 10 }, schema);
    expect(r).toMatchObject({ status: 'repaired', args: { count: 42, tags: ['a', 'b'], filter: { k: 1 }, ids: [7], label: '10' } });
    expect(checkArguments({ count: 5.2 }, schema).status).toBe('blocked');
    expect(checkArguments({ filter: 'unknown' }, schema).status).toBe('blocked');
  });

  it('leaves null for an optional field to the model, telling it how to say "unset"; null for a required one is plainly wrong', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' }, m: { type: 'string', enum: ['x'] } },
      required: ['a'],
    };
    const r = checkArguments({ a: 'x', b: null, m: '' }, schema);
    expect(r).toMatchObject({
      status: 'blocked',
      problems: [
        { category: 'wrong_type', path: '$.b' },
        { category: 'enum_violation', path: '$.m' },
      ],
    });
    if (r.status === 'blocked') {
      expect(r.problems[0]!.message).toBe('expected integer, got null. To leave "b" unset, omit it instead of sending null; otherwise send a value');
      expect(r.problems[1]!.message).toMatch(/To leave "m" unset, omit it instead of sending ""/);
    }
    expect(checkArguments({ a: null }, schema)).toMatchObject({
      status: 'blocked',
      problems: [{ category: 'wrong_type', path: '$.a', message: 'expected string, got null' }],
    });
    // A null the schema takes is no problem.
    expect(checkArguments({ a: 'x', n: null }, { ...schema, properties: { ...schema.properties, n: { type: ['integer', 'null'] } } }).status).toBe('pass');
  });

  it('fills a required parameter the model left out from the default its description states, when the schema takes it as written', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: {
        number: { type: 'integer' },
        formatted: { type: 'boolean', description: 'Return formatted string if true, array if false. Default is true.' },
        order: { type: 'string', enum: ['ascending', 'descending'], description: 'If not specified, it will default to ascending.' },
        dish: { type: 'string', description: 'The dish. Default is not use if not specified.' },
      },
      required: ['number', 'formatted', 'order'],
    };
    const r = checkArguments({ number: 450 }, schema);
    expect(r).toMatchObject({ status: 'repaired', args: { number: 450, formatted: true, order: 'ascending' } });
    expect(r.status === 'repaired' && r.repairs).toEqual([
      { kind: 'fill_default', path: '$.formatted', to: 'true', from: 'its description', category: 'missing_required' },
      { kind: 'fill_default', path: '$.order', to: '"ascending"', from: 'its description', category: 'missing_required' },
    ]);
    // A word the schema does not take as written is no default: nothing is made up.
    expect(checkArguments({ number: 1, formatted: true, order: 'ascending' }, { ...schema, required: ['dish'] })).toMatchObject({ status: 'blocked' });
  });

  it('repairs an enum value that differs in case or spacing, and suggests the closest otherwise', () => {
    const schema: JSONSchema = { type: 'object', properties: { unit: { type: 'string', enum: ['Celsius', 'Fahrenheit', 'Kelvin'] } } };
    expect(checkArguments({ unit: 'fahrenheit' }, schema)).toMatchObject({ status: 'repaired', args: { unit: 'Fahrenheit' } });
    const r = checkArguments({ unit: 'kelvinn' }, schema);
    expect(r).toMatchObject({ status: 'blocked', problems: [{ category: 'enum_violation' }] });
    expect(r.status === 'blocked' && r.suggestions[0]).toBe('Kelvin');
  });

  it('renames a parameter the model spelt differently', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: { file_path: { type: 'string' }, content: { type: 'string' } },
      required: ['file_path', 'content'],
    };
    const r = checkArguments({ filepath: 'a.txt', text: 'hi' }, schema);
    expect(r).toMatchObject({ status: 'repaired', args: { file_path: 'a.txt', content: 'hi' }, invented: [] });
    expect(r.status === 'repaired' && r.repairs.map((x) => `${x.kind} ${x.from}->${x.to}`)).toEqual(['rename filepath->file_path', 'rename text->content']);
  });

  it('drops an unknown parameter from the call and records it as invented', () => {
    const schema: JSONSchema = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };
    const r = checkArguments({ query: 'rust', max_tokens_per_page: 5 }, schema);
    expect(r).toMatchObject({ status: 'repaired', args: { query: 'rust' }, invented: ['max_tokens_per_page'] });
    expect(r.status === 'repaired' && r.repairs[0]?.category).toBe('unknown_parameter');
  });

  it('unwraps one wrapper level', () => {
    const schema: JSONSchema = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } }, required: ['a'] };
    expect(checkArguments({ arguments: { a: 1, b: 'x' } }, schema)).toMatchObject({ status: 'repaired', args: { a: 1, b: 'x' } });
    expect(checkArguments({ input: { a: '1' } }, schema)).toMatchObject({ status: 'repaired', args: { a: 1 } });
  });

  it('validates and repairs nested array items at depth', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: {
        rows: {
          type: 'array',
          items: { type: 'object', properties: { id: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['id'] },
        },
      },
    };
    expect(checkArguments({ rows: [{ id: '1', tags: 'x' }] }, schema)).toMatchObject({ status: 'repaired', args: { rows: [{ id: 1, tags: ['x'] }] } });
    const r = checkArguments({ rows: [{ id: 1 }, { tags: [] }, { id: 'two' }] }, schema);
    expect(r.status === 'blocked' && cats(r.problems)).toEqual(['missing_required $.rows[1].id', 'wrong_type $.rows[2].id']);
  });

  it('blocks a missing required parameter it cannot recover', () => {
    const schema: JSONSchema = { type: 'object', properties: { side1: { type: 'number' }, side2: { type: 'number' } }, required: ['side1', 'side2'] };
    const r = checkArguments({ radius: 3 }, schema);
    expect(r).toMatchObject({ status: 'blocked', invented: ['radius'] });
    expect(r.status === 'blocked' && cats(r.problems)).toEqual(['missing_required $.side1', 'missing_required $.side2']);
  });
});
