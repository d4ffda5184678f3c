import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ContentTemplate } from './content-template.ts';
import { runData, SseDecoder, type SseLimits, type SseMessage, type SseRun } from './sse-decode.ts';
import { ModelError } from './types.ts';
import { streamsDir } from '../../test/support/shared.ts';

/** What the full parse says a chunk adds: its delta.content when that is all it does, else null; 'invalid' for text JSON refuses. */
function oracle(data: string): string | null | 'invalid' {
  let chunk: any;
  try {
    chunk = JSON.parse(data);
  } catch {
    return 'invalid';
  }
  if (chunk === null || typeof chunk !== 'object' || Array.isArray(chunk) || chunk.error || chunk.usage) return null;
  if (!Array.isArray(chunk.choices) || chunk.choices.length !== 1) return null;
  const choice = chunk.choices[0];
  if (choice === null || typeof choice !== 'object' || (choice.index ?? 0) !== 0) return null;
  if (typeof choice.finish_reason === 'string' && choice.finish_reason) return null;
  if (choice.delta === null || typeof choice.delta !== 'object' || Array.isArray(choice.delta.tool_calls)) return null;
  return typeof choice.delta.content === 'string' ? choice.delta.content : null;
}

/** Feeds chunks as openai.ts does (match, else parse and learn); returns what match answered for each. */
function feed(template: ContentTemplate, datas: string[]): Array<string | undefined> {
  return datas.map((data) => {
    const matched = template.match(data);
    if (matched === undefined) {
      try {
        template.learn(data, JSON.parse(data));
      } catch {
        /* the full parse reports it */
      }
    }
    return matched;
  });
}

const chunk = (content: string, extra = '') =>
  `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}]${extra}}`;

