import { describe, expect, it } from 'vitest';
import { addUsage } from './usage.ts';

describe('addUsage', () => {
  it('sums every count, nested details included, and keeps what only one attempt reported', () => {
    let total = addUsage(null, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } });
    total = addUsage(total, null);
    total = addUsage(total, {
      prompt_tokens: 20,
      completion_tokens: 7,
      total_tokens: 27,
      prompt_tokens_details: { cached_tokens: 1 },
      completion_tokens_details: { reasoning_tokens: 3 },
    });
    expect(total).toEqual({
      prompt_tokens: 30,
      completion_tokens: 12,
      total_tokens: 42,
      prompt_tokens_details: { cached_tokens: 5 },
      completion_tokens_details: { reasoning_tokens: 3 },
    });
  });
});
