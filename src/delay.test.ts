import { describe, expect, it } from 'vitest';
import { delay } from './delay.ts';

describe('delay', () => {
  it('waits at least the given time', async () => {
    const t0 = performance.now();
    await delay(30);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
  });

  it('resolves at once when the signal aborts, and is a no-op on an aborted signal', async () => {
    const controller = new AbortController();
    const waiting = delay(60_000, { signal: controller.signal });
    controller.abort();
    await waiting;
    await delay(60_000, { signal: controller.signal });
  });
});
