import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../store/memory.ts';
import { gatewayLimits, usageTokens } from './limits.ts';

describe('usageTokens', () => {
  it('counts total_tokens, or prompt + completion without one; nothing for what a provider reports that is not a count', () => {
    expect(usageTokens({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 })).toBe(120);
    expect(usageTokens({ prompt_tokens: 100, completion_tokens: 20 })).toBe(120);
    expect(usageTokens({ prompt_tokens: 100, completion_tokens: 'many', total_tokens: null })).toBe(100);
    for (const nonsense of [null, undefined, 'x', 7, { total_tokens: -5 }, { total_tokens: Number.NaN }, { total_tokens: Infinity }]) {
      expect(usageTokens(nonsense)).toBe(0);
    }
  });
});

describe('gatewayLimits', () => {
  it('is nothing without GATEWAY_RPM and GATEWAY_TOKENS_PER_DAY', () => {
    expect(gatewayLimits({ requestsPerMinute: null, tokensPerDay: null }, createMemoryStorage().meters)).toBeUndefined();
  });

  it('a token count that cannot be stored is logged, not thrown: the answer is out already', async () => {
    const lines: string[] = [];
    const failing = { add: async () => Promise.reject(new Error('store down')) };
    const limits = gatewayLimits({ requestsPerMinute: null, tokensPerDay: 10 }, failing, { log: (l) => lines.push(l) })!;
    await limits.charge('user:x', { total_tokens: 42 });
    expect(lines).toEqual([expect.stringMatching(/^rebound gateway: 42 tokens could not be counted against GATEWAY_TOKENS_PER_DAY \(.*store down/)]);
  });
});
