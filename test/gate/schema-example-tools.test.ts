import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defaultTools } from '../../functions/index.ts';
// The schema repairs are the package's own (not its public surface): a test that needs the server's
// tools (functions/) reads them by path, from here, not from the server's code.
import { checkArguments } from '../../packages/gate/src/schema/schema-repair.ts';
import type { JSONSchema } from 'rebound-gate';
import { schemaExample, validate } from 'rebound-gate/internal';

/** A second opinion that checks every keyword (bounds, formats), not only what the gate checks. */
const zodAccepts = (schema: JSONSchema, value: unknown) => z.fromJSONSchema(schema as never).safeParse(value).success;

describe('schemaExample', () => {
  it('fills required properties only, nested objects and arrays included', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: {
        path: { type: 'string' },
        optional: { type: 'string' },
        options: {
          type: 'object',
          properties: { depth: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['depth', 'tags'],
        },
        points: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      },
      required: ['path', 'options', 'points'],
    };
    expect(schemaExample(schema)).toEqual({ path: 'example', options: { depth: 1, tags: ['example'] }, points: [{ x: 1 }] });
  });

  it('takes const, then the first enum value, then a valid default or example', () => {
    expect(schemaExample({ type: 'string', const: 'fixed', enum: ['a'] })).toBe('fixed');
    expect(schemaExample({ type: 'string', enum: ['utf-8', 'base64'], default: 'base64' })).toBe('utf-8');
    expect(schemaExample({ type: 'integer', default: 7 })).toBe(7);
    expect(schemaExample({ type: 'integer', examples: [42] })).toBe(42);
    // A default that does not fit its own schema is not shown as valid.
    expect(schemaExample({ type: 'integer', default: 'seven' })).toBe(1);
  });

  it('stays within numeric and length bounds', () => {
    expect(schemaExample({ type: 'integer', minimum: 5 })).toBe(5);
    expect(schemaExample({ type: 'integer', maximum: -3 })).toBe(-3);
    expect(schemaExample({ type: 'integer', exclusiveMinimum: 1 })).toBe(2);
    expect(schemaExample({ type: 'number', exclusiveMaximum: 1 })).toBe(0.5);
    expect(schemaExample({ type: 'integer', minimum: 1.5, maximum: 3 })).toBe(2);
    expect(schemaExample({ type: 'integer', minimum: 10, multipleOf: 4 })).toBe(12);
    expect(schemaExample({ type: 'string', minLength: 10 })).toHaveLength(10);
    expect(schemaExample({ type: 'string', maxLength: 3 })).toHaveLength(3);
    expect(schemaExample({ type: 'array', items: { type: 'integer' }, minItems: 3 })).toEqual([1, 1, 1]);
    expect(schemaExample({ type: 'array', items: { type: 'integer' }, maxItems: 0 })).toEqual([]);
  });

  it('prefers a real value to null, and the first branch that gives a valid value', () => {
    expect(schemaExample({ type: ['null', 'boolean'] })).toBe(false);
    expect(schemaExample({ anyOf: [{ type: 'string', enum: [] }, { type: 'integer' }] })).toBe(1);
    expect(schemaExample({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('example');
    expect(schemaExample({ type: 'string', format: 'date-time' })).toBe('2025-01-01T00:00:00Z');
  });

  it('ends on a schema that contains itself', () => {
    const schema: JSONSchema = { type: 'object', properties: {}, required: ['next'] };
    schema.properties!.next = schema;
    expect(() => schemaExample(schema)).not.toThrow();
  });

  it('gives every tool in functions/ an example the gate passes untouched', () => {
    for (const tool of defaultTools) {
      const args = schemaExample(tool.parameters) as Record<string, unknown>;
      expect(validate(args, tool.parameters), tool.name).toEqual([]);
      expect(checkArguments(args, tool.parameters), tool.name).toEqual({ status: 'pass', args });
      expect(zodAccepts(tool.parameters, args), tool.name).toBe(true);
    }
  });

  it('gives a valid value for random schemas', () => {
    fc.assert(
      fc.property(schemaArb(), (schema) => {
        const value = schemaExample(schema);
        expect(validate(value, schema)).toEqual([]);
        expect(zodAccepts(schema, value)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

/** JSON Schemas of the kind tools declare, with bounds that some value can always meet. */
function schemaArb(): fc.Arbitrary<JSONSchema> {
  const name = fc.stringMatching(/^[a-z_]{1,8}$/);
  const scalar = fc.oneof(fc.string({ maxLength: 5 }), fc.integer({ min: -5, max: 5 }), fc.boolean(), fc.constant(null));
  const { schema } = fc.letrec<{ schema: JSONSchema }>((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.record(
        { type: fc.constant('string'), minLength: fc.option(fc.nat(12), { nil: undefined }), default: fc.option(scalar, { nil: undefined }) },
        { requiredKeys: ['type'] },
      ),
      fc
        .tuple(fc.integer({ min: -20, max: 20 }), fc.nat(20), fc.boolean(), fc.boolean(), fc.option(scalar, { nil: undefined }))
        .map(([min, span, integer, exclusive, given]) => ({
          type: integer ? 'integer' : 'number',
          ...(exclusive ? { exclusiveMinimum: min - 1, exclusiveMaximum: min + span + 1 } : { minimum: min, maximum: min + span }),
          ...(given === undefined ? {} : { default: given }),
        })),
      fc.record({ type: fc.constantFrom('boolean', 'null') }),
      fc.uniqueArray(scalar, { minLength: 1, maxLength: 4, selector: (v) => JSON.stringify(v) }).map((values) => ({ enum: values })),
      scalar.map((value) => ({ const: value })),
      fc.record({ type: fc.constant('array'), items: tie('schema'), minItems: fc.option(fc.nat(3), { nil: undefined }) }, { requiredKeys: ['type', 'items'] }),
      fc
        .dictionary(name, tie('schema'), { maxKeys: 4 })
        .chain((properties) => fc.subarray(Object.keys(properties)).map((required) => ({ type: 'object', properties, required, additionalProperties: false }))),
      fc.array(tie('schema'), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    ) as fc.Arbitrary<JSONSchema>,
  }));
  return schema;
}
