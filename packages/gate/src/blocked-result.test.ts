import { describe, expect, it } from 'vitest';
import { blockedToolResult } from './blocked-result.ts';
import { gate } from './index.ts';
import { buildPathIndex } from './paths/paths.ts';

const tools = [
  {
    name: 'read_file',
    parameters: { type: 'object', properties: { path: { type: 'string', 'x-rebound-path': true }, lines: { type: 'integer' } }, required: ['path'] },
  },
];

function blockedVerdict(args: string, context = {}) {
  const v = gate({ id: 'c1', name: 'read_file', arguments: args }, tools, context);
  if (v.verdict !== 'blocked') throw new Error(`expected a blocked verdict, got ${v.verdict}`);
  return v;
}

describe('blockedToolResult: the one blocked message every host sends', () => {
  it('is the gate message and its suggestions, nothing else, for a plain block', () => {
    const v = blockedVerdict('{"lines": 3}');
    expect(blockedToolResult(v)).toEqual({ ok: false, error: v.message, suggestions: v.suggestions });
    expect(v.message).toMatch(/path/);
  });

  it('carries the nearest listing of a missing path', () => {
    const v = blockedVerdict('{"path": "src/mian.ts"}', { paths: buildPathIndex(['src/main.ts', 'src/util.ts']) });
    const r = blockedToolResult(v);
    expect(r.listing).toEqual(v.listing);
    expect(r.listing?.entries).toContain('main.ts');
    expect(r.suggestions).toContain('src/main.ts');
  });

  it("adds the host's note on its own line and the schema with an example it shows", () => {
    const v = blockedVerdict('{"lines": 3}');
    const shown = { schema: tools[0]!.parameters, example: { path: 'a.txt' } };
    expect(blockedToolResult(v, { note: 'You sent this call twice.', shown })).toEqual({
      ok: false,
      error: `${v.message}\nYou sent this call twice.`,
      suggestions: v.suggestions,
      schema: shown.schema,
      example: shown.example,
    });
  });
});
