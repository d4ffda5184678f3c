import { describe, expect, it } from 'vitest';
import { call, makeContext } from '../testing.ts';
import { MAX_ENTRIES } from './list_files.ts';

const seed = { 'README.md': '# demo', 'src/index.ts': 'export {};\n', 'src/lib/util.ts': 'x', 'src/lib/more.ts': 'yy', 'srcx.txt': 'z' };

describe('list_files', () => {
  it('lists direct entries of the root, folders with a trailing slash and a file count', async () => {
    const r = await call(makeContext(seed), 'list_files', {});
    expect(r.path).toBe('.');
    expect(r.entries).toEqual([
      { path: 'README.md', type: 'file', size: 6 },
      { path: 'src/', type: 'folder', files: 3 },
      { path: 'srcx.txt', type: 'file', size: 1 },
    ]);
    expect(r.total).toBe(3);
  });

  it('lists a sub-folder by a messy path', async () => {
    const r = await call(makeContext(seed), 'list_files', { path: '.\\src//' });
    expect(r.path).toBe('src');
    expect(r.entries.map((e: { path: string }) => e.path)).toEqual(['src/index.ts', 'src/lib/']);
  });

  it('lists every file below a folder when recursive', async () => {
    const r = await call(makeContext(seed), 'list_files', { path: 'src', recursive: true });
    expect(r.entries.map((e: { path: string }) => e.path)).toEqual(['src/index.ts', 'src/lib/more.ts', 'src/lib/util.ts']);
    expect(r.entries.every((e: { type: string }) => e.type === 'file')).toBe(true);
  });

  it('explains a missing folder with the nearest existing listing', async () => {
    await expect(call(makeContext(seed), 'list_files', { path: 'src/nope/deeper' })).rejects.toThrow(
      /Folder "src\/nope\/deeper" does not exist\. Entries of "src": index\.ts, lib\//,
    );
  });

  it('points a file at read_file', async () => {
    await expect(call(makeContext(seed), 'list_files', { path: 'README.md' })).rejects.toThrow(/is a file.*read_file/);
  });

  it('refuses escapes', async () => {
    await expect(call(makeContext(seed), 'list_files', { path: '../' })).rejects.toThrow(/escapes/);
  });

  it('says when the workspace is empty', async () => {
    const r = await call(makeContext(), 'list_files', {});
    expect(r.entries).toEqual([]);
    expect(r.note).toMatch(/empty.*write_file/);
  });

  it('caps a huge listing and says how to see the rest', async () => {
    const many = Object.fromEntries(Array.from({ length: MAX_ENTRIES + 7 }, (_, i) => [`f${String(i).padStart(4, '0')}.txt`, '']));
    const r = await call(makeContext(many), 'list_files', {});
    expect(r.entries).toHaveLength(MAX_ENTRIES);
    expect(r.total).toBe(MAX_ENTRIES + 7);
    expect(r.truncated).toBe(true);
    expect(r.note).toMatch(/sub-folder/);
  });
});
