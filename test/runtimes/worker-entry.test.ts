// The Worker entry's own wiring, in-process: the activity flush of a turn goes to that request's
// ctx.waitUntil, and without auth settings only loopback requests (wrangler dev) are served. With the
// TURNS binding, turns run in the Durable Object instead (turn-routing.ts says which requests).
import { describe, expect, it } from 'vitest';
import worker, { TurnObject } from '../../src/entries/worker.ts';
import { objectState } from '../support/object-state.ts';

function ctx() {
  const waited: Array<Promise<unknown>> = [];
  return { waited, ctx: { waitUntil: (p: Promise<unknown>) => void waited.push(p), passThroughOnException() {}, props: {} } };
}

const chat = (origin: string) =>
  new Request(`${origin}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello' }) });

describe('src/entries/worker.ts', () => {
  const env = { MODEL: 'gpt-4o-mini', KEEPALIVE_MS: '1000', TURN_TOKEN_SECRET: 'worker-entry-test-secret', SOME_KV: { get() {} } };

  it('runs a demo turn for a loopback request and hands the flush to its ctx.waitUntil', async () => {
    const a = ctx();
    const res = await worker.fetch(chat('http://127.0.0.1:8787'), env, a.ctx);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('event: done');
    expect(body).toContain('"demo":true');
    expect(a.waited.length).toBeGreaterThan(0);
    await Promise.all(a.waited);
  }, 20_000);

  it('refuses POSTs from the public internet without auth settings (503)', async () => {
    const b = ctx();
    const res = await worker.fetch(chat('https://rebound.example.workers.dev'), env, b.ctx);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('auth_not_configured');
    expect((await worker.fetch(new Request('https://rebound.example.workers.dev/health'), env, b.ctx)).status).toBe(200);
  });
});

describe('src/entries/worker.ts with the TURNS binding', () => {
  it('sends /v1/ to the one object that holds in-memory storage and keeps /health in the Worker', async () => {
    const { state, set: alarms } = objectState();
    const named: string[] = [];
    const objects = new Map<string, TurnObject>();
    const env = {
      TURN_TOKEN_SECRET: 'worker-entry-test-secret',
      KEEPALIVE_MS: '1000',
      TURNS: {
        idFromName: (name: string) => {
          named.push(name);
          return name;
        },
        get: (name: string) => {
          const object = objects.get(name) ?? new TurnObject(state, envWithoutBinding);
          objects.set(name, object);
          return { fetch: (r: Request) => Promise.resolve(object.fetch(r)) };
        },
      },
    };
    const envWithoutBinding = { TURN_TOKEN_SECRET: env.TURN_TOKEN_SECRET, KEEPALIVE_MS: env.KEEPALIVE_MS };
    const c = ctx();
    expect((await worker.fetch(new Request('http://127.0.0.1:8787/health'), env, c.ctx)).status).toBe(200);
    expect(named).toEqual([]);
    const res = await worker.fetch(chat('http://127.0.0.1:8787'), env, c.ctx);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('event: done');
    expect(named).toEqual(['local']);
    // The turn ran in the object, which armed its heartbeat, not in the Worker's request.
    expect(alarms).toHaveLength(1);
    expect(c.waited).toEqual([]);
  }, 20_000);

  it('a turn object on a deployment with auth but no storage settings refuses the turn routes (503) and holds nothing', async () => {
    const { state, set: alarms } = objectState();
    const object = new TurnObject(state, {
      REBOUND_JWT_SECRET: 'worker-entry-test-jwt-secret-of-32-chars',
      REBOUND_JWT_ISSUER: 'https://project.example/auth/v1',
      KEEPALIVE_MS: '1000',
    });
    const res = await object.fetch(chat('https://rebound.example.workers.dev'));
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'storage_not_configured' });
    expect(body.error.message).toMatch(/SUPABASE_URL and a secret key missing/);
    expect(await (await object.fetch(new Request('https://rebound.example.workers.dev/health'))).json()).toMatchObject({ storage: 'none' });
    // No memory to keep: no heartbeat armed, no interval pending.
    expect(alarms).toEqual([]);
    expect(object.stayingAwake).toBe(false);
  });
});
