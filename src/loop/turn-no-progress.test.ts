// A stubborn model (issue 24): one that repeats a failing call whatever it is told is stopped after
// NO_PROGRESS_ITERATIONS iterations of nothing but repeated failures, with a summary that names what
// kept failing; one that varies its attempts is left alone; the nudge never says "call the next tool now".
import { describe, expect, it } from 'vitest';
import { defaultTools } from '../../functions/index.ts';
import type { ActivityWriter } from '../activity/types.ts';
import type { ModelClient, ModelEvent, ModelRequest } from '../model/types.ts';
import { createMemoryStorage } from '../store/memory.ts';
import type { ChatMessage, TurnEvent } from '../vocabulary.ts';
import { REPEATED } from './nudges.ts';
import { runTurn } from './turn.ts';

const activity: ActivityWriter = { recordCall: () => {}, recordTurn: () => {}, flush: async () => ({ written: 0, dropped: 0 }) };

/** A model that answers every request with `call(n)` (the n-th model call), and writes a summary when tools are off. */
function scripted(call: (n: number) => { name: string; arguments: string }) {
  const requests: ModelRequest[] = [];
  const client: ModelClient = {
    model: 'stubborn',
    demo: false,
    async *stream(request): AsyncGenerator<ModelEvent> {
      requests.push({ ...request, messages: [...request.messages] });
      const usage = { promptTokens: 100 * requests.length, completionTokens: 10 };
      if (request.toolChoice === 'none') {
        yield { type: 'text', text: 'I could not update the profile: there is no such tool.' };
        yield { type: 'finish', toolCalls: [], finishReason: 'stop', usage };
        return;
      }
      yield { type: 'finish', toolCalls: [{ id: `c${requests.length}`, ...call(requests.length) }], finishReason: 'tool_calls', usage };
    },
  };
  return { client, requests };
}

async function play(client: ModelClient, noProgressIterations?: number) {
  const storage = createMemoryStorage();
  const sessionId = await storage.sessions.ensureSession(null);
  const turn = await storage.sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId: null, message: 'Update the customer profile of Ada.' });
  await storage.sessions.claimTurn(turn.id);
  const events: TurnEvent[] = [];
  const limits = { maxIterations: 10, timeBudgetMs: 60_000, toolTimeoutMs: 5_000, modelRetries: 0, noProgressIterations };
  await runTurn(turn, { storage, model: client, tools: defaultTools, activity, limits }, { sink: (e) => events.push(e), signal: new AbortController().signal });
  return events;
}

const lastUser = (messages: ChatMessage[]) => [...messages].reverse().find((m) => m.role === 'user')!.content as string;

describe('a turn that makes no progress', () => {
  it('stops the stubborn model with no_progress after 4 model calls, naming what kept failing, never suggesting delete_file', async () => {
    const { client, requests } = scripted(() => ({ name: 'update_customer_profile', arguments: '{"customer": "Ada", "email": "ada@example.com"}' }));
    const events = await play(client);
    expect(requests).toHaveLength(4);
    expect(events.filter((e) => e.event === 'forced_summary')).toEqual([{ event: 'forced_summary', data: { reason: 'no_progress' } }]);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'no_progress', iterations: 3 } });
    expect(requests[3]!.toolChoice).toBe('none');
    expect(lastUser(requests[3]!.messages)).toContain('"update_customer_profile" (no such tool, 3 times)');
    for (const e of events) {
      if (e.event !== 'tool_result') continue;
      expect(e.data.suggestions ?? []).not.toContain('delete_file');
      expect(e.data.error).not.toContain('Did you mean');
    }
    // After a repeated failure the nudge says what to do instead.
    expect(lastUser(requests[2]!.messages)).toBe(REPEATED);
    for (const r of requests.slice(2)) expect(lastUser(r.messages)).not.toContain('call the next tool now');
  });

  it('runs the same for remove_file: blocked every time, delete_file never runs', async () => {
    const { client, requests } = scripted(() => ({ name: 'remove_file', arguments: '{"path": "notes.md"}' }));
    const events = await play(client);
    expect(requests).toHaveLength(4);
    expect(events.filter((e) => e.event === 'tool_result').map((e) => e.event === 'tool_result' && [e.data.name, e.data.verdict])).toEqual([
      ['remove_file', 'blocked'],
      ['remove_file', 'blocked'],
      ['remove_file', 'blocked'],
    ]);
  });

  it('follows NO_PROGRESS_ITERATIONS', async () => {
    const { client, requests } = scripted(() => ({ name: 'update_customer_profile', arguments: '{}' }));
    expect((await play(client, 1)).at(-1)).toMatchObject({ event: 'done', data: { reason: 'no_progress', iterations: 2 } });
    expect(requests).toHaveLength(3);
  });

  it('leaves a model that varies its attempts alone', async () => {
    const { client, requests } = scripted((n) => ({ name: 'update_customer_profile', arguments: JSON.stringify({ attempt: n }) }));
    expect((await play(client)).at(-1)).toMatchObject({ event: 'done', data: { reason: 'iteration_limit', iterations: 10 } });
    expect(requests).toHaveLength(11);
  });
});
