import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeDeep, decodeText, encodeDeep, encodeText, ESCAPE, isStorable } from './text-codec.ts';

/** What PostgreSQL accepts in text and jsonb: no NUL, no unpaired surrogate. */
const postgresSafe = (s: string) => !s.includes('\u0000') && (s as unknown as { isWellFormed(): boolean }).isWellFormed();

describe('text codec', () => {
  it.each([
    ['plain text', 'hello, world', 'hello, world'],
    ['astral characters', 'ok \u{1F600} \u{1F9EA}', 'ok \u{1F600} \u{1F9EA}'],
    ['NUL', 'a\u0000b', `a${ESCAPE}0000b`],
    ['a lone high surrogate', 'x\uD800', `x${ESCAPE}d800`],
    ['a lone low surrogate', '\uDC00x', `${ESCAPE}dc00x`],
    ['a reversed pair', '\uDC00\uD800', `${ESCAPE}dc00${ESCAPE}d800`],
    ['the escape itself', `${ESCAPE}0000`, `${ESCAPE}${ESCAPE}0000`],
    ['a high surrogate before a pair', '\uD800\uD83D\uDE00', `${ESCAPE}d800\u{1F600}`],
  ])('%s: encoded as documented, stored safely, decoded exactly', (_, input, encoded) => {
    expect(encodeText(input)).toBe(encoded);
    expect(postgresSafe(encodeText(input))).toBe(true);
    expect(decodeText(encodeText(input))).toBe(input);
  });

  it('leaves a storable string untouched (the same string, not a copy)', () => {
    const s = `${'x'.repeat(1000)}\u{1F600}`;
    expect(isStorable(s)).toBe(true);
    expect(encodeText(s)).toBe(s);
  });

  it('keeps an escape character it did not write (a value from before the codec)', () => {
    expect(decodeText(`a${ESCAPE}zz`)).toBe(`a${ESCAPE}zz`);
  });

  it('round-trips any string and always produces one PostgreSQL accepts', () => {
    const unit = fc.oneof(
      fc.constantFrom('\u0000', ESCAPE, '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '0', 'd', 'f', '\u{1F600}'),
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    );
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 40 }).map((parts) => parts.join('')),
        (s) => {
          const stored = encodeText(s);
          expect(postgresSafe(stored)).toBe(true);
          expect(decodeText(stored)).toBe(s);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('encodes every string of a JSON value, keys included, and decodes it back', () => {
    const value = { 'k\u0000': ['a\uD800', { n: 1, b: true, z: null, s: `${ESCAPE}` }], plain: 'x' };
    const stored = encodeDeep(value);
    expect(postgresSafe(JSON.stringify(stored))).toBe(true);
    expect(Object.keys(stored)).toEqual([`k${ESCAPE}0000`, 'plain']);
    expect(decodeDeep(stored)).toEqual(value);
  });

  it('keeps "__proto__" an own key, never a prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": "\\u0000"}}') as Record<string, unknown>;
    const back = decodeDeep(encodeDeep(value));
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.hasOwn(back, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
