import { describe, expect, it } from 'vitest';
import { parseArgumentsText } from './arguments-text.ts';

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
});
