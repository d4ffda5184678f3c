import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseArgumentsText, unfence } from './arguments-text.ts';
import { nestsDeeperThan } from './loose-json.ts';
import { MAX_ARGUMENTS_CHARS, MAX_NESTING_DEPTH } from '../limits.ts';

// The fence as a regex reads it (cubic on a long unclosed fence): unfence must read the same.
const FENCE = /^```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```$/;
const fenceish = fc
  .array(fc.constantFrom('```', '`', 'json', 'a-b_1', ' ', '\t', '\r', '\n', '{}', '"x"', 'é'), { maxLength: 14 })
  .map((p) => p.join('').trim());
const codeUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 80 }).map((u) => String.fromCharCode(...u));
const argumentish = fc
  .array(
    fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      '"',
      "'",
      '\\',
      ',',
      ':',
      ' ',
      '\n',
      '//',
      '/*',
      '*/',
      '...',
      '…',
      'True',
      'None',
      'constructor',
      '__proto__',
      '1',
      '```json\n',
      '```',
    ),
    { maxLength: 40 },
  )
  .map((p) => p.join(''));
const depthOf = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);

const value = (raw: string) => {
  const r = parseArgumentsText(raw);
  if (!r.ok) throw new Error(`expected ok, got ${r.reason}: ${r.message}`);
  return r;
};

