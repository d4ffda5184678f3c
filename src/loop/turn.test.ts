// runTurn owns a turn from turn_start to done, persistence included: the order of what it writes into
// its sink and into the stores, on a normal turn, a stop, a failed save and a bug.
import { describe, expect, it } from 'vitest';
import type { ActivityWriter } from '../activity/types.ts';
import type { ModelClient, ModelEvent } from '../model/types.ts';
import { createMemoryStorage } from '../store/memory.ts';
import type { Storage } from '../store/types.ts';
import type { Tool } from '../tools/types.ts';
import type { TurnEvent } from '../vocabulary.ts';
import { runTurn } from './turn.ts';

const echo: Tool = {
  name: 'echo',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: async (args) => ({ echoed: args.text }),
};
const limits = { maxIterations: 5, timeBudgetMs: 60_000, toolTimeoutMs: 5_000, modelRetries: 0 };
const finish = (toolCalls: Array<{ id: string; name: string; arguments: string }> = []): ModelEvent => ({
  type: 'finish',
  toolCalls,
  finishReason: null,
  usage: { promptTokens: 3, completionTokens: 1 },
});

/** A model that calls echo once, then answers; `onSecond` runs before the answer. */
function model(onSecond: () => void = () => {}): ModelClient {
  let n = 0;
  return {
    model: 'scripted',
    demo: false,
    async *stream() {
      if (n++ === 0) {
        yield { type: 'text', text: 'Echoing. ' };
        yield finish([{ id: 'c1', name: 'echo', arguments: '{"text": "hi"}' }]);
        return;
      }
      onSecond();
      yield { type: 'text', text: 'Done.' };
      yield finish();
    },
  };
}

/** Everything the turn does, in one timeline: its events and its writes to the stores. */
function recorder(storage: Storage, failSave = false) {
  const timeline: string[] = [];
  const events: TurnEvent[] = [];
  const sessions = storage.sessions;
  const watched: Storage = {
    ...storage,
    sessions: Object.assign(Object.create(sessions), {
      appendMessages: async (...args: Parameters<typeof sessions.appendMessages>) => {
        timeline.push(`appendMessages(${args[2].length})`);
        if (failSave) throw new Error('database away');
        return sessions.appendMessages(...args);
      },
      finishTurn: async (turnId: string) => {
        timeline.push('finishTurn');
        return sessions.finishTurn(turnId);
      },
    }),
  };
  const activity: ActivityWriter = {
    recordCall: () => timeline.push('recordCall'),
    recordTurn: (row) => timeline.push(`recordTurn(${row.outcome})`),
    flush: async () => {
      timeline.push('flush');
      return { written: 0, dropped: 0 };
    },
  };
  const sink = (e: TurnEvent) => {
    events.push(e);
    timeline.push(e.event === 'done' ? `done(${e.data.reason})` : e.event);
  };
  return { storage: watched, activity, sink, timeline, events };
}

async function turnIn(storage: Storage) {
  const sessionId = await storage.sessions.ensureSession(null);
  const turn = await storage.sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId: null, message: 'echo hi' });
  await storage.sessions.claimTurn(turn.id);
  return turn;
}

describe('runTurn', () => {
  it('writes turn_start first, then the loop, then saves the turn, then done, then hands off the flush', async () => {
    const base = createMemoryStorage();
    const turn = await turnIn(base);
    const { storage, activity, sink, timeline, events } = recorder(base);
    await runTurn(turn, { storage, model: model(), tools: [echo], activity, limits }, { sink, signal: new AbortController().signal });
    expect(timeline).toEqual([
      'turn_start',
      'text_delta',
      'tool_call',
      'tool_result',
      'recordCall',
      'text_delta',
      'recordTurn(completed)',
      'appendMessages(4)',
      'finishTurn',
      'done(completed)',
      'flush',
    ]);
    expect(events[0]).toEqual({ event: 'turn_start', data: { turnId: turn.id, sessionId: turn.sessionId, model: 'scripted', demo: false } });
    expect(events.at(-1)).toEqual({ event: 'done', data: { reason: 'completed', iterations: 2, usage: { promptTokens: 6, completionTokens: 2 } } });
    // What was saved is what the next turn reads.
    const history = await base.sessions.history(turn.sessionId);
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(JSON.parse((history[2] as { content: string }).content)).toEqual({ ok: true, result: { echoed: 'hi' } });
    expect((await base.sessions.getTurn(turn.id))?.status).toBe('finished');
  });

  it('a stop ends the turn as aborted, still saved before done, with the text already shown', async () => {
    const base = createMemoryStorage();
    const turn = await turnIn(base);
    const { storage, activity, sink, timeline } = recorder(base);
    const stop = new AbortController();
    await runTurn(turn, { storage, model: model(() => stop.abort()), tools: [echo], activity, limits }, { sink, signal: stop.signal });
    expect(timeline.slice(-5)).toEqual(['recordTurn(aborted)', 'appendMessages(4)', 'finishTurn', 'done(aborted)', 'flush']);
    expect((await base.sessions.history(turn.sessionId)).at(-1)).toEqual({ role: 'assistant', content: 'Done.' });
  });

  it('a save that fails is told as an agent_error before done, and the turn still ends', async () => {
    const base = createMemoryStorage();
    const turn = await turnIn(base);
    const { storage, activity, sink, timeline, events } = recorder(base, true);
    await runTurn(turn, { storage, model: model(), tools: [echo], activity, limits }, { sink, signal: new AbortController().signal });
    expect(timeline.slice(-4)).toEqual(['appendMessages(4)', 'agent_error', 'done(completed)', 'flush']);
    expect(events.find((e) => e.event === 'agent_error')?.data).toEqual({ message: 'This turn could not be saved to the session history.', retryable: false });
  });

  it('a bug (the history cannot be read) ends the turn with an error, saves nothing but still finishes it', async () => {
    const base = createMemoryStorage();
    const turn = await turnIn(base);
    const { storage, activity, sink, timeline } = recorder(base);
    storage.sessions.history = async () => {
      throw new Error('bug');
    };
    const lines: string[] = [];
    await runTurn(
      turn,
      { storage, model: model(), tools: [echo], activity, limits, log: (l) => lines.push(l) },
      { sink, signal: new AbortController().signal },
    );
    expect(timeline).toEqual(['turn_start', 'agent_error', 'recordTurn(error)', 'finishTurn', 'done(error)', 'flush']);
    expect(lines[0]).toMatch(/^rebound: turn .* failed: Error: bug/);
  });
});
