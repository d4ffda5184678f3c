import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../vocabulary.ts';
import { APPROVAL_TRIGGER, DEMO_APPROVAL_PATH, DemoModel } from './demo.ts';
import type { AssembledToolCall, ModelEvent } from './types.ts';

const request = (signal: AbortSignal) => ({ messages: [{ role: 'user' as const, content: 'hello' }], tools: [], toolChoice: 'auto' as const, signal });

describe('DemoModel', () => {
  it('streams its first step word by word, then a finish with its call', async () => {
    const events: ModelEvent[] = [];
    for await (const e of new DemoModel({ wordDelayMs: 0 }).stream(request(new AbortController().signal))) events.push(e);
    const finish = events.at(-1)!;
    expect(finish.type).toBe('finish');
    expect(events.slice(0, -1).every((e) => e.type === 'text')).toBe(true);
    expect(events.length).toBeGreaterThan(2);
  });

  it('an abort ends the pause between words and is thrown before the next word', async () => {
    const controller = new AbortController();
    const reason = new Error('stopped');
    const words: string[] = [];
    // A minute between words: the test would time out if the pause outlived the abort.
    const stream = new DemoModel({ wordDelayMs: 60_000 }).stream(request(controller.signal));
    const consumed = (async () => {
      for await (const e of stream) if (e.type === 'text') words.push(e.text);
    })();
    controller.abort(reason);
    await expect(consumed).rejects.toBe(reason);
    expect(words).toEqual([]);
  });
});

describe('DemoModel, asked to "demo approval"', () => {
  /** The demo's step after `results` (each a tool message's JSON): its text and its call. */
  async function step(results: unknown[]) {
    const messages: ChatMessage[] = [{ role: 'user', content: 'demo approval please' }];
    results.forEach((result, i) => {
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'x', arguments: '{}' } }] });
      messages.push({ role: 'tool', tool_call_id: `c${i}`, content: JSON.stringify(result) });
    });
    let text = '';
    let calls: AssembledToolCall[] = [];
    for await (const e of new DemoModel({ wordDelayMs: 0 }).stream({ messages, tools: [], toolChoice: 'auto', signal: new AbortController().signal })) {
      if (e.type === 'text') text += e.text;
      if (e.type === 'finish') calls = e.toolCalls;
    }
    return { text, calls: calls.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) })) };
  }

  it('is asked for by any message with approval, approve or approving in it, not only the exact phrase', () => {
    for (const text of ['demo approval', 'Approval demo please', 'show me how approvals work', 'ask me to approve something', 'try approving a call'])
      expect(APPROVAL_TRIGGER.test(text), text).toBe(true);
    for (const text of ['hello', 'fix the slugify file', 'demo the iteration limit', 'an approximation']) expect(APPROVAL_TRIGGER.test(text), text).toBe(false);
  });

  it('writes a draft, proposes to delete it, and answers what the person decided', async () => {
    expect((await step([])).calls).toEqual([{ name: 'write_file', args: { path: DEMO_APPROVAL_PATH, content: expect.stringContaining('Draft') } }]);
    const proposal = await step([{ ok: true, result: {} }]);
    expect(proposal.calls).toEqual([{ name: 'delete_file', args: { path: DEMO_APPROVAL_PATH } }]);
    expect(proposal.text).toMatch(/needs your approval/);
    const approved = await step([
      { ok: true, result: {} },
      { ok: true, result: { deleted: [DEMO_APPROVAL_PATH] } },
    ]);
    expect(approved).toEqual({ text: expect.stringMatching(/^Approved and done/), calls: [] });
    const denied = await step([
      { ok: true, result: {} },
      { ok: false, error: 'The call was denied by the user.', reason: 'keep it' },
    ]);
    expect(denied).toEqual({ text: expect.stringMatching(/^You denied the deletion \("keep it"\)/), calls: [] });
    const expired = await step([
      { ok: true, result: {} },
      { ok: false, error: 'The approval expired: nobody decided in time.' },
    ]);
    expect(expired.text).toMatch(/^Nobody decided in time/);
  });
});
