import { describe, expect, it } from 'vitest';
import { gate, type ToolSpec } from 'rebound-gate';
import type { CallOutcome } from '../calls/call-outcome.ts';
import { TurnState } from './turn-state.ts';

const echo: ToolSpec = { name: 'echo', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };
const read: ToolSpec = {
  name: 'read_file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  pathParams: ['path'],
};
const history = [
  { role: 'user' as const, content: 'earlier' },
  { role: 'assistant' as const, content: 'earlier answer' },
];
const state = (tools: ToolSpec[] = [echo]) => new TurnState({ systemPrompt: 'be brief', history, message: 'now', tools });
const signal = new AbortController().signal;

function executed(ok: boolean): CallOutcome {
  const call = { id: 'c1', name: 'echo', arguments: '{"text": "x"}' };
  const verdict = gate(call, [echo]);
  if (verdict.verdict === 'blocked') throw new Error('expected a pass');
  const execution = ok ? { ok: true as const, result: 'x', json: '"x"' } : { ok: false as const, error: 'boom', hint: 'retry', timedOut: false };
  return { kind: 'executed', call, verdict, execution, escalation: null, durationMs: 1 };
}

describe('TurnState', () => {
  it('sends the model the system prompt, the history and the turn, and keeps only the turn for the session', () => {
    const s = state();
    s.add({ role: 'assistant', content: 'thinking' });
    s.nudge('go on');
    const request = s.request(signal);
    expect(request.messages.map((m) => m.content)).toEqual(['be brief', 'earlier', 'earlier answer', 'now', 'thinking', 'go on']);
    expect(request).toMatchObject({ toolChoice: 'auto', turnStart: 3, tools: [echo] });
    expect(request.messages[request.turnStart!]).toEqual({ role: 'user', content: 'now' });
    // Nudges go to the model only.
    expect(s.result('completed').messages).toEqual([
      { role: 'user', content: 'now' },
      { role: 'assistant', content: 'thinking' },
    ]);
  });

  it('asks for the summary with the same prompt and tools, and no calls', () => {
    const s = state();
    const request = s.summaryRequest('iteration_limit', signal);
    expect(request.toolChoice).toBe('none');
    expect(request.tools).toEqual([echo]);
    expect(request.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/maximum number of steps/) });
    expect(s.request(signal).messages).toHaveLength(4); // the summary request is not part of the turn
  });

  it('stops offering a tool the loop breaker withholds', () => {
    const s = state([echo, read]);
    for (let i = 0; i < 3; i++) s.breaker.failed({ tool: 'echo', category: 'missing_required', args: '{}' });
    expect(s.request(signal).tools.map((t) => t.name)).toEqual(['read_file']);
  });

  it('adds up usage, and ignores a completion that reported none', () => {
    const s = state();
    s.addUsage({ promptTokens: 10, completionTokens: 2 });
    s.addUsage(null);
    s.addUsage({ promptTokens: 5, completionTokens: 1 });
    expect(s.result('completed').usage).toEqual({ promptTokens: 15, completionTokens: 3 });
  });

  it('nudges narration once per turn', () => {
    const s = state();
    expect(s.takeNarrationNudge('Here is the answer.')).toBe(false);
    expect(s.takeNarrationNudge("I'll now read the file.")).toBe(true);
    expect(s.takeNarrationNudge("I'll now read the file.")).toBe(false);
  });

  it('builds the path index on first need, keeps it across calls that did not run, and rebuilds it after a tool ran', async () => {
    const s = state([read]);
    let listed = 0;
    const list = async () => {
      listed++;
      return ['src/a.ts'];
    };
    const first = await s.gateContext(list);
    expect(first.paths?.has('src/a.ts')).toBe(true);
    s.called({ kind: 'withheld', call: { id: 'c0', name: 'read_file', arguments: '{}' }, refusal: 'no', durationMs: 0 });
    await s.gateContext(list);
    expect(listed).toBe(1);
    s.called(executed(true));
    await s.gateContext(list);
    expect(listed).toBe(2);
    // No tool names paths: no index, nothing listed.
    let never = 0;
    const listNever = async () => {
      never++;
      return [];
    };
    expect(await state([echo]).gateContext(listNever)).toEqual({});
    expect(never).toBe(0);
  });

  it('counts calls and the failed ones', () => {
    const s = state();
    s.called(executed(true));
    s.called(executed(false));
    s.called({ kind: 'withheld', call: { id: 'c2', name: 'echo', arguments: '{}' }, refusal: 'no', durationMs: 0 });
    expect(s.stats).toEqual({ calls: 3, failed: 2 });
  });
});