describe('ContentTemplate', () => {
  it('reads the text of chunks that repeat the learned one, and only those', () => {
    const t = new ContentTemplate();
    const datas = [
      chunk('a'),
      chunk('b'),
      chunk('say "hi"\n'),
      chunk('\u00e9\ud83d\ude00\u2028'),
      chunk('x', ',"usage":{"prompt_tokens":1,"completion_tokens":2}'),
    ];
    expect(feed(t, datas)).toEqual([undefined, 'b', 'say "hi"\n', '\u00e9\ud83d\ude00\u2028', undefined]);
  });

  it("leaves open a later string value that does not matter (OpenAI's obfuscation), and nothing that does", () => {
    const t = new ContentTemplate();
    const datas = ['Qup1', 'yh', 'x\\"y', '', 'dTh'].map((pad, i) => chunk(`w${i}`, `,"usage":null,"obfuscation":"${pad}"`));
    expect(feed(t, datas)).toEqual([undefined, 'w1', 'w2', 'w3', 'w4']);
    // A finish reason as the last string: "" adds text only, "stop" ends the completion, so it stays fixed.
    const f = new ContentTemplate();
    const withFinish = (c: string, reason: string) => `{"choices":[{"index":0,"delta":{"content":"${c}"},"finish_reason":"${reason}"}]}`;
    expect(feed(f, [withFinish('a', ''), withFinish('b', ''), withFinish('c', 'stop')])).toEqual([undefined, 'b', undefined]);
  });

  it('never learns from a chunk that does more than add text', () => {
    for (const data of [
      `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`,
      `{"choices":[{"index":0,"delta":{"content":"a","tool_calls":[]}}]}`,
      `{"choices":[{"index":1,"delta":{"content":"a"}}]}`,
      `{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}`,
      `{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":1}}`,
      `{"choices":[{"index":0,"delta":{"content":"a"}}],"error":{"message":"x"}}`,
    ]) {
      const t = new ContentTemplate();
      feed(t, [data]);
      expect(t.match(data)).toBeUndefined();
    }
  });

  it('finds delta.content, not a "content" key or text elsewhere in the chunk', () => {
    const cases = [
      // The key inside another string, before the real one.
      (c: string) => `{"id":"x\\"content\\":\\"y","note":"\\"content\\":\\"","choices":[{"index":0,"delta":{"content":${JSON.stringify(c)}}}]}`,
      // A key that ends in content.
      (c: string) => `{"a\\"content":"zz","choices":[{"index":0,"delta":{"content":${JSON.stringify(c)}}}]}`,
      // A duplicate key: the last one is the value.
      (c: string) => `{"choices":[{"index":0,"delta":{"content":"first","content":${JSON.stringify(c)}}}]}`,
      // content somewhere else with the same value, and whitespace around the colon.
      (c: string) => `{"meta":{"content":${JSON.stringify(c)}},"choices":[{"index":0,"delta":{"content" : ${JSON.stringify(c)}}}]}`,
    ];
    for (const make of cases) {
      const t = new ContentTemplate();
      const datas = [make('a'), make('b'), make('c"d')];
      const got = feed(t, datas);
      datas.forEach((d, i) => {
        if (got[i] !== undefined) expect(got[i]).toBe(oracle(d));
      });
    }
  });

  it('agrees with JSON.parse on random bodies in the learned place (quotes, escapes, control characters)', () => {
    const pieces = [
      'a',
      ' ',
      '"',
      '\\',
      '\\"',
      '\\\\',
      '\\n',
      '\\u00e9',
      '\\u12',
      '\\x',
      '\n',
      '\u0001',
      '\u2028',
      '\ud83d',
      '\ude00',
      '}',
      ']',
      ',',
      ':',
      '"usage":{"prompt_tokens":1}',
      '","x":"',
    ];
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const t = new ContentTemplate();
    const openai = (c: string, pad: string) => chunk(c, `,"obfuscation":${JSON.stringify(pad)}`);
    feed(t, [openai('learned', 'pad'), openai('twice', 'other')]);
    const [prefix, middle, suffix] = openai('\u0000', '\u0000').split('\\u0000') as [string, string, string];
    const randomBody = () => Array.from({ length: rand(6) }, () => pieces[rand(pieces.length)]).join('');
    let hits = 0;
    for (let i = 0; i < 5000; i++) {
      const body = randomBody();
      const pad = i % 2 ? 'abc' : randomBody();
      const data = prefix + body + middle + pad + suffix;
      const got = t.match(data);
      const expected = oracle(data);
      if (got !== undefined) {
        hits++;
        expect(got).toBe(expected);
      } else {
        // What the template declines is either not a content-only chunk or the full parse's business.
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes, on purpose
        expect(typeof expected === 'string' && !/["\\\u0000-\u001f]/.test(body + pad)).toBe(false);
      }
    }
    expect(hits).toBeGreaterThan(100);
  });

  it('learns from the first chunk that adds text, not from the role chunk before it', () => {
    const role = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`;
    const t = new ContentTemplate();
    expect(t.learn(role, JSON.parse(role))).toBe(false);
    expect(feed(t, [role, chunk('a'), chunk('b'), chunk('')])).toEqual([undefined, undefined, 'b', '']);
    // A provider that sends the role with every chunk is learned from its first text.
    const withRole = (c: string) => role.replace('"content":""', `"content":${JSON.stringify(c)}`);
    const r = new ContentTemplate();
    expect(feed(r, [withRole(''), withRole('a'), withRole('b\n')])).toEqual([undefined, undefined, 'b\n']);
  });

  it('probes the content string only when the text could spell its key another way', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const probes = (data: string) => {
      const t = new ContentTemplate();
      const parsed = JSON.parse(data);
      const before = parse.mock.calls.length;
      expect(t.learn(data, parsed)).toBe(true);
      return parse.mock.calls.length - before;
    };
    // One "content" string and no backslash: it is delta.content's key, read without a probe.
    expect(probes(chunk('a'))).toBe(0);
    // A backslash anywhere, or a second "content": probed.
    expect(probes(chunk('a\nb'))).toBe(1);
    expect(probes(`{"content":"x","choices":[{"index":0,"delta":{"content":"a"}}]}`)).toBe(2);
    parse.mockRestore();
  });

  it('stops learning when every chunk differs (a provider that varies each one)', () => {
    const t = new ContentTemplate();
    // An obfuscation pad: each learning probes it (a plain chunk's delta.content itself is found unprobed).
    const datas = Array.from({ length: 40 }, (_, i) => chunk(`w${i}`, ',"obfuscation":"p"').replace('"id":"c1"', `"id":"c${i}"`));
    // Parses made by learn itself (its probes): a few, not one per chunk.
    const parse = vi.spyOn(JSON, 'parse');
    let probes = 0;
    const learn = t.learn.bind(t);
    t.learn = (data, parsed) => {
      const before = parse.mock.calls.length;
      const learned = learn(data, parsed);
      probes += parse.mock.calls.length - before;
      return learned;
    };
    expect(feed(t, datas).every((m) => m === undefined)).toBe(true);
    parse.mockRestore();
    expect(probes).toBeGreaterThan(0);
    expect(probes).toBeLessThanOrEqual(5);
  });

  it('on every recorded provider stream, gives the text the full parse gives', () => {
    const dir = streamsDir();
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as Array<{ file: string }>;
    let chunks = 0;
    let hits = 0;
    for (const { file } of index) {
      const datas = readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('data: ') && !line.startsWith('data: [DONE]'))
        .map((line) => line.slice(6));
      const got = feed(new ContentTemplate(), datas);
      datas.forEach((data, i) => {
        chunks++;
        if (got[i] === undefined) return;
        hits++;
        expect(got[i]).toBe(oracle(data));
      });
    }
    expect(chunks).toBeGreaterThan(1000);
    expect(hits).toBeGreaterThan(0);
  });
});

/**
 * A stream as openai.ts reads it, in reads of `readChars` characters: the chunks parsed in full (their
 * data) and the text between them, adjacent texts merged, up to where it stops: [DONE], or a failure
 * (text JSON refuses, an `error` event or field, a value not an object). `lane`: the template is the
 * decoder's lane (it reads or learns from each event as the decoder makes it; the rest is parsed), else
 * each event is matched, or parsed and offered to learn, after its read (as before the lane).
 */
function readStream(stream: string, readChars: number, lane: boolean, limits: Partial<SseLimits> = {}) {
  const template = new ContentTemplate();
  const decoder = new SseDecoder(limits, lane ? template : undefined);
  const items: Array<{ text: string } | { parsed: string; event: string | null } | { failed: string } | { done: true }> = [];
  let laneMessages = 0;
  let stopped = false;
  const text = (t: string) => {
    const last = items.at(-1);
    if (last && 'text' in last) last.text += t;
    else items.push({ text: t });
  };
  const take = (messages: SseMessage[]) => {
    for (const m of messages) {
      if (stopped) return;
      if (m.lane !== undefined) {
        laneMessages++;
        text(m.lane);
        continue;
      }
      if (m.data.startsWith('[DONE]')) {
        items.push({ done: true });
        stopped = true;
        return;
      }
      const matched = lane || m.event === 'error' ? undefined : template.match(m.data);
      if (matched !== undefined) {
        text(matched);
        continue;
      }
      if (m.data === '') continue;
      let chunk: any;
      try {
        chunk = JSON.parse(m.data);
      } catch {
        chunk = undefined;
      }
      if (chunk === null || typeof chunk !== 'object' || Array.isArray(chunk) || chunk.error || m.event === 'error') {
        items.push({ failed: m.data });
        stopped = true;
        return;
      }
      items.push({ parsed: m.data, event: m.event });
      if (!lane) template.learn(m.data, chunk);
    }
  };
  const bytes = new TextEncoder().encode(stream);
  for (let at = 0; at < bytes.length && !stopped; at += readChars) take(decoder.push(bytes.subarray(at, at + readChars)));
  if (!stopped) take(decoder.end());
  return { items, laneMessages };
}

describe("ContentTemplate as the SSE decoder's lane", () => {
  const ev = (data: string) => `data: ${data}\n\n`;
  const openai = (c: string, pad = 'pad') => chunk(c, `,"obfuscation":${JSON.stringify(pad)}`);
  /** A chunk whose content string is `body` as written, escapes and all (JSON may refuse it). */
  const rawContent = (body: string) => openai('\u0000').replace('"\\u0000"', `"${body}"`);
  // Chunks the lane reads (once learned, in the read it learns from too), interleaved with everything
  // it must leave to the decoder: other framings of the same chunk (CRLF, `data:` without its space,
  // an id line, two data lines), escapes, an empty payload, comments, chunks that do more than add text.
  const OK = [
    ev(chunk('', ',"role":"assistant"')),
    ev(openai('a')),
    ev(openai('b', 'q')),
    ev(openai('say "hi"\n', '')),
    `data: ${openai('crlf')}\r\n\r\n`,
    ev(openai('c')),
    `data:${openai('nospace')}\n\n`,
    `id: 7\ndata: ${openai('with id')}\n\n`,
    `data: ${openai('two').replace('"choices"', '\ndata: "choices"')}\n\n`,
    ev(rawContent('\\u00e9\\ud83d\\ude00 \\"q\\" \\n')),
    'data:\n\n',
    ': keepalive\n\n',
    ev(openai('d', 'x\\"y')),
    ev(chunk('e', ',"usage":{"prompt_tokens":1,"completion_tokens":2}')),
    ev(openai('f')),
    'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}\n\n',
    ...Array.from({ length: 30 }, (_, i) => ev(openai(`w${i} `, `p${i}`))),
  ].join('');
  // Where a stream stops (openai.ts fails it, or stops at [DONE]), then more it never reads.
  const ENDS = [
    'data: [DONE]\n\n',
    ev(rawContent('bad \\x escape')),
    ev(rawContent('raw \u0001 control')),
    `event: error\ndata: ${openai('named')}\n\n`,
    ev(chunk('x', ',"error":{"message":"overloaded"}')),
    ev('[1,2]'),
  ];
  const TAIL = Array.from({ length: 5 }, (_, i) => ev(openai(`after${i} `))).join('');

  it('gives what the decoder and match give, event by event, wherever the reads are cut', () => {
    let laneMessages = 0;
    for (const end of ENDS) {
      const stream = OK + end + TAIL;
      const expected = readStream(stream, stream.length, false).items;
      expect(expected.at(-1)).toEqual(end.startsWith('data: [DONE]') ? { done: true } : { failed: expect.any(String) });
      for (const readChars of [1, 2, 3, 5, 8, 13, 40, 97, 200, 333, 500, 777, 1000, 2000, stream.length]) {
        const got = readStream(stream, readChars, true);
        expect(got.items, `${JSON.stringify(end.slice(0, 30))}, reads of ${readChars}`).toEqual(expected);
        expect(readStream(stream, readChars, false).items, `reads of ${readChars}, no lane`).toEqual(expected);
        laneMessages += got.laneMessages;
      }
      // What it leaves to the decoder is each framing it does not write, and what match alone refuses.
      expect(expected.filter((i) => 'parsed' in i).length).toBeGreaterThanOrEqual(6);
    }
    expect(laneMessages).toBeGreaterThan(100);
  });

  it('learns in the read it learns from: the chunks after the first ones in one read are read by the lane', () => {
    const stream = OK + ENDS[0];
    const got = readStream(stream, stream.length, true);
    expect(got.laneMessages).toBeGreaterThan(5);
    expect(got.items).toEqual(readStream(stream, stream.length, false).items);
  });

  it('on every recorded provider stream, gives what the decoder and match give', () => {
    const dir = streamsDir();
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as Array<{ file: string }>;
    let laneMessages = 0;
    for (const { file } of index) {
      const raw = readFileSync(join(dir, file), 'utf8');
      const expected = readStream(raw, raw.length + 1, false).items;
      for (const readChars of [61, 1000, raw.length + 1]) {
        const got = readStream(raw, readChars, true);
        expect(got.items, `${file}, reads of ${readChars}`).toEqual(expected);
        laneMessages += got.laneMessages;
      }
    }
    expect(laneMessages).toBeGreaterThan(100);
  });

  it("hands out each run's events as they came, wherever one read ends and the next begins", () => {
    // Runs broken by events the lane leaves to the decoder: CRLF, CR and LF-then-CRLF framings, a tool-call
    // delta, a comment, [DONE]; an escape and a two-byte character inside runs.
    const stream = [
      ev(chunk('', ',"role":"assistant"')),
      ev(openai('a')),
      ev(openai('b', 'q')),
      ev(openai('c')),
      `data: ${openai('crlf')}\r\n\r\n`,
      ev(openai('d')),
      ev(openai('é e')),
      `data: ${openai('mixed')}\n\r\n`,
      `data: ${openai('cr')}\r\r`,
      ev(openai('f')),
      ev(rawContent('\\u00e9 \\"q\\"')),
      ev(openai('g')),
      'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}\n\n',
      ev(openai('h')),
      ev(openai('i')),
      ': keepalive\n\n',
      ev(openai('j')),
      'data: [DONE]\n\n',
    ].join('');
    const bytes = new TextEncoder().encode(stream);
    const events = (messages: SseMessage[]) => messages.map((m) => ({ event: m.event, data: m.data }));
    const expected = events([...new SseDecoder().push(bytes), ...new SseDecoder().end()]);
    const read = (cut: number) => {
      const decoder = new SseDecoder({}, new ContentTemplate());
      const messages = [...decoder.push(bytes.subarray(0, cut)), ...decoder.push(bytes.subarray(cut)), ...decoder.end()];
      const runs = messages.flatMap((m) => (m.run ? [m.run] : []));
      // A run's message stands for its events: expanded, the stream is what the decoder alone makes of it.
      const expanded = messages.flatMap((m) => (m.run ? m.run.texts.map((_, i) => ({ event: null, data: runData(m.run!, i) })) : events([m])));
      for (const m of messages) {
        if (!m.run) continue;
        const run: SseRun = m.run;
        const datas = run.texts.map((_, i) => runData(run, i));
        expect(run.raw).toBe(datas.map((d) => `data: ${d}\n\n`).join(''));
        expect(run.ends.at(-1)).toBe(run.raw.length);
        expect(run.texts).toEqual(datas.map((d) => JSON.parse(d).choices[0].delta.content));
        expect(m.lane).toBe(run.texts.join(''));
        expect(m.like).toEqual(expect.objectContaining({ id: 'c1' }));
      }
      return { expanded, runs };
    };
    // In one read: the runs are the learned chunks between the events that break them.
    expect(read(bytes.length).runs.map((r) => r.texts)).toEqual([['b', 'c'], ['d', 'é e'], ['f', 'é "q"', 'g'], ['h', 'i'], ['j']]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const got = read(cut);
      expect(got.expanded, `cut at byte ${cut}`).toEqual(expected);
      // A cut inside an event leaves that one to the decoder (the run [j] then has none): the others stay runs.
      expect(got.runs.length).toBeGreaterThanOrEqual(4);
    }
  });

  it("takes no event past the decoder's caps: the decoder refuses it as it would without the lane", () => {
    // The template is learned from the first read; the second holds the long event whole.
    const first = ev(openai('a')) + ev(openai('b')) + ev(openai('c'));
    const stream = first + ev(openai('x'.repeat(200)));
    expect(stream.length).toBeLessThan(2 * first.length);
    for (const limits of [{ maxLineChars: 250 }, { maxEventChars: 240 }]) {
      const errors = [true, false].map((lane) => {
        try {
          readStream(stream, first.length, lane, limits);
        } catch (err) {
          return err;
        }
        return undefined;
      });
      expect(errors[0]).toBeInstanceOf(ModelError);
      expect((errors[0] as Error).message).toMatch(/limit/);
      expect((errors[0] as Error).message).toBe((errors[1] as Error).message);
    }
  });
});
