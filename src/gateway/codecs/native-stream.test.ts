import type { ToolSpec } from 'rebound-gate';
import { describe, expect, it } from 'vitest';
import { CallEnd, TextRun } from '../held-stream.ts';
import type { StreamChannel } from '../stream.ts';
import type { ChatChunk } from '../upstream.ts';
import { heldCodec } from '../../../test/support/held-codec.ts';
import { nativeBatches } from '../../../test/support/native-batches.ts';
import { responsesEventData, type ResponsesKeyOrder } from '../../../test/support/scripted-native.ts';
import { messagesChannel } from './messages-out.ts';
import { responsesChannel } from './responses-out.ts';

type Chunk = Record<string, unknown>;
const TOOLS: ToolSpec[] = [{ name: 'search', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }];
// '{' and '\n' hold the text for a moment (its chunk is rewritten): a run is read in parts around them.
const WORDS = ['Let ', 'me ', 'say "hi" ', 'back\\slash ', 'é 🙂 ', '\u2028 ', '', 'see {', 'not json} ', 'ok ', 'fine.\n', 'Next ', 'one. ', '<b> '];
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** Anthropic: text, a tool_use block, more text, the finish, then (as no provider does) text after it. */
function anthropicStream(): string {
  const delta = (text: string, index: number) => sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
  let s = sse('message_start', { type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 3 } } });
  s += sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  for (const w of WORDS) s += delta(w, 0);
  s += sse('content_block_stop', { type: 'content_block_stop', index: 0 });
  s += sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'search', input: {} } });
  s += sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"q":"rain"}' } });
  s += sse('content_block_stop', { type: 'content_block_stop', index: 1 });
  s += sse('content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } });
  for (const w of WORDS) s += delta(`then ${w}`, 2);
  s += sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } });
  for (const w of WORDS.slice(0, 4)) s += delta(`late ${w}`, 2);
  return s + sse('message_stop', { type: 'message_stop' });
}

/** A Responses stream's events, numbered from 0, in today's key order (`sorted`, with a pad on each delta unless `pad` is false) or the older one. */
function responsesEvents(sorted: boolean) {
  let seq = 0;
  return (type: string, fields: Chunk, pad = true) => sse(type, responsesEventData(type, seq++, fields, { order: sorted ? 'today' : 'older', pad }));
}

/**
 * Responses: text, a function call item, more text, the completion. In today's key order the first
 * item's deltas carry OpenAI's obfuscation padding and the second's do not (include_obfuscation: false),
 * so that each of today's two shapes is read.
 */
function responsesStream(sorted = false): string {
  const emit = responsesEvents(sorted);
  const text = (delta: string, item: string, output: number) =>
    emit('response.output_text.delta', { item_id: item, output_index: output, content_index: 0, delta, logprobs: [] }, item === 'msg_1');
  let s = emit('response.created', { response: { id: 'resp_1', object: 'response', model: 'm', output: [] } });
  for (const w of WORDS) s += text(w, 'msg_1', 0);
  const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'search', arguments: '' };
  s += emit('response.output_item.added', { output_index: 1, item: call });
  s += emit('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 1, delta: '{"q":"rain"}' });
  s += emit('response.output_item.done', { output_index: 1, item: { ...call, arguments: '{"q":"rain"}' } });
  for (const w of WORDS) s += text(`then ${w}`, 'msg_2', 2);
  return (
    s +
    emit('response.completed', {
      response: { id: 'resp_1', object: 'response', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 2 } },
    })
  );
}

const CODECS = {
  messages: (out: StreamChannel) => messagesChannel(out, 'm'),
  responses: (out: StreamChannel) => responsesChannel(out, { model: 'm', freeform: new Set() }),
};

/** What a codec writes for `batches` through HeldStream; `oneByOne`: each run's texts handed over as their chunks. */
function written(open: (out: StreamChannel) => StreamChannel, batches: ChatChunk[][], first: boolean, oneByOne: boolean) {
  const { held, delivery, text } = heldCodec(open, TOOLS, first);
  let runs = 0;
  for (const batch of batches) {
    for (const c of batch) {
      if (c instanceof TextRun) runs++;
      if (oneByOne && c instanceof TextRun) for (const text of c.texts) held.pushChunk(c.chunkOf(text));
      else held.pushChunk(c);
    }
  }
  held.end();
  delivery.done();
  return { text: text(), runs };
}

