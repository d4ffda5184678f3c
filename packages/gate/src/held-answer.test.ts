import { describe, expect, it } from 'vitest';
import { callsFinish, gatedTextCalls, HeldAnswer, type HeldAnswerOptions, sameCall, splitCalls } from './held-answer.ts';
import { MAX_KEPT_TEXT_CHARS, MAX_TEXT_CALL_CHARS } from './limits.ts';
import { extractTextCalls } from './text-calls.ts';
import { toolSpec } from './tools.ts';
import { gate } from './index.ts';

const tools = [toolSpec({ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } })];

interface Call {
  name: string;
  arguments: string;
  ok: boolean;
}
const call = (args: string, name = 'get_weather'): Call => ({
  name,
  arguments: args,
  ok: gate({ id: 'c', name, arguments: args }, tools).verdict !== 'blocked',
});

function held({ already = [], ...o }: Partial<HeldAnswerOptions<Call>> & { already?: Call[] } = {}) {
  return new HeldAnswer<Call>({
    first: true,
    last: false,
    extract: true,
    accepted: (c) => c.ok,
    sent: (c) => already.some((s) => sameCall(s, c)),
    textCalls: (text, { last }) => {
      const found = extractTextCalls(text, tools);
      if (found.calls.length === 0) return null;
      const calls = found.calls.map((c) => call(JSON.stringify(c.arguments), c.name));
      return last && !calls.every((c) => c.ok) ? null : { calls, visibleText: found.visibleText };
    },
    ...o,
  });
}

const words = (text: string) => text.split(/(?<= )/);

