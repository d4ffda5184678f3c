import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ContentTemplate } from './content-template.ts';
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

  it('stops learning when every chunk differs (a provider that varies each one)', () => {
    const t = new ContentTemplate();
    const datas = Array.from({ length: 40 }, (_, i) => chunk(`w${i}`).replace('"id":"c1"', `"id":"c${i}"`));
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
