import { describe, expect, it } from 'vitest';
import { call, makeContext } from '../testing.ts';
import { MAX_MATCHES } from './search_files.ts';

const seed = {
  'src/auth.ts': 'export function login() {}\nexport function Logout() {}\n',
  'src/db.ts': 'const url = "postgres://";\n',
  'docs/login.md': '# How to log in\n',
};

describe('search_files', () => {
  it('finds lines case-insensitively, with paths and line numbers', async () => {
    const r = await call(makeContext(seed), 'search_files', { query: 'LOG' });
    expect(r.matches).toEqual([
      { path: 'docs/login.md', line: 1, text: '# How to log in' },
      { path: 'src/auth.ts', line: 1, text: 'export function login() {}' },
      { path: 'src/auth.ts', line: 2, text: 'export function Logout() {}' },
    ]);
    expect(r).toMatchObject({ total_matches: 3, files_matched: 2, path_matches: ['docs/login.md'] });
  });

  it('searches literally, not as a regex', async () => {
    const r = await call(makeContext({ 'a.txt': 'a.b\naxb\n' }), 'search_files', { query: 'a.b' });
    expect(r.matches.map((m: { line: number }) => m.line)).toEqual([1]);
  });

  it('limits the search to a folder or a single file', async () => {
    const ctx = makeContext(seed);
    expect((await call(ctx, 'search_files', { query: 'log', path: 'src' })).files_matched).toBe(1);
    const one = await call(ctx, 'search_files', { query: 'function', path: 'src/auth.ts' });
    expect(one.total_matches).toBe(2);
    expect((await call(ctx, 'search_files', { query: 'const', path: 'src/auth.ts' })).total_matches).toBe(0);
  });

  it('says when nothing matches', async () => {
    const r = await call(makeContext(seed), 'search_files', { query: 'nowhere' });
    expect(r.total_matches).toBe(0);
    expect(r.note).toMatch(/No file contains "nowhere"/);
  });

  it('caps matches and clips long lines around the hit', async () => {
    const many = Array.from({ length: MAX_MATCHES + 10 }, () => 'hit').join('\n');
    const r = await call(makeContext({ 'a.txt': many, 'min.js': `${'x'.repeat(500)}NEEDLE${'y'.repeat(500)}` }), 'search_files', { query: 'hit' });
    expect(r.matches).toHaveLength(MAX_MATCHES);
    expect(r.total_matches).toBe(MAX_MATCHES + 10);
    expect(r.note).toMatch(/Showing 100 of 110/);
    const clipped = (await call(makeContext({ 'min.js': `${'x'.repeat(500)}NEEDLE${'y'.repeat(500)}` }), 'search_files', { query: 'needle' })).matches[0].text;
    expect(clipped).toContain('NEEDLE');
    expect(clipped.length).toBeLessThanOrEqual(202);
  });

  it('skips binary files', async () => {
    const ctx = makeContext();
    await ctx.workspace.write('b.bin', btoa('\xffneedle'), 'base64');
    expect((await call(ctx, 'search_files', { query: 'needle' })).total_matches).toBe(0);
  });

  it('refuses an empty query, a missing path and escapes', async () => {
    const ctx = makeContext(seed);
    await expect(call(ctx, 'search_files', { query: '  ' })).rejects.toThrow(/query is empty/);
    await expect(call(ctx, 'search_files', { query: 'x', path: 'lib' })).rejects.toThrow(/"lib" does not exist/);
    await expect(call(ctx, 'search_files', { query: 'x', path: '../' })).rejects.toThrow(/escapes/);
  });
});