describe('HeldAnswer: what a gating host shows of a streamed answer, and when', () => {
  it('first attempt: text shows as it comes up to a call written into it; the call is taken out at the end, never shown', () => {
    const h = held();
    const text = 'Let me check.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
    const shown = words(text).map((w) => h.pushText(w));
    expect(shown.join('')).toBe('Let me check.\n');
    expect(shown.filter((s) => s !== '').length).toBeGreaterThan(1);
    const end = h.end();
    expect(end.show).toBe('');
    expect(end.found.map((c) => c.arguments)).toEqual(['{"city":"Paris"}']);
    expect(end.visibleText.trim()).toBe('Let me check.');
  });

  it('text without a call: what was held (a brace that was not a call) is shown at the end', () => {
    const h = held();
    expect(h.pushText('Compare {"a": 1} with this.')).toBe('Compare ');
    expect(h.end()).toEqual({ show: '{"a": 1} with this.', found: [], visibleText: 'Compare {"a": 1} with this.' });
  });

  it('no extraction (no tools, or tool choice none): text passes whole, a call in it stays text', () => {
    const h = held({ extract: false });
    expect(h.pushText('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>')).toContain('<tool_call>');
    expect(h.end().found).toEqual([]);
  });

  it('an answer that sent calls keeps its text: nothing is taken out of it', () => {
    const h = held();
    h.pushText('{"name": "get_weather", "arguments": {"city": "Rome"}}');
    expect(h.take(call('{"city":"Paris"}'))).toBe(true);
    const end = h.end();
    expect(end.found).toEqual([]);
    expect(end.show).toContain('Rome');
  });

  it('a blocked call waits; an accepted one goes out', () => {
    const h = held();
    expect(h.take(call('{}'))).toBe(false);
    expect(h.take(call('{"city":"Paris"}'))).toBe(true);
    expect(h.calls).toHaveLength(2);
  });

  it('a retry: its text is held to the end, shown only without a call; a call it repeats is not sent again', () => {
    const sent = [call('{"city": "Paris"}')];
    let h = held({ first: false, already: sent });
    expect(h.pushText('It is sunny.')).toBe('');
    expect(h.end().show).toBe('It is sunny.');
    h = held({ first: false, already: sent });
    h.pushText('Checking again.');
    expect(h.take(call('{ "city":"Paris" }'))).toBe(false);
    expect(h.take(call('{"city":"Rome"}'))).toBe(true);
    expect(h.end().show).toBe('');
  });

  it("past MAX_TEXT_CALL_CHARS nothing is searched, held or kept: a retry's held text goes out with the delta that crosses it", () => {
    const chunk = 'y'.repeat(64 * 1024);
    for (const first of [true, false]) {
      const h = held({ first });
      let text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n';
      let shown = h.pushText(text);
      while (text.length <= MAX_TEXT_CALL_CHARS + 2 * chunk.length) {
        text += chunk;
        shown += h.pushText(chunk);
        expect(h.text.length).toBeLessThanOrEqual(MAX_KEPT_TEXT_CHARS);
      }
      const end = h.end();
      // The whole text reached the client once, the call written into it stays text (never searched).
      expect(shown + end.show).toBe(text);
      expect(end.found).toEqual([]);
      expect(end.visibleText).toBe(text.slice(0, MAX_KEPT_TEXT_CHARS));
    }
  });

  it('last attempt: calls in the text that would not all pass stay in the text; before it they are taken, to be re-asked', () => {
    const text = '<tool_call>{"name": "get_weather", "arguments": {"town": 3}}</tool_call>';
    const before = held();
    before.pushText(text);
    expect(before.end().found.map((c) => c.ok)).toEqual([false]);
    const last = held({ last: true });
    last.pushText(text);
    expect(last.end()).toEqual({ show: text, found: [], visibleText: text });
  });

  it('splitCalls: a call that passes goes out unless an earlier attempt sent it; a blocked one is what a re-ask names', () => {
    const sent = [call('{"city":"Paris"}')];
    const answer = [call('{"city":"Paris"}'), call('{"city":"Rome"}'), call('{}'), call('{"city":"Rome"}')];
    const split = splitCalls(answer, { accepted: (c) => c.ok, sent: (c) => sent.some((s) => sameCall(s, c)) });
    // Two equal calls of the same answer both go: only a repeat of an earlier attempt's call is dropped.
    expect(split.going.map((c) => c.arguments)).toEqual(['{"city":"Rome"}', '{"city":"Rome"}']);
    expect(split.blocked.map((c) => c.arguments)).toEqual(['{}']);
  });

  it('sameCall: the same tool with arguments equal as JSON values', () => {
    expect(sameCall({ name: 'a', arguments: '{"x":1,"y":[2]}' }, { name: 'a', arguments: '{ "y": [2], "x": 1.0 }' })).toBe(true);
    expect(sameCall({ name: 'a', arguments: '{"x":1}' }, { name: 'b', arguments: '{"x":1}' })).toBe(false);
    expect(sameCall({ name: 'a', arguments: '{"x":1' }, { name: 'a', arguments: '{"x":1' })).toBe(true);
    expect(sameCall({ name: 'a', arguments: '{"x":1}' }, { name: 'a', arguments: '{"x":"1"}' })).toBe(false);
  });

  it('gatedTextCalls: each call of the text through check, fresh ids; on the last attempt all must pass', () => {
    const text =
      'Here:\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call> <tool_call>{"name": "get_weather", "arguments": {}}</tool_call>';
    const check = (c: { id: string; name: string; arguments: string }) => ({ ...c, ok: gate(c, tools).verdict !== 'blocked' });
    const found = gatedTextCalls(text, tools, { last: false, check, accepted: (c) => c.ok });
    expect(found?.calls.map((c) => [c.arguments, c.ok])).toEqual([
      ['{"city":"Paris"}', true],
      ['{}', false],
    ]);
    expect(found?.calls[0]?.id).toMatch(/^call_text_[0-9a-f]{8}_0$/);
    expect(found?.visibleText.trim()).toBe('Here:');
    expect(gatedTextCalls(text, tools, { last: true, check, accepted: (c) => c.ok })).toBeNull();
    expect(gatedTextCalls('No call here.', tools, { last: false, check, accepted: (c) => c.ok })).toBeNull();
    expect(gatedTextCalls(text, [], { last: false, check, accepted: (c) => c.ok })).toBeNull();
  });

  it('callsFinish: the finish says tool calls once calls went out that the last answer did not send itself', () => {
    expect(callsFinish([], false)).toBe(false);
    expect(callsFinish([{ embedded: false }], true)).toBe(false);
    expect(callsFinish([{ embedded: true }], true)).toBe(true);
    expect(callsFinish([{ embedded: false }], false)).toBe(true);
  });
});
