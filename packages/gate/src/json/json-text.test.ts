import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepJsonText, jsonText } from './json-text.ts';

describe('jsonText', () => {
  it('writes what JSON.stringify writes for any JSON value', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => deepJsonText(v) === JSON.stringify(v)));
    const odd = { a: undefined, b: [undefined, () => 1], c: new Date(0), d: 'é"\n\u001b' };
    expect(deepJsonText(odd)).toBe(JSON.stringify(odd));
  });

  it('writes a value nested deeper than JSON.stringify goes, and JSON.parse reads it back', () => {
    let v: unknown = { type: 'string' };
    for (let i = 0; i < 50_000; i++) v = { anyOf: [v, { type: 'null' }] };
    expect(() => JSON.stringify(v)).toThrow(RangeError);
    const text = jsonText(v);
    expect(text.startsWith('{"anyOf":[{"anyOf":[')).toBe(true);
    expect(JSON.parse(text)).toBeTypeOf('object');
  });
});
