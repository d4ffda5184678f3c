import { describe, expect, it } from 'vitest';
import { JwksUnavailableError, jwksBackoffFetch } from './jwks-backoff.ts';

const KEYS = JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k' }] });

/** A backoff fetch over a scripted JWKS (each call takes the next answer), on a clock the test moves. */
function scripted(answers: Array<'hang' | 'refused' | number | 'garbage'>) {
  let clock = 0;
  let calls = 0;
  const backoff = jwksBackoffFetch({
    firstMs: 5_000,
    maxMs: 30_000,
    now: () => clock,
    fetch: async () => {
      const answer = answers[calls++] ?? 200;
      if (answer === 'hang') throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      if (answer === 'refused') throw new TypeError('fetch failed');
      if (answer === 'garbage') return new Response('<html>', { status: 200 });
      return new Response(answer === 200 ? KEYS : 'no', { status: answer });
    },
  });
  const load = () => backoff.fetch('https://project.example/auth/v1/.well-known/jwks.json', {});
  return { backoff, load, at: (ms: number) => (clock = ms), calls: () => calls };
}

async function failure(p: Promise<unknown>): Promise<JwksUnavailableError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JwksUnavailableError);
  return err as JwksUnavailableError;
}

describe('jwksBackoffFetch', () => {
  it('after a failure, fails at once without a connection until the backoff has passed, doubling it up to maxMs', async () => {
    const s = scripted(['hang', 'hang', 'hang', 'hang', 'hang']);
    expect((await failure(s.load())).message).toBe('the JWKS did not answer in time (tried again in 5 s)');
    for (const t of [0, 1_000, 4_999]) {
      s.at(t);
      expect((await failure(s.load())).message).toMatch(/^the JWKS did not answer in time; 1 failure\(s\) in a row, tried again in \d s$/);
    }
    expect(s.calls()).toBe(1);
    // Each period costs one attempt: 5 s, then 10, 20, and 30 s (the cap).
    for (const [t, wait] of [
      [5_000, 10],
      [15_000, 20],
      [35_000, 30],
      [65_000, 30],
    ] as const) {
      s.at(t - 1);
      await failure(s.load());
      s.at(t);
      expect((await failure(s.load())).message).toContain(`(tried again in ${wait} s)`);
    }
    expect(s.calls()).toBe(5);
    expect(s.backoff.attempts()).toBe(5);
  });

  it('counts a refused connection, a status other than 200 and a body that is not a key set as failures; a key set ends the backoff', async () => {
    const s = scripted(['refused', 503, 'garbage', 200, 'refused']);
    expect((await failure(s.load())).message).toBe('the JWKS could not be reached: fetch failed (tried again in 5 s)');
    s.at(5_000);
    expect((await failure(s.load())).message).toBe('the JWKS answered HTTP 503, not 200 (tried again in 10 s)');
    s.at(15_000);
    expect((await failure(s.load())).message).toBe('the JWKS answer is not a key set ({"keys":[…]}) (tried again in 20 s)');
    s.at(35_000);
    const ok = await s.load();
    expect(await ok.json()).toEqual(JSON.parse(KEYS));
    // The next failure starts the backoff again from its first period.
    expect((await failure(s.load())).message).toBe('the JWKS could not be reached: fetch failed (tried again in 5 s)');
    expect(s.calls()).toBe(5);
  });
});
