// Tool-call assembly from deltas: the shapes real providers send (the recorded streams in
// test/model/replay.test.ts cover them end to end) and the ones a hostile model could send.
import { describe, expect, it } from 'vitest';
import { gate, MAX_ARGUMENTS_CHARS, toolSpec } from 'rebound-gate';
import { ToolCallAssembler, type ToolCallDelta } from './assemble.ts';

function assemble(deltas: unknown[]) {
  const a = new ToolCallAssembler();
  for (const d of deltas) a.push(d as ToolCallDelta);
  return a.result();
}

describe('ToolCallAssembler', () => {
  it("keeps a call's arguments up to the gate's limit and counts the rest: the gate blocks it unread, with its whole length", () => {
    const piece = 'x'.repeat(64 * 1024);
    const a = new ToolCallAssembler();
    a.push({ index: 0, id: 'big', function: { name: 'write_file', arguments: '{"content": "' } });
    for (let i = 0; i < 48; i++) a.push({ index: 0, function: { arguments: piece } });
    a.push({ index: 1, id: 'small', function: { name: 'read_file', arguments: '{"path": "a"}' } });
    const [big, small] = a.result();
    const whole = 13 + 48 * piece.length;
    expect(big).toMatchObject({ id: 'big', argumentsChars: whole });
    expect(big!.arguments).toBe(`{"content": "${piece.repeat(48)}`.slice(0, MAX_ARGUMENTS_CHARS));
    expect(small).toEqual({ id: 'small', name: 'read_file', arguments: '{"path": "a"}' });
    const verdict = gate(big!, [toolSpec({ name: 'write_file', parameters: { type: 'object', properties: { content: { type: 'string' } } } })]);
    expect(verdict).toMatchObject({ verdict: 'blocked', category: 'malformed_json' });
    expect(JSON.stringify(verdict)).toContain(`${whole.toLocaleString('en-US')} characters long, over the limit of 1,000,000`);
  });

  it('joins a call split across chunks: id and name first, arguments in pieces', () => {
    expect(
      assemble([
        { index: 0, id: 'call_1', function: { name: 'read_file', arguments: '' } },
        { index: 0, function: { arguments: '{"pa' } },
        { index: 0, function: { arguments: 'th": "a"}' } },
      ]),
    ).toEqual([{ id: 'call_1', name: 'read_file', arguments: '{"path": "a"}' }]);
  });

  it('keeps interleaved parallel calls apart by index, in index order', () => {
    expect(
      assemble([
        { index: 1, id: 'b', function: { name: 'two', arguments: '{"x"' } },
        { index: 0, id: 'a', function: { name: 'one', arguments: '{' } },
        { index: 1, function: { arguments: ':2}' } },
        { index: 0, function: { arguments: '}' } },
      ]),
    ).toEqual([
      { id: 'a', name: 'one', arguments: '{}' },
      { id: 'b', name: 'two', arguments: '{"x":2}' },
    ]);
  });

  it('does not double a name repeated in every chunk, nor append an empty one (Mistral)', () => {
    expect(
      assemble([
        { index: 0, id: 'm', function: { name: 'search', arguments: '{"q":' } },
        { index: 0, function: { name: '', arguments: '"x"}' } },
        { index: 0, function: { name: 'search' } },
      ]),
    ).toEqual([{ id: 'm', name: 'search', arguments: '{"q":"x"}' }]);
  });

  it('follows calls sent without index by id, and continues the last call otherwise', () => {
    expect(
      assemble([
        { id: 'a', function: { name: 'one', arguments: '{"n":' } },
        { function: { arguments: '1}' } },
        { id: 'b', function: { name: 'two', arguments: '{}' } },
        { id: 'a', function: { arguments: '' } },
      ]),
    ).toEqual([
      { id: 'a', name: 'one', arguments: '{"n":1}' },
      { id: 'b', name: 'two', arguments: '{}' },
    ]);
  });

  it('drops a finished call repeated under the same index with a new id, keeps a different one (Cerebras)', () => {
    const first = { index: 0, id: 'x1', function: { name: 'f', arguments: '{"a":1}' } };
    expect(assemble([first, { index: 0, id: 'x2', function: { name: 'f', arguments: '{"a":1}' } }])).toEqual([{ id: 'x1', name: 'f', arguments: '{"a":1}' }]);
    expect(assemble([first, { index: 0, id: 'x2', function: { name: 'f', arguments: '{"a":' } }, { index: 0, function: { arguments: '2}' } }])).toEqual([
      { id: 'x1', name: 'f', arguments: '{"a":1}' },
      { id: 'x2', name: 'f', arguments: '{"a":2}' },
    ]);
  });

  it('gives a call without id a stable synthetic one', () => {
    expect(assemble([{ index: 3, function: { name: 'f', arguments: '{}' } }])).toEqual([{ id: 'call_3', name: 'f', arguments: '{}' }]);
  });

  it('ignores fields of the wrong type instead of throwing', () => {
    expect(
      assemble([
        null,
        'text',
        { index: 0, id: 42, function: { name: 7, arguments: { nested: true } } },
        { index: 0, id: 'ok', function: null },
        { index: 0, function: { name: 'f', arguments: '{}' } },
      ]),
    ).toEqual([{ id: 'ok', name: 'f', arguments: '{}' }]);
  });

  it('treats an index that is not a small non-negative integer as absent', () => {
    const calls = assemble([
      { index: -1, id: 'a', function: { name: 'one', arguments: '{}' } },
      { index: 1.5, id: 'b', function: { name: 'two', arguments: '{}' } },
      { index: Number.NaN, function: { arguments: '' } },
      { index: 2 ** 40, id: 'c', function: { name: 'three', arguments: '{}' } },
    ]);
    expect(calls.map((c) => [c.id, c.name])).toEqual([
      ['a', 'one'],
      ['b', 'two'],
      ['c', 'three'],
    ]);
  });

  it('assembles thousands of calls, with or without index, in order', () => {
    const n = 5_000;
    const indexed = Array.from({ length: n }, (_, i) => [
      { index: i, id: `i${i}`, function: { name: 'f', arguments: '' } },
      { index: i, function: { arguments: `{"n":${i}}` } },
    ]).flat();
    const unindexed = Array.from({ length: n }, (_, i) => [
      { id: `u${i}`, function: { name: 'f', arguments: '{"n":' } },
      { function: { arguments: `${i}}` } },
    ]).flat();
    for (const deltas of [indexed, unindexed]) {
      const calls = assemble(deltas);
      expect(calls).toHaveLength(n);
      expect(calls.map((c) => JSON.parse(c.arguments).n)).toEqual(Array.from({ length: n }, (_, i) => i));
    }
  });
});
