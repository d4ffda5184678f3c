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

  it("membersOf: each member's text of the top-level array JSON.parse keeps, when every member is a container", () => {
    const members = (body: string) => {
      const scan = scanJson(body, { maxItems: { tools: 10, 'messages.*.content': 5 }, membersOf: 'tools' });
      return scan.ok ? scan.members : scan;
    };
    expect(members('{"tools":[ {"a":[1,{"b":"]}"}]} ,[2],{} ],"x":{"tools":[{"no":1}]}}')).toEqual(['{"a":[1,{"b":"]}"}]}', '[2]', '{}']);
    expect(members('{"tools":[]}')).toEqual([]);
    // The key as JSON.parse reads it: spelled with an escape, repeated (the last one), its last value no array.
    expect(members('{"t\\u006fols":[{"a":1}]}')).toEqual(['{"a":1}']);
    expect(members('{"tools":[{"a":1}],"tools":[{"b":2}]}')).toEqual(['{"b":2}']);
    expect(members('{"tools":[{"a":1}],"tools":null}')).toBeUndefined();
    expect(members('{"tools":[{"a":1}],"tools":{"x":[{}]}}')).toBeUndefined();
    // A member that is no container: none (the caller reads the values alone).
    expect(members('{"tools":[{"a":1},"s"]}')).toBeUndefined();
    expect(members('{"tools":[1,{"a":1}]}')).toBeUndefined();
    expect(members('{"messages":[{"content":[1]}]}')).toBeUndefined();
    // Still bounded: the count of tools as before.
    expect(scanJson(`{"tools":[${new Array(11).fill('{}').join(',')}]}`, { maxItems: { tools: 10 }, membersOf: 'tools' })).toMatchObject({
      ok: false,
      kind: 'items',
    });
    // Without membersOf, no members.
    expect(scanJson('{"tools":[{}]}', { maxItems: { tools: 10 } })).toEqual({ ok: true, text: '{"tools":[{}]}', skipped: 0 });
  });

  it('reports unbalanced brackets and unclosed strings itself', () => {
    expect(scanJson('{"messages":[{"content":"a\\\\"}]', {})).toMatchObject({ ok: false, kind: 'malformed' });
    expect(scanJson('{"a":"\\"}', {})).toMatchObject({ ok: false, kind: 'malformed' });
    expect(scanJson('{"a":[}', {})).toMatchObject({ ok: false, kind: 'malformed' });
    expect(scanJson('{"messages":[{],{}]}', { keepLast: 'messages' })).toMatchObject({ ok: false, kind: 'malformed' });
  });
});
