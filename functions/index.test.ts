import { describe, expect, it } from 'vitest';
import { createTools, defaultTools } from './index.ts';

const byName = Object.fromEntries(defaultTools.map((t) => [t.name, t]));

describe('defaultTools', () => {
  it('has every tool once, under the names the demo model calls', () => {
    expect(defaultTools.map((t) => t.name)).toEqual([
      'list_files',
      'read_file',
      'write_file',
      'patch_file',
      'delete_file',
      'search_files',
      'save_memory',
      'recall_memories',
    ]);
  });

  it.each([
    ['list_files', ['path', 'recursive'], []],
    ['read_file', ['path', 'offset', 'limit', 'max_size', 'encoding'], ['path']],
    ['write_file', ['path', 'content', 'append', 'overwrite', 'line_end', 'encoding'], ['path', 'content']],
    ['patch_file', ['path', 'search', 'replace'], ['path', 'search', 'replace']],
    ['delete_file', ['path'], ['path']],
    ['search_files', ['query', 'path'], ['query']],
    ['save_memory', ['content', 'memory_type'], ['content']],
    ['recall_memories', ['query', 'memory_type', 'limit'], []],
  ])('%s declares parameters %j, requiring %j', (name, params, required) => {
    const schema = byName[name]!.parameters;
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties ?? {})).toEqual(params);
    expect(schema.required ?? []).toEqual(required);
    expect(schema.$schema).toBeUndefined();
  });

  it('declares paths that must exist and code bodies for the gate', () => {
    const decl = Object.fromEntries(defaultTools.map((t) => [t.name, { paths: t.pathParams ?? [], code: t.codeParams ?? [] }]));
    expect(decl.read_file).toEqual({ paths: ['path'], code: [] });
    expect(decl.patch_file).toEqual({ paths: ['path'], code: ['replace'] });
    expect(decl.delete_file).toEqual({ paths: ['path'], code: [] });
    expect(decl.write_file).toEqual({ paths: [], code: ['content'] }); // a new file does not exist yet
    expect(decl.list_files?.paths).toEqual([]);
  });

  it('exposes the enums the gate checks', () => {
    expect(byName.read_file!.parameters.properties?.encoding?.enum).toEqual(['utf-8', 'base64']);
    expect(byName.write_file!.parameters.properties?.line_end?.enum).toEqual(['lf', 'crlf']);
  });

  it('keeps descriptions short, since they go into every prompt', () => {
    for (const t of defaultTools) expect(t.description!.length, t.name).toBeLessThanOrEqual(160);
  });

  it('createTools returns a fresh list', () => {
    const a = createTools();
    a.pop();
    expect(createTools()).toHaveLength(defaultTools.length);
  });
});
