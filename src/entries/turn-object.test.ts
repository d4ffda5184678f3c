import { afterEach, describe, expect, it, vi } from 'vitest';
import { objectState } from '../../test/support/object-state.ts';
import { HEARTBEAT_MS, MEMORY_HOLD_MS, TurnObject } from './turn-object.ts';

/** A DurableObjectState's alarm, as workerd keeps it: one scheduled time or none. */
function alarmState() {
  const held = objectState();
  /** What workerd does when the alarm is due: clear it, then call alarm(). */
  const fire = async (object: TurnObject) => {
    held.clear();
    await object.alarm();
  };
  return { ...held, fire };
}

const env = { KEEPALIVE_MS: '10000', TURN_TOKEN_SECRET: 'turn-object-test-secret-0123456789' };
const chat = () =>
  new Request('http://127.0.0.1:8787/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello' }) });

afterEach(() => {
  vi.useRealTimers();
});

describe('TurnObject', () => {
  it('keeps a heartbeat alarm armed while a turn runs; holding the sessions in memory, for an hour after the last request', async () => {
    const alarm = alarmState();
    const object = new TurnObject(alarm.state, env);
    const before = Date.now();
    const res = await object.fetch(chat());
    expect(res.status).toBe(200);
    // The turn was handed to the object's waitUntil: one alarm, a heartbeat away.
    expect(object.pendingWork).toBeGreaterThan(0);
    expect(object.stayingAwake).toBe(true);
    expect(alarm.set).toHaveLength(1);
    expect(alarm.set[0]!).toBeGreaterThanOrEqual(before + HEARTBEAT_MS);
    // Its reader leaves at once; the heartbeat keeps the object while the turn runs on.
    await res.body!.cancel();
    expect(object.pendingWork).toBeGreaterThan(0); // the demo model takes seconds to answer
    await alarm.fire(object);
    expect(alarm.current()).not.toBeNull();
    // The turn ends on its own. The object is the only copy of the sessions, so it stays a while…
    for (let i = 0; i < 200 && object.pendingWork > 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(object.pendingWork).toBe(0);
    await alarm.fire(object);
    expect(alarm.current()).not.toBeNull();
    expect(object.stayingAwake).toBe(true);
    // …and an hour after its last request the next alarm lets it go.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + MEMORY_HOLD_MS + 1);
    await alarm.fire(object);
    expect(alarm.current()).toBeNull();
  }, 20_000);

  it('with Supabase storage holds nothing of its own: with no work pending, the alarm lapses at once', async () => {
    const alarm = alarmState();
    const object = new TurnObject(alarm.state, { ...env, SUPABASE_URL: 'http://127.0.0.1:9', SUPABASE_SERVICE_ROLE_KEY: 'service-role-key-for-the-test' });
    expect((await object.fetch(new Request('http://127.0.0.1:8787/health'))).status).toBe(200);
    expect(alarm.set).toEqual([]);
    expect(object.stayingAwake).toBe(false);
    await alarm.fire(object);
    expect(alarm.current()).toBeNull();
  });

  it('serves every request of its turns from one app: a reconnect after the end replays the turn from memory', async () => {
    const alarm = alarmState();
    const object = new TurnObject(alarm.state, env);
    const created = await object.fetch(
      new Request('http://127.0.0.1:8787/v1/turns', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hi' }),
      }),
    );
    expect(created.status).toBe(201);
    const { streamUrl } = (await created.json()) as { streamUrl: string };
    const first = await (await object.fetch(new Request(`http://127.0.0.1:8787${streamUrl}`))).text();
    const again = await (await object.fetch(new Request(`http://127.0.0.1:8787${streamUrl}`))).text();
    const ids = (body: string) => [...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids(first).length).toBeGreaterThan(3);
    expect(ids(again)).toEqual(ids(first));
    const last = ids(first).at(-1)!;
    expect((await object.fetch(new Request(`http://127.0.0.1:8787${streamUrl}`, { headers: { 'last-event-id': String(last) } }))).status).toBe(204);
  }, 20_000);

  it('expires a call that waits for a person by its alarm, and the turn goes on here', async () => {
    const alarm = alarmState();
    const object = new TurnObject(alarm.state, { ...env, APPROVAL_TIMEOUT_MS: '1000' });
    const created = await object.fetch(
      new Request('http://127.0.0.1:8787/v1/turns', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'demo approval' }),
      }),
    );
    expect(created.status).toBe(201);
    const { streamUrl } = (await created.json()) as { streamUrl: string };
    const read = async (lastEventId?: string) => {
      const res = await object.fetch(new Request(`http://127.0.0.1:8787${streamUrl}`, { headers: lastEventId ? { 'last-event-id': lastEventId } : {} }));
      const reader = res.body!.getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text;
        text += new TextDecoder().decode(value);
        if (/event: (approval_required|done)\n/.test(text)) {
          await reader.cancel();
          return text;
        }
      }
    };
    const asked = await read();
    const expiresAt = Date.parse(/"expiresAt":"([^"]+)"/.exec(asked)![1]!);
    // Paused: the object stores the expiry and its alarm comes no later (the heartbeat may come first).
    let stored: { at: number; turnId: string } | undefined;
    for (let i = 0; i < 200 && !stored; i++) {
      stored = alarm.kept.get('approval-expiry') as typeof stored;
      if (!stored) await new Promise((r) => setTimeout(r, 10));
    }
    expect(stored!.at).toBeGreaterThanOrEqual(expiresAt);
    expect(stored!.at).toBeLessThan(expiresAt + 1_000);
    expect(alarm.current()!).toBeLessThanOrEqual(stored!.at);
    // Not due yet: the alarm leaves the call waiting and is set again at the expiry.
    await alarm.fire(object);
    expect(alarm.current()).toBe(stored!.at);
    await new Promise((r) => setTimeout(r, Math.max(0, stored!.at - Date.now()) + 10));
    await alarm.fire(object);
    expect(alarm.kept.has('approval-expiry')).toBe(false);
    const askedId = /event: approval_required\nid: (\d+)/.exec(asked)![1]!;
    const rest = await read(askedId);
    expect(rest).toMatch(/^event: tool_result\nid: \d+\ndata: .*"approval":"expired"/m);
    expect(rest).toMatch(/event: done\n/);
  }, 30_000);
});
