import { describe, expect, it } from 'vitest';
import { paramSimilarity, renameUnknown, unwrapWrapper } from './rename.ts';
import type { JSONSchema, Repair } from '../types.ts';

const writeFile: JSONSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, content: { type: 'string' }, overwrite: { type: 'boolean' } },
  required: ['path', 'content'],
};

describe('unwrapWrapper', () => {
  it('takes the call out of one wrapper level ({"arguments": {…}})', () => {
    const repairs: Repair[] = [];
    expect(unwrapWrapper({ arguments: { path: 'a.ts', content: 'x' } }, writeFile, repairs)).toEqual({ path: 'a.ts', content: 'x' });
    expect(repairs).toEqual([{ kind: 'unwrap', path: '$.arguments', from: 'arguments', to: '$', category: 'unknown_parameter' }]);
  });

  it('carries the keys beside a known wrapper into the inner object', () => {
    const repairs: Repair[] = [];
    expect(unwrapWrapper({ dataset: 'x', parameters: { path: 'a.ts' } }, writeFile, repairs)).toEqual({ path: 'a.ts', dataset: 'x' });
  });

  it('unwraps another name only when all it holds is declared', () => {
    expect(unwrapWrapper({ file: { path: 'a.ts', content: 'x' } }, writeFile, [])).toEqual({ path: 'a.ts', content: 'x' });
    expect(unwrapWrapper({ file: { path: 'a.ts', mode: 'x' } }, writeFile, [])).toEqual({ file: { path: 'a.ts', mode: 'x' } });
  });

  it('leaves a call alone when a wrapper name is itself a parameter, or nothing inside is declared', () => {
    const withData: JSONSchema = { type: 'object', properties: { data: { type: 'object' } } };
    const args = { data: { path: 'a.ts' } };
    const repairs: Repair[] = [];
    expect(unwrapWrapper(args, withData, repairs)).toBe(args);
    expect(unwrapWrapper({ params: { other: 1 } }, writeFile, repairs)).toEqual({ params: { other: 1 } });
    expect(repairs).toEqual([]);
  });
});

describe('paramSimilarity', () => {
  it('is 1 for the same name up to case and separators, high for synonyms, low for unrelated names', () => {
    expect(paramSimilarity('filePath', 'file_path')).toBe(1);
    expect(paramSimilarity('text', 'content')).toBeGreaterThanOrEqual(0.75);
    expect(paramSimilarity('color', 'content')).toBeLessThan(0.75);
    expect(paramSimilarity('', 'content')).toBe(0);
  });
});

describe('renameUnknown', () => {
  it('renames a plainly meant name whose value fits, and says whether it filled a required slot', () => {
    const r = renameUnknown({ file_path: 'a.ts', text: 'x', Overwrite: 'true' }, writeFile);
    expect(r.args).toEqual({ path: 'a.ts', content: 'x', overwrite: 'true' });
    expect(r.repairs).toEqual([
      { kind: 'rename', path: '$.file_path', from: 'file_path', to: 'path', category: 'missing_required' },
      { kind: 'rename', path: '$.text', from: 'text', to: 'content', category: 'missing_required' },
      { kind: 'rename', path: '$.Overwrite', from: 'Overwrite', to: 'overwrite', category: 'unknown_parameter' },
    ]);
    expect(r.invented).toEqual([]);
  });

  it('drops an invented name and reports it, with the declared names it might have meant', () => {
    const r = renameUnknown({ path: 'a.ts', content: 'x', encoding: 'utf-8' }, writeFile);
    expect(r.args).toEqual({ path: 'a.ts', content: 'x' });
    expect(r.invented).toEqual(['encoding']);
    expect(r.repairs).toEqual([{ kind: 'drop_unknown', path: '$.encoding', from: 'encoding', category: 'unknown_parameter' }]);
  });

  it('does not rename when the value would not fit the parameter', () => {
    const r = renameUnknown({ path: 'a.ts', content: 'x', overwrites: 'sometimes' }, writeFile);
    expect(r.args).toEqual({ path: 'a.ts', content: 'x' });
    expect(r.invented).toEqual(['overwrites']);
    expect(r.near.overwrites).toContain('overwrite');
  });

  it('renames on a looser likeness when one unknown name meets one missing required name', () => {
    const schema: JSONSchema = { type: 'object', properties: { gradeDict: { type: 'object' } }, required: ['gradeDict'] };
    const r = renameUnknown({ grades: { alice: 90 } }, schema);
    expect(r.args).toEqual({ gradeDict: { alice: 90 } });
    expect(r.repairs[0]).toMatchObject({ kind: 'rename', from: 'grades', to: 'gradeDict' });
  });

  it('does not guess between two declared names the unknown one is equally like', () => {
    const schema: JSONSchema = { type: 'object', properties: { start_date: { type: 'string' }, end_date: { type: 'string' } } };
    const r = renameUnknown({ date: '2025-01-01' }, schema);
    expect(r.args).toEqual({});
    expect(r.invented).toEqual(['date']);
  });

  it('gives a declared slot to one unknown name only, the likest', () => {
    const r = renameUnknown({ file: 'b.ts', Path: 'a.ts', content: 'x' }, writeFile);
    expect(r.args).toEqual({ path: 'a.ts', content: 'x' });
    expect(r.invented).toEqual(['file']);
  });

  it('renames the one unknown name to the one missing required parameter whose description uses it, when the value fits as it stands', () => {
    const todo: JSONSchema = {
      type: 'object',
      properties: {
        type: { type: 'string', enum: ['add', 'delete'], description: 'The action to be performed on the to-do list.' },
        content: { type: 'string' },
      },
      required: ['type', 'content'],
    };
    expect(renameUnknown({ action: 'add', content: 'x' }, todo)).toMatchObject({ args: { type: 'add', content: 'x' }, invented: [] });
    // Not when the value does not fit as it stands, nor with a second unknown name.
    expect(renameUnknown({ action: 'ADD', content: 'x' }, todo).invented).toEqual(['action']);
    expect(renameUnknown({ action: 'add', verb: 'add', content: 'x' }, todo).invented).toEqual(['action', 'verb']);
    // Not when the description does not use the name.
    expect(renameUnknown({ operation: 'add', content: 'x' }, todo).invented).toEqual(['operation']);
  });

  it('returns the arguments as they are when every name is declared', () => {
    const args = { path: 'a.ts', content: 'x' };
    const r = renameUnknown(args, writeFile);
    expect(r.args).toBe(args);
    expect(r.repairs).toEqual([]);
  });
});
