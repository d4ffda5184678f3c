import { describe, expect, it } from 'vitest';
import type { LoggedEvent, TurnEvent } from '../vocabulary.ts';
import { LiveTurns } from './live-turns.ts';
import { createMemoryStorage } from '../store/memory.ts';
import { unpackEvents } from '../store/turn-events.ts';

const usage = { promptTokens: 0, completionTokens: 0 };

async function collect(iter: AsyncIterable<LoggedEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const e of iter) out.push(e.event);
  return out;
}

describe('LiveTurns', () => {
  it('runs a turn detached from its readers: one that leaves does not stop it', async () => {
    const turns = new LiveTurns({ retainMs: 10 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const live = turns.start({
      turnId: 't1',
      produce: async (emit, signal) => {
        emit({ event: 'text_delta', data: { text: 'a' } });
        await gate;
        emit({ event: 'text_delta', data: { text: 'b' } });
        emit({ event: 'done', data: { reason: signal.aborted ? 'aborted' : 'completed', iterations: 1, usage } });
      },
    });
    const leaving = new AbortController();
    const early = collect(live.log.read(0, leaving.signal));
    await new Promise((r) => setTimeout(r, 5));
    leaving.abort();
    expect(await early).toHaveLength(1);
    release();
    await live.settled;
    const events = await collect(turns.get('t1')!.log.read(0));
    expect(events.map((e) => e.event)).toEqual(['text_delta', 'text_delta', 'done']);
    expect(events.at(-1)!.data).toMatchObject({ reason: 'completed' });
  });

  it('stop() aborts the producer, which ends the turn as aborted; stopping twice is harmless', async () => {
    const turns = new LiveTurns();
    const live = turns.start({
      turnId: 't2',
      produce: async (emit, signal) => {
        await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
        emit({ event: 'done', data: { reason: 'aborted', iterations: 0, usage } });
      },
    });
    live.stop();
    live.stop();
    await live.settled;
    expect(live.stopping).toBe(true);
    expect(live.log.since(0).map((e) => e.event.data)).toEqual([{ reason: 'aborted', iterations: 0, usage }]);
  });

  it('a producer that throws still ends the turn with agent_error and done for every reader', async () => {
    const lines: string[] = [];
    const turns = new LiveTurns({ log: (l) => lines.push(l) });
    const live = turns.start({
      turnId: 't3',
      produce: async () => {
        throw new Error('bug');
      },
    });
    const events = await collect(live.log.read(0));
    expect(events.map((e) => e.event)).toEqual(['agent_error', 'done']);
    expect(events[1]!.data).toMatchObject({ reason: 'error' });
    expect(lines[0]).toMatch(/turn t3 failed/);
    expect(() => turns.start({ turnId: 't3', produce: async () => {} })).toThrow(/already running/);
  });

  it('a turn that paused with its log stored holds none of it in memory; the store has all of it', async () => {
    const storage = createMemoryStorage();
    const sessionId = await storage.sessions.ensureSession('u');
    const { id: turnId } = await storage.sessions.createTurn({ id: 'paused', sessionId, userId: 'u', message: 'm' });
    const events = storage.turnEvents;
    const turns = new LiveTurns({ retainMs: 10, log: () => {} });
    const live = turns.start({
      turnId,
      events,
      produce: async (emit) => {
        for (let i = 0; i < 200; i++) emit({ event: 'text_delta', data: { text: 'x'.repeat(10_240) } });
        return 'paused';
      },
    });
    await live.settled;
    expect(live.paused).toBe(true);
    expect(live.log.held).toEqual({ events: 0, bytes: 0 });
    expect(unpackEvents(await events.eventsAfter('paused', 0), 0)).toHaveLength(200);
  });
});
