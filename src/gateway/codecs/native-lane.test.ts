import { describe, expect, it } from 'vitest';
import { SseDecoder, SseLimitError, type SseLimits, type SseMessage } from '../../model/sse-decode.ts';
import { TextRun } from '../held-stream.ts';
import { INTEGER, STRING } from './event-shape.ts';
import { NativeTextLane, textShape } from './native-lane.ts';
import { nativeBatches } from '../../../test/support/native-batches.ts';

const ANTHROPIC = [
  textShape({ pieces: ['{"type":"content_block_delta","index":', INTEGER, ',"delta":{"type":"text_delta","text":', STRING, '}}'], text: 1, free: [] }),
];
const FIELDS = ['{"type":"response.output_text.delta","sequence_number":', INTEGER, ',"item_id":', STRING, ',"output_index":', INTEGER] as const;
const RESPONSES = [
  textShape({ pieces: [...FIELDS, ',"content_index":', INTEGER, ',"delta":', STRING, ',"logprobs":[]}'], text: 4, free: [0] }),
  textShape({ pieces: [...FIELDS, ',"content_index":', INTEGER, ',"delta":', STRING, ',"logprobs":[],"obfuscation":', STRING, '}'], text: 4, free: [0, 5] }),
];

const sse = (event: string | null, data: unknown) =>
  `${event === null ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const delta = (text: string, index = 0) => sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
const ODD = ['say "hi"\n', 'back\\slash', '\u00e9\ud83d\ude00\u2028', '', 'tab\there', '\u0000', '</b>{"x": 1}'];

/** An Anthropic stream with text deltas, and around and among them every other kind of event and framing the decoder reads. */
function anthropicStream(): string {
  let s = sse('message_start', { type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 3 } } });
  s += sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  for (let i = 0; i < 12; i++) s += delta(`w${i} `);
  for (const odd of ODD) s += delta(odd) + delta('plain ');
  s += 'event: ping\ndata: {"type": "ping"}\n\n';
  s += ': a comment\n\n';
  s += delta('after a comment ');
  s += delta('crlf ').replaceAll('\n', '\r\n');
  s += delta('cr ').replaceAll('\n', '\r');
  s += delta('p ');
  s += sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"extra","more":1}}');
  s += sse('content_block_delta', '{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"spaced"}}');
  s += sse('content_block_delta', '{"type":"content_block_delta","index":00,"delta":{"type":"text_delta","text":"zero"}}');
  s += sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad \\x escape"}}');
  s += 'event: content_block_delta\ndata:{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"no space"}}\n\n';
  s += 'event: content_block_delta\nid: 7\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"an id"}}\n\n';
  s += 'event: content_block_delta\ndata: {"type":"content_block_delta",\ndata: "index":0,"delta":{"type":"text_delta","text":"two lines"}}\n\n';
  s += sse(null, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'no event line' } });
  s += sse('error', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'named error' } });
  for (let i = 0; i < 5; i++) s += delta(`x${i} `);
  s += sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'thinking', thinking: '', signature: '' } });
  for (let i = 0; i < 4; i++) s += delta(`in a thinking block ${i} `, 1);
  s += sse('content_block_stop', { type: 'content_block_stop', index: 1 });
  for (let i = 0; i < 3; i++) s += delta(`y${i} `);
  s += sse('content_block_stop', { type: 'content_block_stop', index: 0 });
  for (let i = 0; i < 3; i++) s += delta(`after its block closed ${i} `);
  s += sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } });
  return s + sse('message_stop', { type: 'message_stop' });
}

/** A Responses stream: text deltas (plain, padded, with other counters, items and indexes) among the other events. */
function responsesStream(): string {
  let seq = 0;
  const emit = (type: string, fields: Record<string, unknown>) => sse(type, { type, sequence_number: seq++, ...fields });
  const text = (delta: string, extra: Record<string, unknown> = {}, item = 'msg_1', output = 0) =>
    emit('response.output_text.delta', { item_id: item, output_index: output, content_index: 0, delta, logprobs: [], ...extra });
  let s = emit('response.created', { response: { id: 'resp_1', object: 'response', model: 'm', output: [] } });
  s += emit('response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } });
  for (let i = 0; i < 12; i++) s += text(`w${i} `);
  for (const odd of ODD) s += text(odd) + text('plain ');
  s += text('"escaped" other item ', {}, 'msg_3');
  s += sse(
    'response.output_text.delta',
    `{"type":"response.output_text.delta","sequence_number":0${seq++},"item_id":"msg_1","output_index":0,"content_index":0,"delta":"lead zero","logprobs":[]}`,
  );
  s += text('after ');
  for (let i = 0; i < 4; i++) s += text(`padded ${i} `, { obfuscation: ['Qx', '', 'a\\"b', 'z'][i] });
  s += text('other item ', {}, 'msg_2');
  s += text('longer item ', {}, 'msg_10');
  s += text('shorter item ', {}, 'msg');
  s += text('other index ', {}, 'msg_1', 3);
  s += sse(
    'response.output_text.delta',
    `{"type":"response.output_text.delta","sequence_number":${seq++},"item_id":"msg_1","output_index":0,"content_index":0,"delta":"x","logprobs":[{}]}`,
  );
  s += text('crlf ').replaceAll('\n', '\r\n');
  s += ': keepalive\n\n';
  for (let i = 0; i < 6; i++) s += text(`y${i} `);
  s += emit('response.completed', {
    response: { id: 'resp_1', object: 'response', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 2 } },
  });
  return s;
}

interface Read {
  event: string | null;
  data: string;
  /** The event's text as the lane reads it (in a run, or matched when offered), undefined when it does not. */
  text: string | undefined;
  inRun: boolean;
}

/**
 * The decoder's events for `bytes` in reads cut at `cuts`, with a lane of `shapes` (undefined: none), a run's events one by one;
 * `expressionAfter`: the events the lane reads one by one before it makes its run expression (0: from the first, as a long answer's).
 */
function decode(bytes: Uint8Array, cuts: number[], shapes?: typeof ANTHROPIC, limits: Partial<SseLimits> = {}, expressionAfter = 0): Read[] {
  const lane = shapes && new NativeTextLane(shapes, expressionAfter);
  const decoder = new SseDecoder(limits, lane);
  const messages: SseMessage[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    messages.push(...decoder.push(bytes.subarray(from, cut)));
    from = cut;
  }
  messages.push(...decoder.end());
  return messages.flatMap((m): Read[] => {
    if (m.run === undefined) return [{ event: m.event, data: m.data, text: lane?.textOf(m)?.text, inRun: false }];
    const texts = m.run.texts;
    expect(m.lane).toBeUndefined();
    return NativeTextLane.events(m).map((e, i) => ({ event: e.event, data: e.data, text: texts[i], inRun: true }));
  });
}

/** What JSON.parse says a text event adds, in each protocol. */
function parsedText(data: string): string | undefined {
  let e: any;
  try {
    e = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (e?.type === 'content_block_delta' && e.delta?.type === 'text_delta') return e.delta.text;
  if (e?.type === 'response.output_text.delta') return e.delta;
  return undefined;
}

describe('NativeTextLane', () => {
  for (const [name, stream, shapes] of [
    ['Anthropic', anthropicStream(), ANTHROPIC],
    ['Responses', responsesStream(), RESPONSES],
  ] as const) {
    it(`${name}: the decoder's events and the full parse's texts, in two reads cut at every byte (every third with the run expression made late)`, () => {
      const bytes = new TextEncoder().encode(stream);
      const plain = decode(bytes, []);
      const full = JSON.stringify(plain.map(({ event, data }) => [event, data]));
      let taken = 0;
      const wrong: string[] = [];
      for (let cut = 0; cut <= bytes.length; cut++) {
        if (cut % 3 === 0) {
          const late = decode(bytes, [cut], shapes, {}, 10);
          if (
            JSON.stringify(late.map(({ event, data, text, inRun }) => [event, data, text, inRun])) !==
            JSON.stringify(decode(bytes, [cut], shapes).map(({ event, data, text, inRun }) => [event, data, text, inRun]))
          )
            wrong.push(`cut at ${cut}: late expression`);
        }
        const read = decode(bytes, [cut], shapes);
        if (JSON.stringify(read.map(({ event, data }) => [event, data])) !== full) wrong.push(`cut at ${cut}: other events`);
        for (const r of read) {
          // What the lane reads is what JSON.parse reads, and it reads text only from events in the exact shape.
          if (r.text !== undefined && r.text !== parsedText(r.data)) wrong.push(`cut at ${cut}: ${JSON.stringify(r)}`);
          if (r.inRun) taken++;
        }
      }
      expect(wrong).toEqual([]);
      // Most events were read in runs: the lane is not idle in this test.
      expect(taken / (bytes.length + 1)).toBeGreaterThan(20);
    });
  }

  it("takes no event past the decoder's caps: the decoder refuses it as it would without the lane", () => {
    let stream = '';
    for (let i = 0; i < 6; i++) stream += delta(`w${i} `);
    stream += delta('x'.repeat(200)) + delta('after ');
    const bytes = new TextEncoder().encode(stream);
    const longest = Math.max(...stream.split('\n\n').map((event) => event.length - 'event: content_block_delta\ndata: '.length));
    for (const limits of [{ maxEventChars: longest - 1 }, { maxLineChars: longest - 1 + 'data: '.length }]) {
      expect(() => decode(bytes, [], undefined, limits)).toThrow(SseLimitError);
      expect(() => decode(bytes, [], ANTHROPIC, limits)).toThrow(SseLimitError);
    }
    const read = decode(bytes, [], ANTHROPIC, { maxEventChars: longest, maxLineChars: longest + 'data: '.length });
    expect(read.filter((r) => r.inRun).length).toBeGreaterThan(5);
    expect(read.map((r) => r.text)).toEqual(decode(bytes, []).map((r) => parsedText(r.data)));
  });

  it('reads in a run only events of the learned text, with the learned fixed holes (index, item, framing)', () => {
    const bytes = new TextEncoder().encode(anthropicStream());
    const inRun = decode(bytes, [], ANTHROPIC).filter((r) => r.inRun);
    const texts = inRun.map((r) => r.text);
    expect(texts).toContain('say "hi"\n');
    expect(texts).toContain('\u00e9\ud83d\ude00\u2028');
    for (const refused of ['extra', 'spaced', 'zero', 'bad \\x escape', 'no space', 'an id', 'two lines', 'no event line', 'named error', 'crlf ', 'cr ']) {
      expect(texts).not.toContain(refused);
    }
    expect(new Set(inRun.map((r) => r.event))).toEqual(new Set(['content_block_delta']));

    const responses = decode(new TextEncoder().encode(responsesStream()), [], RESPONSES).filter((r) => r.inRun);
    const rTexts = responses.map((r) => r.text);
    expect(rTexts).toEqual(expect.arrayContaining(['padded 1 ', 'padded 2 ', 'y5 ']));
    for (const refused of ['other item ', 'longer item ', 'shorter item ', '"escaped" other item ', 'other index ', 'lead zero', 'x', 'crlf '])
      expect(rTexts).not.toContain(refused);
  });
});

/** The translation's chunks for `stream` in reads cut at `cuts`, each run's texts as their chunks. */
async function chunksOf(protocol: 'anthropic' | 'responses', stream: string, cuts: number[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const batch of await nativeBatches(protocol, stream, cuts))
    for (const c of batch) out.push(...(c instanceof TextRun ? c.texts.map((text) => c.chunkOf(text)) : [c]));
  // `created` is the clock's.
  return out.map((c) => (c && typeof c === 'object' && 'created' in c ? { ...c, created: 0 } : c));
}

describe("a native upstream's chunks through the lane", () => {
  for (const [protocol, stream] of [
    ['anthropic', anthropicStream()],
    ['responses', responsesStream()],
  ] as const) {
    it(`${protocol}: the same chunks as event by event (one-byte reads: no run), wherever one read ends and the next begins`, async () => {
      const length = new TextEncoder().encode(stream).length;
      const reference = await chunksOf(
        protocol,
        stream,
        Array.from({ length: length - 1 }, (_, i) => i + 1),
      );
      // Text from every delta of an open text block, none from the thinking block's or a closed block's.
      const texts = reference.flatMap((c: any) => (typeof c?.choices?.[0]?.delta?.content === 'string' ? [c.choices[0].delta.content] : []));
      expect(texts).toContain('w11 ');
      expect(texts.some((t) => t.includes('thinking block') || t.includes('closed'))).toBe(false);
      for (let cut = 0; cut <= length; cut += 7) expect(await chunksOf(protocol, stream, [cut])).toEqual(reference);
      expect(await chunksOf(protocol, stream, [])).toEqual(reference);
    });
  }
});
