import { describe, expect, it } from 'vitest';
import { gate, MAX_SCHEMA_DEPTH } from 'rebound-gate';
import { readTool, TOOL_CACHE_ENTRIES, TOOL_CACHE_MAX_TOOL_CHARS } from './tool-specs.ts';

/** A tool as a new request's JSON.parse makes it: new objects every time. */
const fresh = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const writeFile = {
  name: 'write_file',
  description: 'Writes a file',
  parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
};

describe('readTool', () => {
  it('reads a tool as the gate does (withFileParams, the schema check) and keeps it for the next request that sends the same text', () => {
    const first = readTool(fresh(writeFile));
    expect(first.spec).toMatchObject({ name: 'write_file', description: 'Writes a file', codeParams: ['content'] });
    expect(first.check).toEqual({ ok: true });
    const again = readTool(fresh(writeFile));
    expect(again).toBe(first);
    // The kept spec gates as a fresh one: a cut body is blocked, a whole one passes.
    const call = (content: string) => ({ id: 'c', name: 'write_file', arguments: JSON.stringify({ path: 'a.ts', content }) });
    expect(gate(call('export const a = 1;\n// ... rest of the code unchanged\n'), [again.spec]).verdict).toBe('blocked');
    expect(gate(call('export const a = 1;\n'), [again.spec]).verdict).toBe('pass');
  });

  it('reads afresh what differs in the name, the description or the schema; null and absent alike', () => {
    const first = readTool(fresh(writeFile));
    expect(readTool({ ...fresh(writeFile), name: 'save_file' })).not.toBe(first);
    expect(readTool({ ...fresh(writeFile), description: 'Saves a file' })).not.toBe(first);
    const schema = fresh(writeFile.parameters);
    schema.required = ['path'];
    const changed = readTool({ ...fresh(writeFile), parameters: schema });
    expect(changed).not.toBe(first);
    expect(changed.spec.parameters.required).toEqual(['path']);
    expect(readTool({ name: 'ping', description: null, parameters: null })).toBe(readTool({ name: 'ping' }));
  });

  it("keys a tool by the request's own text of it when the route has it: the same text, the same read; another text, its own", () => {
    const text = JSON.stringify({ type: 'function', function: writeFile });
    const first = readTool(fresh(writeFile), text);
    expect(first.spec).toMatchObject({ name: 'write_file', codeParams: ['content'] });
    expect(readTool(fresh(writeFile), text)).toBe(first);
    // Spelled otherwise (whitespace), or the same tool without its text: read again, alike.
    const spaced = readTool(fresh(writeFile), ` ${text}`);
    expect(spaced).not.toBe(first);
    expect(spaced).toEqual(first);
    expect(readTool(fresh(writeFile))).toEqual(first);
  });

  it('keeps a schema past the limits with its check: the request is forwarded ungated', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH + 5; i++) deep = { type: 'object', properties: { x: deep } };
    const read = readTool({ name: 'deep', parameters: deep });
    expect(read.check).toMatchObject({ ok: false, reason: expect.stringContaining('nests deeper') });
    expect(readTool(fresh({ name: 'deep', parameters: deep }))).toBe(read);
  });

  it(`keeps at most ${TOOL_CACHE_ENTRIES} tools, the least recently used dropped first, and no tool past ${TOOL_CACHE_MAX_TOOL_CHARS} characters`, () => {
    const tool = (i: number) => ({ name: `tool_${i}`, parameters: { type: 'object', properties: { a: { type: 'string' } } } });
    const first = readTool(tool(0));
    const used = readTool(tool(1));
    // Two past the bound: tool_0 and then the oldest after it go; tool_1, used again, is not that one.
    for (let i = 2; i <= TOOL_CACHE_ENTRIES + 1; i++) {
      readTool(tool(i));
      if (i === 3) readTool(tool(1));
    }
    expect(readTool(tool(1))).toBe(used);
    expect(readTool(tool(0))).not.toBe(first);
    const huge = { name: 'huge', description: 'x'.repeat(TOOL_CACHE_MAX_TOOL_CHARS), parameters: { type: 'object' } };
    expect(readTool(huge)).not.toBe(readTool(huge));
  });
});
