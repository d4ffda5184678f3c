// A turn whose model proposes calls no layer can afford to read (nested 20,000 deep, 10 MB of
// arguments, the same written into the reply's text): each is an ordinary blocked verdict or plain
// text, and the turn goes on to its answer instead of ending in "The model stream failed unexpectedly".
import { describe, expect, it } from 'vitest';
import { defaultTools } from '../../functions/index.ts';
import { MemoryActivityWriter } from '../activity/memory-writer.ts';
import type { ModelClient, ModelEvent, ModelRequest } from '../model/types.ts';
import { createMemoryStorage } from '../store/memory.ts';
import type { TurnEvent } from '../vocabulary.ts';
import { runTurn } from './turn.ts';

const DEEP = `{"path": "README.md", "x": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
const HUGE = JSON.stringify({ path: 'big.ts', content: 'x'.repeat(10_000_000) });

/** A model that plays the given completions in order, then answers "Done." */
function scripted(completions: ModelEvent[][]): ModelClient {
  let n = 0;
  return {
    model: 'scripted',
    demo: false,
    async *stream(_request: ModelRequest) {
      for (const e of completions[n++] ?? [
        { type: 'text', text: 'Done.' },
        { type: 'finish', toolCalls: [], finishReason: 'stop', usage: null },
      ])
        yield e;
    },
  };
}

async function turnWith(completions: ModelEvent[][]): Promise<{ events: TurnEvent[]; reason: string }> {
  const storage = createMemoryStorage({ 'README.md': '# hi\n' });
  const events: TurnEvent[] = [];
  await runTurn(
    { id: 't1', sessionId: 's1', userId: null, message: 'go' },
    {
      storage,
      model: scripted(completions),
      tools: defaultTools,
      activity: new MemoryActivityWriter(),
      limits: { maxIterations: 5, timeBudgetMs: 60_000, toolTimeoutMs: 5_000, modelRetries: 0 },
    },
    { sink: (e) => events.push(e), signal: new AbortController().signal },
  );
  const done = events.at(-1);
  return { events, reason: done?.event === 'done' ? done.data.reason : 'no done event' };
}

const toolCall = (args: string): ModelEvent[] => [
  { type: 'finish', toolCalls: [{ id: 'c1', name: 'read_file', arguments: args }], finishReason: 'tool_calls', usage: null },
];

describe('runTurn on calls too deep or too large to read', () => {
  it('blocks a call nested 20,000 deep and goes on to the answer', async () => {
    const { events, reason } = await turnWith([toolCall(DEEP)]);
    expect(events.find((e) => e.event === 'agent_error')).toBeUndefined();
    const result = events.find((e) => e.event === 'tool_result');
    expect(result?.data).toMatchObject({ verdict: 'blocked', category: 'malformed_json', ok: false });
    expect(reason).toBe('completed');
  });

  it('blocks 10 MB of arguments unread and goes on to the answer', async () => {
    const { events, reason } = await turnWith([toolCall(HUGE)]);
    const result = events.find((e) => e.event === 'tool_result');
    expect(result?.data).toMatchObject({ verdict: 'blocked', category: 'malformed_json' });
    expect(JSON.stringify(result?.data).length).toBeLessThan(2_000);
    expect(reason).toBe('completed');
  });

  it('leaves a call nested 20,000 deep in the reply as text, and completes', async () => {
    const text = `Reading.\n<tool_call>{"name": "read_file", "arguments": ${DEEP}}</tool_call>`;
    const { events, reason } = await turnWith([
      [
        { type: 'text', text },
        { type: 'finish', toolCalls: [], finishReason: 'stop', usage: null },
      ],
    ]);
    expect(events.find((e) => e.event === 'agent_error')).toBeUndefined();
    expect(events.find((e) => e.event === 'tool_call')).toBeUndefined();
    expect(reason).toBe('completed');
  });
});
