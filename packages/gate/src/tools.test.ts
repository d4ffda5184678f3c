import { describe, expect, it } from 'vitest';
import { buildPathIndex, compileTools, gate } from './index.ts';
import { toolSpec, withoutExtensions } from './tools.ts';
import type { ProposedCall } from './types.ts';

const write = {
  name: 'write_file',
  description: 'Write a file',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', 'x-rebound-path': true }, content: { type: 'string', 'x-rebound-code': true } },
    required: ['path', 'content'],
  },
};
const call = (args: unknown, name = 'write_file'): ProposedCall => ({ id: 'c1', name, arguments: JSON.stringify(args) });
const placeholder = 'function a() {\n  return 1;\n}\n// ... rest of the code unchanged\n';

describe('tools as {name, description?, parameters}', () => {
  it('reads the extension keywords into the checks they switch on', () => {
    expect(toolSpec(write)).toMatchObject({ name: 'write_file', codeParams: ['content'], pathParams: ['path'] });
    expect(toolSpec({ name: 'ping' }).parameters).toEqual({ type: 'object', properties: {} });
  });

  it('x-rebound-code: a placeholder in the content is blocked, plain content passes', () => {
    expect(gate(call({ path: 'a.ts', content: placeholder }), [write]).verdict).toBe('blocked');
    expect(gate(call({ path: 'a.ts', content: 'export const a = 1;\n' }), [write]).verdict).toBe('pass');
    // The same tool without the keyword has no content check.
    const plain = { ...write, parameters: withoutExtensions(write.parameters) };
    expect(gate(call({ path: 'a.ts', content: placeholder }), [plain]).verdict).toBe('pass');
  });

  it('x-rebound-path: checked only when the context gives a path index', () => {
    const args = { path: 'src/mian.ts', content: 'x' };
    expect(gate(call(args), [write]).verdict).toBe('pass');
    const v = gate(call(args), [write], { paths: buildPathIndex(['src/main.ts', 'README.md']) });
    expect(v.verdict).toBe('blocked');
    expect(v.verdict === 'blocked' && v.suggestions[0]).toBe('src/main.ts');
  });

  it('compileTools reads the set once and checks many calls, with the same verdicts as gate', () => {
    const compiled = compileTools([write, { name: 'ping' }]);
    expect(compiled.tools.map((t) => t.name)).toEqual(['write_file', 'ping']);
    const calls = [call({ path: 'a.ts', content: placeholder }), call({ path: 'a.ts', content: 'ok' }, 'write_fil'), call({}, 'ping'), call({}, 'pong_x')];
    for (const c of calls) expect(compiled.check(c)).toEqual(gate(c, [write, { name: 'ping', parameters: { type: 'object', properties: {} } }]));
    expect(compiled.check(calls[1]!).verdict).toBe('repaired');
  });

  it('withoutExtensions takes the keywords out and leaves a schema without them as it is', () => {
    const cleaned = withoutExtensions(write.parameters);
    expect(JSON.stringify(cleaned)).not.toContain('x-rebound');
    expect(cleaned.required).toEqual(['path', 'content']);
    const none = { type: 'object', properties: { a: { type: 'string' } } };
    expect(withoutExtensions(none)).toBe(none);
  });
});