describe("a native upstream's runs of text deltas through HeldStream", () => {
  for (const [protocol, stream] of [
    ['anthropic', anthropicStream()],
    ['responses', responsesStream()],
    ['responses', responsesStream(true)],
  ] as const) {
    it(`${protocol}${stream.includes('"obfuscation"') ? " (today's key order)" : ''}: a codec writes a run as it writes its chunks one by one, first attempt or retry, wherever a read ends`, async () => {
      const length = new TextEncoder().encode(stream).length;
      for (const [name, open] of Object.entries(CODECS)) {
        for (const first of [true, false]) {
          const whole = await nativeBatches(protocol, stream, []);
          const expected = written(open, whole, first, true);
          expect(expected.runs).toBeGreaterThan(1);
          // Each item's plain deltas are read as a run, in each shape its stream has.
          const inRuns = whole.flat().flatMap((c) => (c instanceof TextRun ? c.texts : []));
          expect(inRuns).toEqual(expect.arrayContaining(['ok ', 'then ok ']));
          // A retry's text is held to its end and not shown beside a call (HeldAnswer): its run is read all the same.
          if (first) {
            expect(expected.text).toContain('back\\\\slash');
            expect(expected.text).toContain('then ');
          }
          if (protocol === 'anthropic' && first) expect(expected.text).toContain('late ');
          for (let cut = 0; cut <= length; cut += 5) {
            const batches = await nativeBatches(protocol, stream, [cut]);
            expect(written(open, batches, first, false).text, `${name}, first ${first}, cut at ${cut}`).toBe(expected.text);
          }
        }
      }
    });
  }
});

describe('a Responses upstream event the translation does not read', () => {
  it('makes no chunk unparsed, unless its data might parse to one it reads (another "type" key, a \\u escape)', async () => {
    let seq = 0;
    const emit = (type: string, fields: Chunk) => sse(type, { type, sequence_number: seq++, ...fields });
    // Data as text: what JSON.stringify cannot write (a second "type" key, a key spelled with an escape).
    const raw = (event: string, data: string) => `event: ${event}\ndata: ${data}\n\n`;
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'search', arguments: '' };
    const stream =
      emit('response.created', { response: { id: 'resp_1', object: 'response', model: 'm', output: [] } }) +
      emit('response.in_progress', { response: { id: 'resp_1', status: 'in_progress' } }) +
      emit('response.output_item.added', { output_index: 0, item: call }) +
      emit('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 0, delta: '{"q":"é"}' }) +
      emit('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 0, arguments: '{"q":"é \\"type\\": 1"}' }) +
      raw('response.output_text.done', '{"type":"response.output_text.done","t\\u0079pe":"response.output_text.delta","delta":"escaped key "}') +
      raw('response.content_part.done', '{"type":"response.content_part.done","delta":"second key ","type":"response.output_text.delta"}') +
      raw('response.output_text.done', '{"type":"response.output_text.done","delta":"not json"') +
      emit('response.output_item.done', { output_index: 0, item: { ...call, arguments: '{"q":"é"}' } }) +
      emit('response.completed', {
        response: { id: 'resp_1', object: 'response', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 2 } },
      });
    const chunks = (await nativeBatches('responses', stream, [])).flat();
    const deltas = chunks.map((c) => (c instanceof CallEnd ? `end ${c.index}` : c && !(c instanceof TextRun) ? (c.choices as Chunk[])[0]?.delta : undefined));
    // The created chunk, the call's start and its one delta, the two texts only a parse reads, the call's end, the finish, [DONE].
    expect(deltas.map((d) => (d && typeof d === 'object' ? Object.keys(d).join() : d))).toEqual([
      'role,content',
      'tool_calls',
      'tool_calls',
      'content',
      'content',
      'end 0',
      '',
      undefined,
    ]);
    expect(deltas.slice(3, 5).map((d) => (d as Chunk).content)).toEqual(['escaped key ', 'second key ']);
    expect(chunks.at(-1)).toBeNull();
  });
});

/** What a chunk of a translation's batch is: a call's end, the finish, [DONE], or another chunk. */
function labelOf(c: ChatChunk): string {
  if (c === null) return '[DONE]';
  if (c instanceof CallEnd) return `end ${c.index}`;
  return !(c instanceof TextRun) && (c.choices as Chunk[])[0]?.finish_reason ? 'finish' : 'another chunk';
}

