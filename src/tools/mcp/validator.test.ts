import { describe, expect, it } from 'vitest';
import { gateSchemaValidator } from './validator.ts';

describe('gateSchemaValidator', () => {
  const check = gateSchemaValidator.getValidator({
    type: 'object',
    properties: { temperature: { type: 'number' }, conditions: { type: 'string' } },
    required: ['temperature', 'conditions'],
  });

  it('passes what fits the output schema, extra keys included (plain JSON Schema)', () => {
    expect(check({ temperature: 33, conditions: 'Cloudy', humidity: 82 })).toEqual({
      valid: true,
      data: { temperature: 33, conditions: 'Cloudy', humidity: 82 },
      errorMessage: undefined,
    });
  });

  it('says what does not fit', () => {
    const r = check({ temperature: '33' });
    expect(r.valid).toBe(false);
    expect(r.errorMessage).toMatch(/\$\.temperature/);
    expect(r.errorMessage).toMatch(/conditions/);
  });
});
