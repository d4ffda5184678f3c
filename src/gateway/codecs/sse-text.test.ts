import type { ToolSpec } from 'rebound-gate';
import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../model/sse-decode.ts';
import type { StreamChannel } from '../stream.ts';
import { heldCodec } from '../../../test/support/held-codec.ts';
import { messagesChannel, textDeltas } from './messages-out.ts';
import { outputTextDeltas, responsesChannel } from './responses-out.ts';
import { jsonString, sseEvent } from './sse-text.ts';

/** A channel's sink that keeps each write, and the writes. */
function collecting(): { out: StreamChannel; written: string[] } {
  const written: string[] = [];
  const out: StreamChannel = {
    write: (t) => {
      written.push(t);
    },
    drained: async () => {},
    flush: () => {},
  };
  return { out, written };
}

const TEXTS = ['', 'Hello ', 'say "hi"', 'a\nb\tc\\d', 'ünïcødé → 🙂', 'lone \ud800 surrogate', 'line\u2028separator', '</script>'];

describe("the codecs' events, written without an object", () => {
  it('text deltas are byte for byte what sseEvent writes for the same events, one by one and a run at once', () => {
    const message = (text: string) => sseEvent('content_block_delta', { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text } });
    const response = (text: string, seq: number, id = 'msg_1') =>
      sseEvent('response.output_text.delta', {
        type: 'response.output_text.delta',
        sequence_number: seq,
        item_id: id,
        output_index: 2,
        content_index: 0,
        delta: text,
        logprobs: [],
      });
    for (const [i, text] of TEXTS.entries()) {
      // An empty text is no event.
      expect(textDeltas(3)(TEXTS, i, i + 1)).toBe(text === '' ? '' : message(text));
      expect(outputTextDeltas(`msg_${text}`, 2)(41, TEXTS, i, i + 1)).toBe(text === '' ? '' : response(text, 41, `msg_${text}`));
    }
    // A run: the same events one after another, the empty texts left out, numbered on from `seq`.
    const run = [...TEXTS, '', ...TEXTS, 'end'];
    const shown = run.filter((t) => t !== '');
    expect(textDeltas(3)(run, 0, run.length)).toBe(shown.map(message).join(''));
    expect(textDeltas(3)(run, 2, 5)).toBe(
      run
        .slice(2, 5)
        .filter((t) => t !== '')
        .map(message)
        .join(''),
    );
    expect(outputTextDeltas('msg_1', 2)(7, run, 0, run.length)).toBe(shown.map((t, k) => response(t, 7 + k)).join(''));
    expect(textDeltas(3)(run, 4, 4)).toBe('');
  });

  it("a string's JSON text is JSON.stringify's, for every UTF-16 code unit, alone and among others", () => {
    const units = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c));
    for (const u of units) {
      for (const text of [u, `a${u}`, `${u}b`, `x ${u}${u} y`])
        if (jsonString(text) !== JSON.stringify(text)) expect(jsonString(text)).toBe(JSON.stringify(text));
    }
    for (const text of [...TEXTS, '😀', '\udc00\ud800', 'a\ud83d', '\ude00b', '\u2028\u2029', '\u007f', 'ÿ', ''])
      expect(jsonString(text)).toBe(JSON.stringify(text));
  });

  it("the response the stream's first and last events carry is byte for byte what sseEvent writes for its object (the request's echo, the items, the usage)", () => {
    const tools = [{ type: 'function', name: 'f "x"', parameters: { type: 'object', properties: { a: { type: 'string', description: TEXTS.join('') } } } }];
    const echos = [
      {
        model: 'm',
        freeform: new Set<string>(),
        instructions: TEXTS.join(''),
        tools,
        tool_choice: { type: 'function', name: 'f "x"' },
        parallel_tool_calls: false,
      },
      { model: `m ${TEXTS.join('')}`, freeform: new Set<string>(), instructions: null, tools: [], tool_choice: 'required' },
      { model: 'm', freeform: new Set<string>() },
    ];
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    });
    for (const echo of echos) {
      for (const finish of ['stop', 'length']) {
        const { out, written } = collecting();
        const channel = responsesChannel(out, echo);
        channel.chunk!(chunk({ content: TEXTS.join('') }));
        channel.chunk!(chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f "x"', arguments: '{"a":"é"}' } }] }));
        channel.chunk!(chunk({}, finish, { usage: { prompt_tokens: 3, completion_tokens: 5 }, rebound: { attempts: 2, verdict: 'repaired' } }));
        channel.write('data: [DONE]\n\n');
        const events = written.join('').replace(/"created_at":\d+/g, '"created_at":1');
        const id = events.match(/resp_[0-9a-f]{32}/)![0];
        const shell = (status: string) => ({
          id,
          object: 'response',
          created_at: 1,
          status,
          error: null,
          incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
          instructions: echo.instructions ?? null,
          model: echo.model,
          output: [] as unknown[],
          parallel_tool_calls: echo.parallel_tool_calls ?? true,
          tool_choice: echo.tool_choice ?? 'auto',
          tools: echo.tools ?? [],
          usage: null as unknown,
        });
        const started = shell('in_progress');
        expect(events.startsWith(sseEvent('response.created', { type: 'response.created', sequence_number: 0, response: started }))).toBe(true);
        expect(events).toContain(sseEvent('response.in_progress', { type: 'response.in_progress', sequence_number: 1, response: started }));
        // The last event: the items as the stream's own events wrote them, parsed back.
        const items = [...events.matchAll(/event: response\.output_item\.done\ndata: ([^\n]*)\n\n/g)].map((m) => JSON.parse(m[1]!).item);
        expect(items).toHaveLength(2);
        const status = finish === 'length' ? 'incomplete' : 'completed';
        const last = events.slice(events.lastIndexOf('event: '));
        const seq = Number(JSON.parse(last.slice(last.indexOf('data: ') + 6)).sequence_number);
        const usage = {
          input_tokens: 3,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 8,
        };
        expect(last).toBe(
          sseEvent(`response.${status}`, {
            type: `response.${status}`,
            sequence_number: seq,
            response: { ...shell(status), output: items, usage },
            rebound: { attempts: 2, verdict: 'repaired' },
          }),
        );
      }
    }
  });

  it("a call's events and a text item's first events are byte for byte what sseEvent writes for their objects, each string written once", () => {
    const { out, written } = collecting();
    const channel = responsesChannel(out, { model: 'm', freeform: new Set(['apply "patch" é']), tools: [] });
    const chunk = (delta: Record<string, unknown>) => ({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: null }],
    });
    const events: string[] = [];
    let seq = 2;
    const event = (type: string, fields: Record<string, unknown>) => events.push(sseEvent(type, { type, sequence_number: seq++, ...fields }));
    channel.chunk!(chunk({ content: 'x' }));
    const msg = written.join('').match(/msg_[0-9a-f]{32}/)![0];
    expect(msg).toBe(`msg_${/resp_([0-9a-f]{28})/.exec(written[0]!)![1]}0000`);
    event('response.output_item.added', { output_index: 0, item: { id: msg, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
    const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    event('response.content_part.added', { item_id: msg, output_index: 0, content_index: 0, part });
    event('response.output_text.delta', { item_id: msg, output_index: 0, content_index: 0, delta: 'x', logprobs: [] });
    const full = { ...part, text: 'x' };
    event('response.output_text.done', { item_id: msg, output_index: 0, content_index: 0, text: 'x', logprobs: [] });
    event('response.content_part.done', { item_id: msg, output_index: 0, content_index: 0, part: full });
    event('response.output_item.done', { output_index: 0, item: { id: msg, type: 'message', status: 'completed', role: 'assistant', content: [full] } });
    // Names, ids and arguments with every kind of character JSON escapes; a freeform tool's call; an id that is no string.
    const calls = TEXTS.map((text, i) => ({
      id: i === 3 ? 42 : `call ${text}`,
      name: i % 2 ? 'apply "patch" é' : `f ${text}`,
      args: i % 2 ? JSON.stringify({ input: text }) : JSON.stringify({ q: text }),
    }));
    const random = /resp_([0-9a-f]{28})/.exec(written[0]!)![1]!;
    for (const [i, call] of calls.entries()) {
      const writes = written.length;
      channel.chunk!(chunk({ tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.name, arguments: call.args } }] }));
      // The call's four events in one write (the first call's after the text item's end, its three in one).
      expect(written.length).toBe(writes + (i === 0 ? 2 : 1));
      const custom = i % 2 === 1;
      const id = written
        .join('')
        .match(custom ? /ctc_[0-9a-f]{32}/g : /fc_[0-9a-f]{32}/g)!
        .at(-1)!;
      // Each item's id: its kind, the response's random part, its place in the output (unique within the response).
      expect(id).toBe(`${custom ? 'ctc' : 'fc'}_${random}${(i + 1).toString(16).padStart(4, '0')}`);
      const body = custom ? TEXTS[i]! : call.args;
      const item = {
        id,
        type: custom ? 'custom_tool_call' : 'function_call',
        status: 'completed',
        call_id: String(call.id),
        name: call.name,
        [custom ? 'input' : 'arguments']: body,
      };
      event('response.output_item.added', { output_index: i + 1, item: { ...item, status: 'in_progress', [custom ? 'input' : 'arguments']: '' } });
      if (custom) {
        event('response.custom_tool_call_input.delta', { item_id: id, output_index: i + 1, delta: body });
        event('response.custom_tool_call_input.done', { item_id: id, output_index: i + 1, input: body });
      } else {
        event('response.function_call_arguments.delta', { item_id: id, output_index: i + 1, delta: body });
        event('response.function_call_arguments.done', { item_id: id, output_index: i + 1, name: call.name, arguments: body });
      }
      event('response.output_item.done', { output_index: i + 1, item });
    }
    // response.created and response.in_progress first.
    expect(written.slice(2).join('')).toBe(events.join(''));
  });

  it('text chunks handed over as the learned one and their texts write what the same chunks do (StreamChannel.texts)', () => {
    const like = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content: 'x' }, logprobs: null, finish_reason: null }],
    };
    const withText = (content: string) => ({ ...like, choices: [{ ...like.choices[0]!, delta: { ...like.choices[0]!.delta, content } }] });
    const run = (open: (out: StreamChannel) => StreamChannel, asText: boolean) => {
      const { out, written } = collecting();
      const channel = open(out);
      // The first chunk (as a message of its own or as the learned one), texts (one, then a run, then a
      // run of a run's middle), a call between, texts, the finish.
      const texts = ['Hi ', '', 'say "x"\n', 'é 🙂', '\u2028', 'back\\slash', '', 'plain '];
      const parts: [number, number][] = [
        [0, 1],
        [1, 5],
        [5, 5],
        [5, 7],
      ];
      for (const [from, to] of parts) {
        if (asText) channel.texts!(like, texts, from, to);
        else for (const content of texts.slice(from, to)) channel.chunk!(withText(content));
      }
      channel.chunk!({
        ...like,
        choices: [
          { index: 0, delta: { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: null },
        ],
      });
      if (asText) channel.texts!(like, ['', 'after', 'and more'], 0, 3);
      else for (const content of ['', 'after', 'and more']) channel.chunk!(withText(content));
      channel.chunk!({ ...like, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 1, completion_tokens: 2 } });
      channel.write('data: [DONE]\n\n');
      return written
        .join('')
        .replace(/(resp|msg|fc)_[0-9a-f]{32}/g, '$1_X')
        .replace(/"created_at":\d+/g, '"created_at":T');
    };
    const codecs = [(out: StreamChannel) => messagesChannel(out, 'm'), (out: StreamChannel) => responsesChannel(out, { model: 'm', freeform: new Set() })];
    for (const open of codecs) {
      const asChunks = run(open, false);
      expect(asChunks).toContain('after');
      expect(asChunks).toContain('back\\\\slash');
      expect(run(open, true)).toBe(asChunks);
    }
  });

  it("a codec's stream through HeldStream writes the lane's runs, a run at a time, as it writes the same chunks one by one, wherever a read ends", () => {
    const TOOLS: ToolSpec[] = [{ name: 'search', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }];
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    // '{' and '\n' hold the text for a moment (the chunk is rewritten): a run is handed over in parts around them.
    const words = ['Let ', 'me ', 'say "hi" ', 'back\\slash ', 'é 🙂 ', '\u2028 ', '', 'see {', 'not json} ', 'ok ', 'fine.\n', 'Next ', 'one. ', '<b> '];
    const body =
      chunk({ role: 'assistant', content: '' }) +
      words.map((content) => chunk({ content })).join('') +
      chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"rain"}' } }] }) +
      chunk({ content: 'after ' }) +
      chunk({}, 'tool_calls') +
      'data: [DONE]\n\n';
    const bytes = new TextEncoder().encode(body);
    const codecs = [(out: StreamChannel) => messagesChannel(out, 'm'), (out: StreamChannel) => responsesChannel(out, { model: 'm', freeform: new Set() })];
    /** The codec's output with the body in two reads cut at `cut`; `lane`: the lane reads the runs (handed over as texts), else each chunk is parsed. */
    const written = (open: (out: StreamChannel) => StreamChannel, cut: number, lane: boolean) => {
      const { held, delivery, out, text } = heldCodec(open, TOOLS, true);
      const decoder = new SseDecoder({}, lane ? held.lane : undefined);
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut)]) for (const m of decoder.push(part)) held.push(m);
      for (const m of decoder.end()) held.push(m);
      held.end();
      delivery.done();
      return { text: text(), writes: out.length };
    };
    for (const open of codecs) {
      const full = written(open, bytes.length, false);
      expect(full.text).toContain('back\\\\slash');
      expect(full.text).toContain('"see "');
      const whole = written(open, bytes.length, true);
      expect(whole.text).toBe(full.text);
      // The runs went as one write each, not one a text.
      expect(whole.writes).toBeLessThan(full.writes);
      for (let cut = 0; cut <= bytes.length; cut++) expect(written(open, cut, true).text, `cut at byte ${cut}`).toBe(full.text);
    }
  });
});
