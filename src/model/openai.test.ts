// Usage from the upstream is validated at the model boundary: a count that is not a non-negative
// safe integer would fail the turn-row batch in PostgreSQL for every turn in it.
import { describe, expect, it } from 'vitest';
import { validUsage } from './openai.ts';

describe('validUsage', () => {
  it('keeps non-negative safe integers', () => {
    expect(validUsage({ prompt_tokens: 0, completion_tokens: 20, total_tokens: 20 })).toEqual({ promptTokens: 0, completionTokens: 20 });
    expect(validUsage({ prompt_tokens: 3e9, completion_tokens: Number.MAX_SAFE_INTEGER })).toEqual({
      promptTokens: 3e9,
      completionTokens: Number.MAX_SAFE_INTEGER,
    });
  });

  it.each([
    ['a string', { prompt_tokens: 'abc', completion_tokens: 1 }],
    ['a numeric string', { prompt_tokens: '12', completion_tokens: 1 }],
    ['a negative count', { prompt_tokens: -1, completion_tokens: 1 }],
    ['a fraction', { prompt_tokens: 1.5, completion_tokens: 1 }],
    ['past the safe integers', { prompt_tokens: 2 ** 53, completion_tokens: 1 }],
    ['NaN', { prompt_tokens: Number.NaN, completion_tokens: 1 }],
    ['Infinity', { prompt_tokens: 1, completion_tokens: Number.POSITIVE_INFINITY }],
    ['null', { prompt_tokens: null, completion_tokens: 1 }],
    ['a missing count', { completion_tokens: 1 }],
    ['an object', { prompt_tokens: { n: 1 }, completion_tokens: 1 }],
  ])('is null for %s', (_name, raw) => {
    expect(validUsage(raw)).toBeNull();
  });

  it('is null for a usage that is not an object', () => {
    for (const raw of [null, undefined, 42, 'usage', [1, 2]]) expect(validUsage(raw)).toBeNull();
  });
});
