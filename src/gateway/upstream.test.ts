import { describe, expect, it } from 'vitest';
import { readBounded } from './upstream.ts';

describe('readBounded', () => {
  it('reads a body up to the cap, and stops past it', async () => {
    const body = () => new Response(new Blob(['{"choices": [', '"é"]}']).stream());
    expect(await readBounded(body(), 64)).toBe('{"choices": ["é"]}');
    expect(await readBounded(body(), 8)).toBeNull();
  });
});