/** Where each call went out: after which of the translation's chunks (its CallEnd, the finish), its id and arguments. */
async function whereCallsGoOut(protocol: 'anthropic' | 'responses', stream: string): Promise<string[]> {
  const { held, delivery } = heldCodec(protocol === 'anthropic' ? CODECS.messages : CODECS.responses, TOOLS, true);
  const out: string[] = [];
  for (const c of (await nativeBatches(protocol, stream, [])).flat()) {
    const before = delivery.calls.length;
    held.pushChunk(c);
    for (const g of delivery.calls.slice(before)) out.push(`${labelOf(c)}: ${g.proposed.id} ${g.proposed.arguments}`);
  }
  held.end();
  return out;
}

/**
 * Where three calls went out (whereCallsGoOut) in a Responses stream of `order` whose calls, at output
 * indexes 0, 1 and 2, are each followed by the `output_item.done` whose data is given (`ends`, as sent).
 */
function callsEndedBy(order: ResponsesKeyOrder, ends: [string, string, string]): Promise<string[]> {
  const emit = responsesEvents(order === 'today');
  const call = (id: string) => ({ type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name: 'search', arguments: '' });
  const args = (output_index: number, delta: string) => emit('response.function_call_arguments.delta', { item_id: 'fc', output_index, delta });
  const stream = [
    emit('response.created', { response: { id: 'resp_1', object: 'response', model: 'm', output: [] } }),
    ...['a', 'b', 'c'].flatMap((q, i) => [
      emit('response.output_item.added', { output_index: i, item: call(`${i + 1}`) }),
      args(i, `{"q":"${q}"}`),
      `event: response.output_item.done\ndata: ${ends[i]}\n\n`,
    ]),
    emit('response.completed', {
      response: { id: 'resp_1', object: 'response', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 2 } },
    }),
  ].join('');
  return whereCallsGoOut('responses', stream);
}

/** What callsEndedBy gives when the first and third ends are read and the second ends nothing. */
const ENDED_BY_THREE = [
  'end 0: call_1 {"q":"a"}',
  // Call 2 had no end: it goes when the next call starts.
  'another chunk: call_2 {"q":"b"}',
  'end 2: call_3 {"q":"c"}',
];

