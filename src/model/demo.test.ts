import { describe, expect, it } from 'vitest';
import { DemoModel } from './demo.ts';
import type { ModelEvent } from './types.ts';

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
