import { describe, expect, it } from 'vitest';
import { costShares, isWasted } from './wasted.ts';

describe('the wasted-call formula', () => {
  it('is wasted only when every proposed call failed and no answer text came', () => {
    expect(isWasted([true, true], '')).toBe(true);
    expect(isWasted([true], '  \n')).toBe(true);
    expect(isWasted([true, false], '')).toBe(false);
    expect(isWasted([true], 'Here is what I found.')).toBe(false);
    expect(isWasted([], '')).toBe(false);
  });

  it('splits a model call’s cost over its rows in whole numbers that add up', () => {
    const shares = costShares({ promptTokens: 1001, completionTokens: 10, ms: 250.4 }, 3, true);
    expect(shares.map((s) => s.prompt_tokens)).toEqual([334, 334, 333]);
    expect(shares.map((s) => s.completion_tokens)).toEqual([4, 3, 3]);
    expect(shares.reduce((n, s) => n + s.model_ms, 0)).toBe(250);
    expect(shares.every((s) => s.wasted)).toBe(true);
  });
});