describe('parseArgumentsText', () => {
  it('passes plain JSON through without recording a repair', () => {
    const r = value('{"a": 1, "b": [true, null]}');
    expect(r.value).toEqual({ a: 1, b: [true, null] });
    expect(r.repairs).toEqual([]);
  });

  it('reads an empty arguments string as no arguments', () => {
    expect(value('  ').value).toEqual({});
  });

  it('accepts a code fence, trailing commas, single quotes and Python literals, and records them', () => {
    const r = value("```json\n{'city': 'Paris', 'tags': ['a', 'b',], 'ok': True, 'none': None,}\n```");
    expect(r.value).toEqual({ city: 'Paris', tags: ['a', 'b'], ok: true, none: null });
    expect(r.repairs.map((x) => x.from)).toEqual(['code fence', 'trailing comma', "'single quotes'", 'True/False/None']);
    expect(r.repairs.every((x) => x.category === 'malformed_json')).toBe(true);
  });

  it('keeps double quotes inside a single-quoted string', () => {
    expect(value(`{'q': 'say "hi"', 'r': 'it\\'s'}`).value).toEqual({ q: 'say "hi"', r: "it's" });
  });

  it('unwraps a JSON string that holds the arguments object', () => {
    const r = value(JSON.stringify(JSON.stringify({ x: 1 })));
    expect(r.value).toEqual({ x: 1 });
    expect(r.repairs.at(-1)?.kind).toBe('json_string_unwrapped');
  });

  it('drops comments the model wrote next to values', () => {
    expect(value('{\n "total": 52, // a deck\n "n": 13 /* hearts */\n}').value).toEqual({ total: 52, n: 13 });
  });

  it('escapes raw newlines and tabs inside a string (a file body written as is), losslessly, and records it', () => {
    const body = 'def f():\n\treturn "x"\n';
    const parsed = parseArgumentsText(`{"path": "a.py", "content": "${body.replaceAll('"', '\\"')}"}`);
    expect(parsed).toEqual({
      ok: true,
      value: { path: 'a.py', content: body },
      repairs: [{ kind: 'json_syntax', path: '$', from: 'raw control characters in a string', to: 'escaped', category: 'malformed_json' }],
    });
  });

  it('blocks an object cut off mid-way instead of closing it', () => {
    const r = parseArgumentsText('{"path": "src/app.ts", "content": {"lines": [1, 2');
    expect(r).toMatchObject({ ok: false, reason: 'truncated' });
  });

  it('blocks a string cut off mid-way', () => {
    expect(parseArgumentsText('{"content": "function main() {')).toMatchObject({ ok: false, reason: 'truncated' });
  });

  it('blocks `...` standing for elided values', () => {
    expect(parseArgumentsText('{"ids": [1, 2, 3, ...]}')).toMatchObject({ ok: false, reason: 'elided' });
    expect(parseArgumentsText("{'ids': [1, 2, …]}")).toMatchObject({ ok: false, reason: 'elided' });
  });

  it('leaves `...` inside a string value alone (it is data there)', () => {
    expect(value('{"title": "Loading...",}').value).toEqual({ title: 'Loading...' });
  });

  it('refuses code and expressions', () => {
    expect(parseArgumentsText('{"p": 1/6}')).toMatchObject({ ok: false, reason: 'syntax' });
    expect(parseArgumentsText('{"x": data["sales"]}')).toMatchObject({ ok: false, reason: 'syntax' });
    expect(parseArgumentsText('def f(n):\n    return n')).toMatchObject({ ok: false });
  });

  it('blocks arguments over the size cap unread, saying the size and the limit', () => {
    const atCap = `{"a": "${'x'.repeat(MAX_ARGUMENTS_CHARS - 9)}"}`;
    expect(atCap.length).toBe(MAX_ARGUMENTS_CHARS);
    expect(parseArgumentsText(atCap).ok).toBe(true);
    const r = parseArgumentsText(`${atCap} `);
    expect(r).toMatchObject({ ok: false, reason: 'too_large' });
    if (!r.ok) expect(r.message).toMatch(/1,000,001 characters long, over the limit of 1,000,000/);
  });

  it('blocks a call a host kept only the start of (its whole length given), whatever the limits, saying that length', () => {
    const start = `{"a": "${'x'.repeat(MAX_ARGUMENTS_CHARS - 7)}`;
    const r = parseArgumentsText(start, undefined, 5_000_000);
    expect(r).toMatchObject({ ok: false, reason: 'too_large' });
    if (!r.ok) expect(r.message).toMatch(/^5,000,000 characters long, over the limit of 1,000,000: they were not read/);
    // A caller's higher limit does not make the start readable: the host kept no more than the default.
    const raised = parseArgumentsText('{"a": 1}', { maxArgumentsChars: 10_000_000 }, 5_000_000);
    expect(raised).toMatchObject({ ok: false, reason: 'too_large' });
    if (!raised.ok) expect(raised.message).toMatch(/over the limit of 1,000,000/);
  });

  it('blocks arguments nested past the depth cap, however deep, before parsing them', () => {
    const nest = (d: number) => `{"a": ${'['.repeat(d - 1)}${']'.repeat(d - 1)}}`;
    expect(parseArgumentsText(nest(MAX_NESTING_DEPTH)).ok).toBe(true);
    expect(parseArgumentsText(nest(MAX_NESTING_DEPTH + 1))).toMatchObject({ ok: false, reason: 'too_deep' });
    const r = parseArgumentsText(nest(20_000));
    expect(r).toMatchObject({ ok: false, reason: 'too_deep' });
    if (!r.ok) expect(r.message).toContain(`more than ${MAX_NESTING_DEPTH} levels`);
    // Also unclosed, inside a fence, or encoded as a string: still too deep, never a stack overflow.
    expect(parseArgumentsText(`{"a":${'['.repeat(100_000)}`)).toMatchObject({ reason: 'too_deep' });
    expect(parseArgumentsText(`\`\`\`json\n${nest(200)}\n\`\`\``)).toMatchObject({ reason: 'too_deep' });
    expect(parseArgumentsText(JSON.stringify(nest(200)))).toMatchObject({ reason: 'too_deep' });
  });

  it('scans the structure only where the brackets could nest past the cap, with the same readings', () => {
    // As many brackets as the cap: read at once; brackets in a string count too, and are scanned as a string.
    expect(parseArgumentsText('{"a": [1]}', { maxNestingDepth: 2 })).toEqual({ ok: true, value: { a: [1] }, repairs: [] });
    expect(parseArgumentsText(`{"a": "${'['.repeat(200)}"}`)).toEqual({ ok: true, value: { a: '['.repeat(200) }, repairs: [] });
    // Text JSON.parse refuses is scanned as before: cut off, unbalanced, elided.
    expect(parseArgumentsText('{"a": [1')).toMatchObject({ ok: false, reason: 'truncated' });
    expect(parseArgumentsText('{"a": 1]')).toMatchObject({ ok: false, reason: 'syntax' });
    expect(parseArgumentsText('{"a": [1, ...]}')).toMatchObject({ ok: false, reason: 'elided' });
  });

  it('takes other caps from the caller, and says plainly when one is not a positive integer', () => {
    expect(parseArgumentsText('{"a": [[1]]}', { maxNestingDepth: 2 })).toMatchObject({ reason: 'too_deep' });
    expect(parseArgumentsText('{"a": 1}', { maxArgumentsChars: 5 })).toMatchObject({ reason: 'too_large' });
    expect(() => parseArgumentsText('{}', { maxNestingDepth: 0 })).toThrow(/maxNestingDepth must be a positive integer, got 0/);
  });

  it('reads a code fence as the regex does', () => {
    fc.assert(
      fc.property(fenceish, (text) => {
        expect(unfence(text)).toBe(FENCE.exec(text)?.[1]?.trim());
      }),
      { numRuns: 3000 },
    );
    expect(unfence('```json\n{"a": 1}\n```')).toBe('{"a": 1}');
  });

  it('measures nesting as the parsed value has it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.nat({ max: 7 }), (value, max) => {
        expect(nestsDeeperThan(JSON.stringify(value), max)).toBe(depthOf(value) > max);
      }),
      { numRuns: 1000 },
    );
    // Brackets in strings and comments do not count.
    expect(nestsDeeperThan(`{"a": "[[[[", 'b': '{{{{' /* [[[[ */ // {{{{\n}`, 1)).toBe(false);
  });

  it('passes any JSON document through unchanged', () => {
    fc.assert(
      fc.property(fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 5 })), fc.array(fc.jsonValue({ maxDepth: 5 }))), (doc) => {
        const r = value(JSON.stringify(doc));
        expect(r.value).toEqual(JSON.parse(JSON.stringify(doc)));
        expect(r.repairs).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, and every refusal has a reason and a message', () => {
    fc.assert(
      fc.property(fc.oneof(codeUnits, argumentish, fc.string()), (raw) => {
        const r = parseArgumentsText(raw);
        if (r.ok) expect(Array.isArray(r.repairs)).toBe(true);
        else {
          expect(['truncated', 'elided', 'syntax', 'too_large', 'too_deep']).toContain(r.reason);
          expect(r.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
