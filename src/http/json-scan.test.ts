import { describe, expect, it } from 'vitest';
import { scanJson } from './json-scan.ts';

describe('scanJson', () => {
  it('keepLast: the text to parse holds the last member alone, and says how many were skipped', () => {
    const body = '{"id":"x","messages":[{"a":[1,2]}, "s,]", {"role":"user","parts":[{"type":"text","text":"hi, ]"}]}],"t":1}';
    const scan = scanJson(body, { keepLast: 'messages' });
    expect(scan).toEqual({ ok: true, text: '{"id":"x","messages":[ {"role":"user","parts":[{"type":"text","text":"hi, ]"}]}],"t":1}', skipped: 2 });
    expect(JSON.parse((scan as { text: string }).text).messages).toHaveLength(1);
    expect(scanJson('{"messages":[{"x":1}]}', { keepLast: 'messages' })).toEqual({ ok: true, text: '{"messages":[{"x":1}]}', skipped: 0 });
    expect(scanJson('{"messages":[]}', { keepLast: 'messages' })).toEqual({ ok: true, text: '{"messages":[]}', skipped: 0 });
  });

  it('keepLast cuts every duplicate of the key, since JSON.parse keeps the last', () => {
    const scan = scanJson('{"messages":[1,2,3],"messages":[4,5]}', { keepLast: 'messages' });
    expect(scan.ok && JSON.parse(scan.text)).toEqual({ messages: [5] });
  });

  it('counts the members of the arrays named, at the first one past the cap, keys read as JSON.parse reads them', () => {
    expect(scanJson('{"mess\\u0061ges":[1,2,3,4]}', { maxItems: { messages: 3 } })).toEqual({ ok: false, kind: 'items', path: 'messages', max: 3 });
    expect(scanJson('{"messages":[{"content":[1,2,3]}]}', { maxItems: { 'messages.*.content': 2 } })).toEqual({
      ok: false,
      kind: 'items',
      path: 'messages.*.content',
      max: 2,
    });
    expect(scanJson('{"messages":[1,2,3],"x":{"messages":[1,2,3,4,5]}}', { maxItems: { messages: 3 } }).ok).toBe(true);
  });

  it('counts the values wherever they are, and stops there', () => {
    expect(scanJson(`{"a":{"b":[${new Array(100).fill('{}').join(',')}]}}`, { maxValues: 50 })).toEqual({ ok: false, kind: 'values', max: 50 });
    expect(scanJson('{"a":"{[,,,,]}"}', { maxValues: 2 }).ok).toBe(true);
  });

  it('reports unbalanced brackets and unclosed strings itself', () => {
    expect(scanJson('{"messages":[{"content":"a\\\\"}]', {})).toMatchObject({ ok: false, kind: 'malformed' });
    expect(scanJson('{"a":"\\"}', {})).toMatchObject({ ok: false, kind: 'malformed' });
    expect(scanJson('{"a":[}', {})).toMatchObject({ ok: false, kind: 'malformed' });
    expect(scanJson('{"messages":[{],{}]}', { keepLast: 'messages' })).toMatchObject({ ok: false, kind: 'malformed' });
  });
});
