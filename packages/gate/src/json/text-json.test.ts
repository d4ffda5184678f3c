import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH } from '../limits.ts';
import { isSpaceCode } from './loose-json.ts';
import { TextJson } from './text-json.ts';

// The definitions TextJson must keep, written the plain (quadratic) way: one scan per question, and
// JSON.parse over a regex-rewritten copy. TextJson answers the same, remembering what it has seen.
function naiveBalancedEnd(text: string, start: number): number {
  const open = text[start];
  if (open !== '{' && open !== '[') return -1;
  const stack: string[] = [];
  let inStr = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

function naiveParseLoose(src: string): unknown {
  try {
    return JSON.parse(src);
  } catch {
    // the repairs below
  }
  const fixed = src
    .replace(/,\s*([}\]])/g, '$1')
    .replace(/(?<=[:[,]\s*)True\b/g, 'true')
    .replace(/(?<=[:[,]\s*)False\b/g, 'false')
    .replace(/(?<=[:[,]\s*)None\b/g, 'null');
  try {
    return JSON.parse(fixed);
  } catch {
    return undefined;
  }
}

function depthOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '{' || c === '[') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return max;
}

/** Every start position of `text`, in an order the arbitrary chooses. */
const positionsOf = (text: string, seed: number) =>
  Array.from({ length: text.length }, (_, i) => i).sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101));

// Any UTF-16 code units: NUL, lone surrogates, anything.
const codeUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 60 }).map((u) => String.fromCharCode(...u));
// Text made of what the scanner and the reader care about.
const jsonish = fc
  .array(fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', ' ', '\n', '1', 'a', 'True', 'None', 'null', '-0.5e3', '"k"'), { maxLength: 40 })
  .map((p) => p.join(''));
const quoteless = fc
  .array(fc.constantFrom('{', '}', '[', ']', ',', ':', ' ', '\n', '\u00a0', '1', '2.5', 'true', 'True', 'False', 'None', 'x'), { maxLength: 30 })
  .map((p) => p.join(''));

describe('TextJson', () => {
  it('finds where a bracket closes, past strings and escapes', () => {
    const text = 'see {"a": "}", "b": ["\\"]", [1]]} and [x';
    const json = new TextJson(text);
    expect(json.balancedEnd(4)).toBe(text.indexOf(' and'));
    expect(json.balancedEnd(text.lastIndexOf('['))).toBe(-1);
    expect(json.balancedEnd(0)).toBe(-1); // not a bracket
    expect(new TextJson('{[}]').balancedEnd(0)).toBe(-1);
  });

  it('reads JSON with trailing commas and Python literals, leaving string contents alone', () => {
    const json = new TextJson('x = {"a": [True, None, False,], "b": "c, }: True",}');
    expect(json.jsonAt(4)?.value).toEqual({ a: [true, null, false], b: 'c, }: True' });
    expect(new TextJson('[,]').jsonAt(0)?.value).toEqual([]);
    expect(new TextJson('{"__proto__": {"x": 1}}').jsonAt(0)?.value).toEqual(JSON.parse('{"__proto__": {"x": 1}}'));
  });

  it('finds nothing in a value nested deeper than the cap', () => {
    const ok = '['.repeat(MAX_NESTING_DEPTH) + ']'.repeat(MAX_NESTING_DEPTH);
    const deep = `[${ok}]`;
    expect(new TextJson(ok).jsonAt(0)?.value).toEqual(JSON.parse(ok));
    expect(new TextJson(deep).jsonAt(0)).toBeUndefined();
    // The inner value is still found on its own.
    expect(new TextJson(deep).jsonAt(1)?.end).toBe(deep.length - 1);
  });

  it('answers every start like a fresh scan, in any order of questions', () => {
    fc.assert(
      fc.property(jsonish, fc.nat(), (text, seed) => {
        const json = new TextJson(text);
        for (const i of positionsOf(text, seed)) expect(json.balancedEnd(i)).toBe(naiveBalancedEnd(text, i));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads what JSON.parse plus the regex repairs read, where no string is there to be mangled', () => {
    fc.assert(
      fc.property(quoteless, fc.nat(), (text, seed) => {
        const json = new TextJson(text);
        for (const at of positionsOf(text, seed)) {
          let i = at;
          while (i < text.length && /\s/.test(text[i]!)) i++; // jsonAt starts after whitespace
          const end = naiveBalancedEnd(text, i);
          const expected = end < 0 || depthOf(text.slice(i, end)) > MAX_NESTING_DEPTH ? undefined : naiveParseLoose(text.slice(i, end));
          const got = json.jsonAt(at);
          expect(got === undefined ? undefined : got.value).toEqual(expected);
          if (got) expect([got.start, got.end]).toEqual([i, end]);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads any JSON document in prose exactly as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(fc.jsonValue({ maxDepth: 4 })), fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }))), fc.string(), (value, prose) => {
        const doc = JSON.stringify(value, null, prose.length % 3);
        const text = `${prose}\n${doc}\nmore`;
        const found = new TextJson(text).jsonAt(prose.length + 1);
        expect(found?.value).toEqual(JSON.parse(doc));
        expect(found?.end).toBe(prose.length + 1 + doc.length);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(codeUnits, jsonish), (text) => {
        const json = new TextJson(text);
        for (let i = 0; i <= text.length; i++) {
          for (let v = json.jsonAt(i); v; v = json.jsonAt(json.nextInRun(v.end))) expect(v.end).toBeGreaterThan(v.start);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads \\s as JavaScript does', () => {
    const differ: string[] = [];
    for (let c = 0; c < 0x10000; c++) if (isSpaceCode(c) !== /\s/.test(String.fromCharCode(c))) differ.push(c.toString(16));
    expect(differ).toEqual([]);
  });
});