describe("a native upstream's call goes out at its end (CallEnd)", () => {
  it("anthropic: at its tool_use block's content_block_stop; a text or thinking block's stop completes nothing; one still open at message_delta at the finish", async () => {
    const ev = (data: Chunk & { type: string }) => sse(data.type, data);
    const json = (index: number, partial_json: string) => ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    // Blocks interleaved, as no provider does today: the ends of a text and a thinking block come while the call is open.
    const stream = [
      ev({ type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 3 } } }),
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'search', input: {} } }),
      json(0, '{"q":'),
      ev({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
      ev({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'hi ' } }),
      ev({ type: 'content_block_stop', index: 1 }),
      ev({ type: 'content_block_start', index: 2, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      ev({ type: 'content_block_delta', index: 2, delta: { type: 'thinking_delta', thinking: 'hm' } }),
      ev({ type: 'content_block_stop', index: 2 }),
      json(0, '"rain"}'),
      ev({ type: 'content_block_stop', index: 0 }),
      ev({ type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_2', name: 'search', input: {} } }),
      json(3, '{"q":"sun"}'),
      ev({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
      ev({ type: 'content_block_stop', index: 3 }),
      ev({ type: 'message_stop' }),
    ].join('');
    expect(await whereCallsGoOut('anthropic', stream)).toEqual(['end 0: toolu_1 {"q":"rain"}', 'finish: toolu_2 {"q":"sun"}']);
  });

  it("responses: at its function_call item's output_item.done; a message or reasoning item's done completes nothing; one with no done before response.completed at the finish", async () => {
    let seq = 0;
    const emit = (type: string, fields: Chunk) => sse(type, { type, sequence_number: seq++, ...fields });
    const call = (id: string) => ({ type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name: 'search', arguments: '' });
    const args = (output_index: number, delta: string) => emit('response.function_call_arguments.delta', { item_id: 'fc', output_index, delta });
    const message = { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [] };
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [] };
    // Items interleaved, as no provider does today: the ends of a message and a reasoning item come while the call is open.
    const stream = [
      emit('response.created', { response: { id: 'resp_1', object: 'response', model: 'm', output: [] } }),
      emit('response.output_item.added', { output_index: 0, item: call('1') }),
      args(0, '{"q":'),
      emit('response.output_item.added', { output_index: 1, item: { ...message, status: 'in_progress' } }),
      emit('response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'hi ', logprobs: [] }),
      emit('response.output_item.done', { output_index: 1, item: message }),
      emit('response.output_item.added', { output_index: 2, item: reasoning }),
      emit('response.output_item.done', { output_index: 2, item: reasoning }),
      args(0, '"rain"}'),
      emit('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 0, arguments: '{"q":"rain"}' }),
      emit('response.output_item.done', { output_index: 0, item: { ...call('1'), arguments: '{"q":"rain"}' } }),
      emit('response.output_item.added', { output_index: 3, item: call('2') }),
      args(3, '{"q":"sun"}'),
      emit('response.completed', {
        response: { id: 'resp_1', object: 'response', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 2 } },
      }),
    ].join('');
    expect(await whereCallsGoOut('responses', stream)).toEqual(['end 0: call_1 {"q":"rain"}', 'finish: call_2 {"q":"sun"}']);
  });

  it("responses: a function_call item's output_item.done is read by its head alone, unless something after it might be read otherwise (another output_index key, a \\u escape)", async () => {
    const ends = await callsEndedBy('older', [
      // The item after the head is not read: cut short, the call ends all the same.
      '{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{"type":"function_call","arguments":"{\\"q',
      // A second output_index (JSON.parse keeps the last, 7: no open call there): parsed, it ends nothing.
      '{"type":"response.output_item.done","sequence_number":6,"output_index":1,"item":{"type":"message","content":[]},"output_index":7}',
      // A \u escape: parsed, and its index read from the parse.
      '{"type":"response.output_item.done","sequence_number":9,"output_index":2,"item":{"type":"function_call","name":"s\\u0065arch"}}',
    ]);
    expect(ends).toEqual(ENDED_BY_THREE);
  });

  it("responses, today's key order: a function_call item's output_item.done is read by its tail alone (the index the event's last key but its sequence number)", async () => {
    const ends = await callsEndedBy('today', [
      // The item before the tail is not read: not JSON at all, the call ends all the same.
      '{"type":"response.output_item.done","item":{"type":"function_call","arguments":"{\\"q},"output_index":0,"sequence_number":3}',
      // The index twice: not the tail's form (its last index follows a number, not the item), so parsed; JSON.parse keeps the last, 7 (no open call there): it ends nothing.
      '{"type":"response.output_item.done","item":{"type":"message","content":[]},"output_index":1,"output_index":7,"sequence_number":6}',
      // Not the tail's form (a key after the sequence number): parsed, and its index read from the parse.
      '{"type":"response.output_item.done","item":{"type":"function_call","name":"search"},"output_index":2,"sequence_number":9,"x":1}',
    ]);
    expect(ends).toEqual(ENDED_BY_THREE);
  });

  it("a read holding a call's end and the finish is cut after the end: the finish (a Responses one the whole response) is translated only when the next batch is read", async () => {
    const ev = (data: Chunk & { type: string }) => sse(data.type, data);
    const anthropic = [
      ev({ type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 3 } } }),
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'search', input: {} } }),
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"q":"rain"}' } }),
      ev({ type: 'content_block_stop', index: 0 }),
      ev({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
      ev({ type: 'message_stop' }),
    ].join('');
    let seq = 0;
    const emit = (type: string, fields: Chunk) => sse(type, { type, sequence_number: seq++, ...fields });
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'search', arguments: '' };
    const responses = [
      emit('response.created', { response: { id: 'resp_1', object: 'response', model: 'm', output: [] } }),
      emit('response.output_item.added', { output_index: 0, item: call }),
      emit('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 0, delta: '{"q":"rain"}' }),
      emit('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 0, arguments: '{"q":"rain"}' }),
      emit('response.output_item.done', { output_index: 0, item: { ...call, arguments: '{"q":"rain"}' } }),
      emit('response.completed', {
        response: { id: 'resp_1', object: 'response', status: 'completed', output: [], tools: [{ type: 'function', name: 'search' }], usage: null },
      }),
    ].join('');
    for (const [protocol, stream] of [
      ['anthropic', anthropic],
      ['responses', responses],
    ] as const) {
      // One read: the call's start, its delta and its end, then the finish and [DONE] in a batch of their own.
      const batches = await nativeBatches(protocol, stream, []);
      expect(
        batches.map((b) => b.map(labelOf)),
        protocol,
      ).toEqual([
        ['another chunk', 'another chunk', 'another chunk', 'end 0'],
        ['finish', '[DONE]'],
      ]);
    }
  });
});
