import type { ToolSpec } from 'rebound-gate';
import { describe, expect, it } from 'vitest';
import { TextRun } from '../held-stream.ts';
import type { StreamChannel } from '../stream.ts';
import { heldCodec } from '../../../test/support/held-codec.ts';
import { nativeBatches } from '../../../test/support/native-batches.ts';
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

/** Responses: text, a function call item, more text, the completion. */
function responsesStream(): string {
  let seq = 0;
  const emit = (type: string, fields: Chunk) => sse(type, { type, sequence_number: seq++, ...fields });
  const text = (delta: string, item: string, output: number) =>
    emit('response.output_text.delta', { item_id: item, output_index: output, content_index: 0, delta, logprobs: [] });
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
function written(open: (out: StreamChannel) => StreamChannel, batches: Array<Array<Chunk | null | TextRun>>, first: boolean, oneByOne: boolean) {
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
  ] as const) {
    it(`${protocol}: a codec writes a run as it writes its chunks one by one, first attempt or retry, wherever a read ends`, async () => {
      const length = new TextEncoder().encode(stream).length;
      for (const [name, open] of Object.entries(CODECS)) {
        for (const first of [true, false]) {
          const whole = await nativeBatches(protocol, stream, []);
          const expected = written(open, whole, first, true);
          expect(expected.runs).toBeGreaterThan(1);
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
    const deltas = chunks.map((c) => (c && !(c instanceof TextRun) ? (c.choices as Chunk[])[0]?.delta : undefined));
    // The created chunk, the call's start and its one delta, the two texts only a parse reads, the finish, [DONE].
    expect(deltas.map((d) => (d ? Object.keys(d).join() : d))).toEqual(['role,content', 'tool_calls', 'tool_calls', 'content', 'content', '', undefined]);
    expect(deltas.slice(3, 5).map((d) => (d as Chunk).content)).toEqual(['escaped key ', 'second key ']);
    expect(chunks.at(-1)).toBeNull();
  });
});
