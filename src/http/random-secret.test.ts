import { describe, expect, it } from 'vitest';
import { randomSecret } from './random-secret.ts';

describe('randomSecret', () => {
  it('is two hex digits per byte, 32 bytes unless told', () => {
    expect(randomSecret()).toMatch(/^[0-9a-f]{64}$/);
    expect(randomSecret(16)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('differs from call to call', () => {
    const seen = new Set(Array.from({ length: 100 }, () => randomSecret()));
    expect(seen.size).toBe(100);
  });
});
