import { describe, expect, it, vi } from 'vitest';
import type { ToolSpec } from 'rebound-gate';
import { SseDecoder, type SseMessage } from '../model/sse-decode.ts';
import { Delivery } from './delivery.ts';
import { HeldStream, type AttemptOptions } from './held-stream.ts';

const TOOLS: ToolSpec[] = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'search', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
];

type Chunk = Record<string, unknown>;
const data = (chunk: Chunk, event: string | null = null): SseMessage => ({ event, data: JSON.stringify(chunk) });
const choice = (delta: Chunk, finish: string | null = null) =>
  data({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const call = (tc: Chunk) => choice({ tool_calls: [tc] });
/** Messages as SSE text: what the upstream sent for them. */
const sse = (messages: SseMessage[]) => messages.map((m) => `${m.event ? `event: ${m.event}\n` : ''}data: ${m.data}\n\n`).join('');
/** Messages as stream.ts hands them to an attempt: their SSE text read back by a decoder with the attempt's lane, one read a call. */
function decoded(held: HeldStream): (messages: SseMessage[]) => void {
  const decoder = new SseDecoder({}, held.lane);
  return (messages) => {
    for (const m of decoder.push(new TextEncoder().encode(sse(messages)))) held.push(m);
  };
}

function attempt(options: Partial<AttemptOptions> = {}) {
  const out: string[] = [];
  const delivery = new Delivery((text) => out.push(text));
  const held = new HeldStream({ toolset: TOOLS, extractTextCalls: true, first: true, last: false, delivery, ...options });
  const chunks = () =>
    out
      .flatMap((t) => t.split('\n\n'))
      .filter((t) => t.startsWith('data: '))
      .map((t) => JSON.parse(t.slice(6)) as Chunk);
  const calls = () =>
    chunks().flatMap(
      (c) =>
        ((c.choices as Array<{ delta: { tool_calls?: unknown[] } }>)[0]?.delta.tool_calls ?? []) as Array<{
          index: number;
          id: string;
          function: { name: string; arguments: string };
        }>,
    );
  const text = () =>
    chunks()
      .map((c) => (c.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content ?? '')
      .join('');
  return { held, out, delivery, calls, text };
}

describe('HeldStream', () => {
  it('passes text chunks on as their own bytes, and holds tool-call deltas until the call is complete', () => {
    const a = attempt();
    const hello = choice({ content: 'Hello ' });
    a.held.push(hello);
    expect(a.out).toEqual([`data: ${hello.data}\n\n`]);
    a.held.push(call({ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } }));
    a.held.push(call({ index: 0, function: { arguments: 'ty": "Oslo"}' } }));
    expect(a.calls()).toEqual([]);
    // The next call's first delta completes the first: it goes out, gated, before the second ends.
    a.held.push(call({ index: 1, id: 'call_2', type: 'function', function: { name: 'search', arguments: '{"q": ' } }));
    expect(a.calls()).toEqual([{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } }]);
    a.held.push(call({ index: 1, function: { arguments: '"rain"}' } }));
    a.held.push(choice({}, 'tool_calls'));
    // The finish chunk completes the last call: it goes out before the body ends.
    expect(a.calls()).toHaveLength(2);
    const result = a.held.end();
    expect(a.calls().map((c) => [c.index, c.id])).toEqual([
      [0, 'call_1'],
      [1, 'call_2'],
    ]);
    expect(result).toMatchObject({ finishReason: 'tool_calls', failed: false, lateDeltas: 0 });
    expect(result.calls.map((c) => c.verdict.verdict)).toEqual(['pass', 'pass']);
  });

  it('without tools to gate against, passes calls on as they came', () => {
    const a = attempt({ toolset: [], extractTextCalls: false });
    const raw = call({ index: 0, id: 'c1', function: { name: 'anything', arguments: '{"x": ' } });
    a.held.push(raw);
    expect(a.out).toEqual([`data: ${raw.data}\n\n`]);
    expect(a.held.end().calls).toEqual([]);
  });

  it('keeps a blocked call back for the retry policy', () => {
    const a = attempt();
    a.held.push(call({ index: 0, id: 'call_x', function: { name: 'get_weather', arguments: '{}' } }));
    a.held.push(choice({}, 'tool_calls'));
    const result = a.held.end();
    expect(a.calls()).toEqual([]);
    expect(result.calls.map((c) => [c.proposed.id, c.verdict.verdict])).toEqual([['call_x', 'blocked']]);
  });

  it('assembles calls sent without an index (Mistral) and drops a repeat under a new id (Cerebras)', () => {
    const a = attempt();
    a.held.push(call({ id: 'm1', function: { name: 'search', arguments: '{"q": "a"}' } }));
    a.held.push(call({ id: 'm2', function: { name: 'get_weather', arguments: '{"city": "b"}' } }));
    a.held.end();
    expect(a.calls().map((c) => [c.index, c.id, c.function.name])).toEqual([
      [0, 'm1', 'search'],
      [1, 'm2', 'get_weather'],
    ]);

    const b = attempt();
    b.held.push(call({ index: 0, id: 'c1', function: { name: 'search', arguments: '{"q": "a"}' } }));
    b.held.push(call({ index: 0, id: 'c2', function: { name: 'search', arguments: '{"q": "a"}' } }));
    b.held.end();
    expect(b.calls().map((c) => c.id)).toEqual(['c1']);
  });

  it('drops (and counts) a delta for a call already sent', () => {
    const a = attempt();
    a.held.push(call({ index: 0, id: 'c1', function: { name: 'search', arguments: '{"q": "a"}' } }));
    a.held.push(call({ index: 1, id: 'c2', function: { name: 'search', arguments: '{"q": "b"}' } }));
    a.held.push(call({ index: 0, function: { arguments: ' ' } }));
    expect(a.held.end().lateDeltas).toBe(1);
    expect(a.calls().map((c) => c.function.arguments)).toEqual(['{"q": "a"}', '{"q": "b"}']);
  });

  it('passes an error chunk on as it came and stops; garbage is passed on too', () => {
    const a = attempt();
    a.held.push({ event: null, data: 'not json' });
    const error = data({ error: { message: 'overloaded' } });
    a.held.push(error);
    a.held.push(choice({ content: 'after' }));
    expect(a.out).toEqual(['data: not json\n\n', `data: ${error.data}\n\n`]);
    expect(a.held.end().failed).toBe(true);
  });

  it('gates only choice 0; the usage is held for the end', () => {
    const a = attempt({ extractTextCalls: false, toolset: [] });
    a.held.push(
      data({
        id: 'x',
        choices: [
          { index: 0, delta: { content: 'zero' } },
          { index: 1, delta: { content: 'one' } },
        ],
      }),
    );
    a.held.push(data({ id: 'x', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } }));
    expect(a.text()).toBe('zero');
    expect(a.out.join('')).not.toContain('usage":{');
    expect(a.held.end().usage).toEqual({ prompt_tokens: 1, completion_tokens: 2 });
  });

  it('turns a call written into the text into a tool call, showing the text around it', () => {
    const a = attempt();
    for (const piece of ['Checking. ', '<tool_call>{"name": "get_weather", ', '"arguments": {"city": "Oslo"}}</tool_call>'])
      a.held.push(choice({ content: piece }));
    a.held.push(choice({}, 'stop'));
    const result = a.held.end();
    expect(a.text()).toBe('Checking. ');
    expect(a.calls().map((c) => c.function)).toEqual([{ name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
    expect(result.calls[0]!.embedded).toBe(true);
  });

  it('on the last attempt leaves a text call that would be blocked in the text', () => {
    const a = attempt({ last: true });
    const text = '{"name": "get_weather", "arguments": {"town": "Oslo"}}';
    a.held.push(choice({ content: text }));
    a.held.end();
    expect(a.text()).toBe(text);
    expect(a.calls()).toEqual([]);
  });

  it('a retry: its text is shown only when it answers without a call, its chunks wear the first id', () => {
    const out: string[] = [];
    const delivery = new Delivery((t) => out.push(t));
    delivery.adopt({ id: 'chatcmpl-first', created: 1, model: 'm' });
    const retry = new HeldStream({ toolset: TOOLS, extractTextCalls: true, first: false, last: true, delivery });
    retry.push(data({ id: 'chatcmpl-second', choices: [{ index: 0, delta: { role: 'assistant', content: 'Sorry. ' } }] }));
    retry.push(
      data({
        id: 'chatcmpl-second',
        choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c9', function: { name: 'search', arguments: '{"q": "x"}' } }] } }],
      }),
    );
    retry.end();
    expect(out.join('')).not.toContain('Sorry');
    expect(out.map((t) => JSON.parse(t.slice(6)).id)).toEqual(['chatcmpl-first']);

    const textOnly = new HeldStream({ toolset: TOOLS, extractTextCalls: true, first: false, last: true, delivery });
    textOnly.push(data({ id: 'chatcmpl-third', choices: [{ index: 0, delta: { content: 'I cannot do that.' } }] }));
    textOnly.end();
    expect(JSON.parse(out.at(-1)!.slice(6))).toMatchObject({ id: 'chatcmpl-first', choices: [{ delta: { content: 'I cannot do that.' } }] });
  });
  it('reads the chunks that only add text without JSON.parse, and writes what the full read writes', () => {
    const words = ['Let ', 'me ', 'check. ', '<tool_call>{"name": "get_weather", ', '"arguments": {"city": "Oslo"}}', '</tool_call>', ' Done.'];
    // OpenAI's chunks: the same id and fields, another content and another obfuscation string each.
    const stream = (id: (i: number) => string) => [
      ...words.map((content, i) =>
        data({
          id: id(i),
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm',
          choices: [{ index: 0, delta: { content }, finish_reason: null }],
          obfuscation: 'x'.repeat(i + 1),
        }),
      ),
      data({ id: id(words.length), object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    ];
    const run = (messages: SseMessage[]) => {
      const a = attempt();
      const parse = vi.spyOn(JSON, 'parse');
      decoded(a.held)(messages);
      const parses = parse.mock.calls.length;
      parse.mockRestore();
      a.held.end();
      return { ...a, parses };
    };
    const same = stream(() => 'chatcmpl-1');
    const quick = run(same);
    // Chunks whose ids differ never match a learned one: every chunk is parsed.
    const other = stream((i) => `chatcmpl-${i}`);
    const full = run(other);
    expect(quick.text()).toBe('Let me check.  Done.');
    expect(full.text()).toBe(quick.text());
    expect(quick.calls().map((c) => c.function)).toEqual([{ name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
    expect(full.calls().map((c) => c.function)).toEqual(quick.calls().map((c) => c.function));
    // The text before the call went out as the upstream's own bytes, the chunks after the first in one write.
    expect(quick.out.slice(0, 2)).toEqual([sse(same.slice(0, 1)), sse(same.slice(1, 3))]);
    expect(full.out.slice(0, 3)).toEqual(other.slice(0, 3).map((m) => sse([m])));
    expect(quick.parses).toBeLessThan(full.parses);
  });

  it('passes a run of text chunks the lane read on as one write of their text, and writes what the full read writes wherever a read ends', () => {
    const openai = (content: string, i: number) =>
      data({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
        obfuscation: 'x'.repeat(i % 5),
      });
    // '{', '\n': the text is held for a moment (the chunk is rewritten) and shown with the next chunk's; a run goes on around them.
    const words = ['Let ', 'me ', 'check é. ', 'see {', 'not json} ', 'ok ', 'fine.\n', 'Next ', 'one. '];
    const body =
      sse([choice({ role: 'assistant', content: '' }), ...words.map(openai)]) +
      // A CRLF event breaks the run (the decoder reads it); the text chunks after it are a run again.
      `data: ${openai('crlf ', 0).data}\r\n\r\n` +
      sse([
        ...['and ', 'more. '].map(openai),
        call({ index: 0, id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":' } }),
        call({ index: 0, function: { arguments: '"rain"}' } }),
        choice({}, 'tool_calls'),
        { event: null, data: '[DONE]' },
      ]);
    const bytes = new TextEncoder().encode(body);
    /**
     * What the attempt writes with the body in two reads cut at `cut`: the text written, each write, and
     * what a codec's channel reads (text parsed, objects as they are; without OpenAI's obfuscation
     * string, which no codec reads and a chunk read as a repeat of another does not carry as its own).
     */
    const written = (cut: number, lane: boolean, codec: boolean) => {
      const out: string[] = [];
      const read: unknown[] = [];
      const delivery = new Delivery(
        (t) => {
          out.push(t);
          for (const e of t.split('\n\n').filter(Boolean)) read.push(e === 'data: [DONE]' ? e : { ...JSON.parse(e.slice(6)), obfuscation: undefined });
        },
        codec ? (c) => read.push({ ...c, obfuscation: undefined }) : undefined,
      );
      const held = new HeldStream({ toolset: TOOLS, extractTextCalls: true, first: true, last: false, delivery });
      const decoder = new SseDecoder({}, lane ? held.lane : undefined);
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut)]) for (const m of decoder.push(part)) held.push(m);
      for (const m of decoder.end()) held.push(m);
      const result = held.end();
      const events = out.flatMap((t) => t.split('\n\n').filter(Boolean));
      return { text: out.join(''), writes: out.length, events, read, calls: result.calls.map((c) => c.verdict.verdict) };
    };
    const full = written(bytes.length, false, false);
    const fullCodec = written(bytes.length, false, true);
    // The call written into the text became a tool call; the text around it was shown.
    expect(full.calls).toEqual(['pass']);
    expect(full.text).toContain('"content":"{not json} "');
    expect(full.text).toContain('"content":"\\nNext "');
    const whole = written(bytes.length, true, false);
    // In one read: the run from 'me ' is one write up to 'see {', rewritten, then the next writes; the same bytes.
    expect(whole.text).toBe(full.text);
    expect(whole.writes).toBeLessThan(full.writes);
    expect(whole.events).toEqual(full.events);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const got = written(cut, true, false);
      expect(got.text, `cut at byte ${cut}`).toBe(full.text);
      expect(got.calls).toEqual(full.calls);
      if (cut % 7 === 0) expect(written(cut, true, true).read, `cut at byte ${cut}, a codec's channel`).toEqual(fullCodec.read);
    }
    // A codec's channel took the chunks the lane read as objects, not text.
    expect(written(bytes.length, true, true).writes).toBeLessThan(fullCodec.writes);
  });

  it('parses each event the lane did not read once: the lane hands over the parse it learned from', () => {
    const messages = [
      choice({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'x', arguments: '' } }] }),
      ...['{"a":', ' 1', ', "b"', ': 2}'].map((a) => call({ index: 0, function: { arguments: a } })),
      choice({}, 'tool_calls'),
      { event: null, data: '[DONE]' },
    ];
    const bytes = new TextEncoder().encode(sse(messages));
    const run = (lane: boolean) => {
      const out: string[] = [];
      const held = new HeldStream({ toolset: [], extractTextCalls: false, first: true, last: true, delivery: new Delivery((t) => out.push(t)) });
      const decoder = new SseDecoder({}, lane ? held.lane : undefined);
      const parse = vi.spyOn(JSON, 'parse');
      for (const m of [...decoder.push(bytes), ...decoder.end()]) held.push(m);
      const parses = parse.mock.calls.length;
      parse.mockRestore();
      held.end();
      return { out: out.join(''), parses };
    };
    const full = run(false);
    expect(full.parses).toBe(6);
    expect(run(true)).toEqual(full);
  });

  it('learns no template from a text chunk it does not pass on as it came: an error, usage or finish_reason of any value but null', () => {
    for (const [field, value] of [
      ['finish_reason', ''],
      ['usage', 0],
      ['error', false],
    ] as const) {
      const text = (content: string) => {
        const c: Chunk = {
          id: 'chatcmpl-1',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm',
          choices: [{ index: 0, delta: { content }, finish_reason: null }],
        };
        if (field === 'finish_reason') (c.choices as Chunk[])[0]!.finish_reason = value;
        else c[field] = value;
        return data(c);
      };
      const bytes = new TextEncoder().encode(sse(['a ', 'b ', 'c ', 'd '].map(text)));
      const run = (lane: boolean) => {
        const out: string[] = [];
        const held = new HeldStream({ toolset: TOOLS, extractTextCalls: true, first: true, last: false, delivery: new Delivery((t) => out.push(t)) });
        const decoder = new SseDecoder({}, lane ? held.lane : undefined);
        for (const m of [...decoder.push(bytes), ...decoder.end()]) held.push(m);
        const { finishReason, usage, failed } = held.end();
        return { out: out.join(''), finishReason, usage, failed };
      };
      const full = run(false);
      expect(full.out, field).not.toBe(new TextDecoder().decode(bytes));
      expect(run(true), field).toEqual(full);
    }
  });

  it("hands a codec's channel each chunk as the parse of the text it would have written", () => {
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const text = (content: string, extra: Chunk = {}) =>
      data({ ...base, choices: [{ index: 0, delta: { content, ...extra }, logprobs: null, finish_reason: null }] });
    const messages = [
      text('Hello ', { role: 'assistant' }),
      text('there, '),
      text('friend. '),
      // A native upstream's block beside the text: a codec reads it, so such a chunk goes as its text.
      text('A ', { rebound_block: { type: 'thinking', thinking: 'hm' } }),
      text('B ', { rebound_block: { type: 'thinking', thinking: 'hm' } }),
      call({ index: 0, id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }),
      call({ index: 0, function: { arguments: '"Oslo"}' } }),
      choice({}, 'tool_calls'),
    ];
    const written = (read: boolean) => {
      const events: Chunk[] = [];
      const objects: string[] = [];
      const delivery = new Delivery(
        (t) => {
          for (const block of t.split('\n\n').filter(Boolean)) events.push(JSON.parse(block.slice(6)) as Chunk);
        },
        read
          ? (chunk) => {
              events.push(chunk);
              objects.push(String((chunk.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content));
            }
          : undefined,
      );
      const held = new HeldStream({ toolset: TOOLS, extractTextCalls: true, first: true, last: false, delivery });
      decoded(held)(messages);
      held.end();
      return { events, objects };
    };
    const asText = written(false);
    const asObjects = written(true);
    expect(asObjects.events).toEqual(asText.events);
    // The text chunk that matched the learned one ('there, ', read in full) and the gated call went over as objects; the ones with a block as text.
    expect(asObjects.objects).toEqual(['friend. ', 'undefined']);
    expect(asText.events).toHaveLength(6);
  });

  it("reads a native upstream's chunks handed over as objects as it reads their text, the events alike", () => {
    const base = { id: 'msg_1', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const chunk = (delta: Chunk, finish: string | null = null, extra: Chunk = {}): SseMessage =>
      data({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
    const done: SseMessage = { event: null, data: '[DONE]' };
    const answer = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello ' }),
      chunk({ content: 'there. ' }),
      chunk({ rebound_block: { type: 'thinking', thinking: 'hm', signature: 's' } }),
      // A call, held and gated, then sent whole by the gateway.
      chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
      chunk({}, 'tool_calls', { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }),
      done,
    ];
    const failing = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hi' }), data({ error: { message: 'overloaded' } })];
    const run = (messages: SseMessage[], objects: boolean, read: boolean, first: boolean) => {
      const events: unknown[] = [];
      const delivery = new Delivery((t) => events.push(t), read ? (c) => events.push(c) : undefined);
      const held = new HeldStream({ toolset: TOOLS, extractTextCalls: true, first, last: false, delivery });
      for (const m of messages) {
        if (!objects) held.push(m);
        else held.pushChunk(m.data === '[DONE]' ? null : (JSON.parse(m.data) as Chunk));
      }
      const result = held.end();
      // What the codec reads: each text write parsed, each object as it is.
      const parsed = events.flatMap((e) =>
        typeof e === 'string'
          ? e
              .split('\n\n')
              .filter(Boolean)
              .map((b) => (b === 'data: [DONE]' ? '[DONE]' : (JSON.parse(b.slice(6)) as unknown)))
          : [e],
      );
      return { read: parsed, events, result: { ...result, calls: result.calls.map((c) => c.verdict.verdict) } };
    };
    for (const messages of [answer, failing]) {
      for (const first of [true, false]) {
        const text = run(messages, false, true, first);
        const objects = run(messages, true, true, first);
        expect(objects.read).toEqual(text.read);
        expect(objects.result).toEqual(text.result);
        // With no codec to read objects, the chunks go out as the text the upstream's translation would have written.
        expect(run(messages, true, false, first).events.join('')).toBe(run(messages, false, false, first).events.join(''));
      }
    }
    // Objects only: nothing went as text to split and parse again.
    expect(run(answer, true, true, true).events.every((e) => typeof e !== 'string')).toBe(true);
    expect(run(answer, false, true, true).read).toHaveLength(5);
  });
});
