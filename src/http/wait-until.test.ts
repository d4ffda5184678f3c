// The platform's waitUntil a route hands the turn service: the one given to createApp, else the request's
// execution context (Workers), else none (Node, where Hono's getter throws); the same however often asked.
import { Context, Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import { waitUntilFor } from './wait-until.ts';

type Deps = Parameters<typeof waitUntilFor>[1];

/** What waitUntilFor answers twice in one request, and the promises each answer handed on. */
async function ask(deps: Deps, ctx?: { waitUntil(p: Promise<unknown>): void; passThroughOnException(): void; props: unknown }, env: object = {}) {
  const answers: Array<ReturnType<typeof waitUntilFor>> = [];
  const app = new Hono();
  app.get('/', (c) => {
    answers.push(waitUntilFor(c, deps), waitUntilFor(c, deps));
    for (const [i, answer] of answers.entries()) answer?.(Promise.resolve(i));
    return c.text('ok');
  });
  await app.fetch(new Request('http://local/'), env, ctx);
  return answers;
}

describe('waitUntilFor', () => {
  it('is none where the request has no execution context (Node), each time it is asked', async () => {
    expect(await ask({})).toEqual([undefined, undefined]);
  });

  it("does not ask Hono's throwing getter on a request @hono/node-server serves (its env: incoming, outgoing)", async () => {
    const getter = vi.spyOn(Context.prototype, 'executionCtx', 'get');
    try {
      expect(await ask({}, undefined, { incoming: {}, outgoing: {} })).toEqual([undefined, undefined]);
      expect(getter).not.toHaveBeenCalled();
      // Elsewhere it is asked (once a request).
      expect(await ask({})).toEqual([undefined, undefined]);
      expect(getter).toHaveBeenCalledTimes(1);
    } finally {
      getter.mockRestore();
    }
  });

  it("hands promises to the request's execution context (Workers), each time it is asked", async () => {
    const kept: Array<Promise<unknown>> = [];
    const answers = await ask({}, { waitUntil: (p) => void kept.push(p), passThroughOnException: () => {}, props: {} });
    expect(answers.every((a) => typeof a === 'function')).toBe(true);
    expect(await Promise.all(kept)).toEqual([0, 1]);
  });

  it("prefers the platform's own (createApp's deps: Supabase, a turn's Durable Object)", async () => {
    const kept: Array<Promise<unknown>> = [];
    const own = (p: Promise<unknown>) => void kept.push(p);
    expect(await ask({ waitUntil: own }, { waitUntil: () => {}, passThroughOnException: () => {}, props: {} })).toEqual([own, own]);
    expect(kept).toHaveLength(2);
  });
});
