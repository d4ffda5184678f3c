import { describe, expect, it } from 'vitest';
import { call, makeContext } from '../testing.ts';
import { DEFAULT_LIMIT } from './read_file.ts';

const ten = `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

describe('read_file', () => {
  it('returns numbered lines and the total line count', async () => {
    const r = await call(makeContext({ 'a.txt': 'alpha\nbeta\n' }), 'read_file', { path: './a.txt' });
    expect(r).toEqual({ path: 'a.txt', total_lines: 2, from_line: 1, to_line: 2, content: '1\talpha\n2\tbeta' });
  });

  it('pages with offset and limit and says where to continue', async () => {
    const r = await call(makeContext({ 'a.txt': ten }), 'read_file', { path: 'a.txt', offset: 4, limit: 3 });
    expect(r.content).toBe('4\tline 4\n5\tline 5\n6\tline 6');
    expect(r).toMatchObject({ total_lines: 10, from_line: 4, to_line: 6, truncated: true, next_offset: 7 });
    expect(r.note).toMatch(/offset 7/);
  });

  it('treats offset 0 as the first line', async () => {
    const r = await call(makeContext({ 'a.txt': ten }), 'read_file', { path: 'a.txt', offset: 0, limit: 1 });
    expect(r.content).toBe('1\tline 1');
  });

  it('reads the tail without a truncation flag', async () => {
    const r = await call(makeContext({ 'a.txt': ten }), 'read_file', { path: 'a.txt', offset: 9 });
    expect(r.content).toBe('9\tline 9\n10\tline 10');
    expect(r.truncated).toBeUndefined();
  });

  it('refuses an offset past the end, naming the line count', async () => {
    await expect(call(makeContext({ 'a.txt': ten }), 'read_file', { path: 'a.txt', offset: 11 })).rejects.toThrow(/has 10 lines.*between 1 and 10/);
  });

  it('caps the returned bytes at max_size on a line boundary', async () => {
    // "line 1".."line 3" are 6 bytes each, joined by newlines: 6 + 7 + 7 = 20 bytes.
    const r = await call(makeContext({ 'a.txt': ten }), 'read_file', { path: 'a.txt', max_size: 20 });
    expect(r.content).toBe('1\tline 1\n2\tline 2\n3\tline 3');
    expect(r).toMatchObject({ truncated: true, next_offset: 4 });
    expect(r.note).toMatch(/max_size reached/);
  });

  it('counts max_size in UTF-8 bytes, not characters', async () => {
    const r = await call(makeContext({ 'a.txt': 'ééé\nx\n' }), 'read_file', { path: 'a.txt', max_size: 7 });
    expect(r.content).toBe('1\tééé'); // 6 bytes; the newline and "x" would make 8
  });

  it('shows part of a single line longer than max_size so reading can progress', async () => {
    const r = await call(makeContext({ 'a.txt': `${'x'.repeat(100)}\nnext\n` }), 'read_file', { path: 'a.txt', max_size: 10 });
    expect(r.content).toBe(`1\t${'x'.repeat(10)}`);
    expect(r).toMatchObject({ truncated: true, next_offset: 2 });
    expect(r.note).toMatch(/Line 1 is longer than max_size/);
  });

  it('applies a default line limit', async () => {
    const big = Array.from({ length: DEFAULT_LIMIT + 5 }, () => 'x').join('\n');
    const r = await call(makeContext({ 'a.txt': big }), 'read_file', { path: 'a.txt' });
    expect(r.to_line).toBe(DEFAULT_LIMIT);
    expect(r.next_offset).toBe(DEFAULT_LIMIT + 1);
  });

  it('shows CRLF files as clean lines', async () => {
    const r = await call(makeContext({ 'a.txt': 'a\r\nb\r\n' }), 'read_file', { path: 'a.txt' });
    expect(r.content).toBe('1\ta\n2\tb');
    expect(r.total_lines).toBe(2);
  });

  it('reports an empty file', async () => {
    const r = await call(makeContext({ 'a.txt': '' }), 'read_file', { path: 'a.txt' });
    expect(r).toMatchObject({ total_lines: 0, content: '' });
  });

  it('returns raw bytes as base64', async () => {
    const r = await call(makeContext({ 'a.txt': 'héllo' }), 'read_file', { path: 'a.txt', encoding: 'base64' });
    expect(r).toMatchObject({ encoding: 'base64', size: 6 });
    expect(r.content).toBe(btoa(String.fromCharCode(...new TextEncoder().encode('héllo'))));
  });

  it('caps base64 output at max_size bytes', async () => {
    const r = await call(makeContext({ 'a.txt': 'abcdef' }), 'read_file', { path: 'a.txt', encoding: 'base64', max_size: 3 });
    expect(atob(r.content)).toBe('abc');
    expect(r).toMatchObject({ truncated: true, size: 6 });
  });

  it('refuses line paging with base64', async () => {
    await expect(call(makeContext({ 'a.txt': 'x' }), 'read_file', { path: 'a.txt', encoding: 'base64', limit: 5 })).rejects.toThrow(
      /do not apply to encoding "base64"/,
    );
  });

  it('sends binary files to base64', async () => {
    const ctx = makeContext();
    await ctx.workspace.write('img.bin', btoa('\xff\xfe\x00'), 'base64');
    await expect(call(ctx, 'read_file', { path: 'img.bin' })).rejects.toThrow(/binary file \(3 bytes\).*encoding "base64"/);
  });

  it('decodes a base64-stored file that is UTF-8 text', async () => {
    const ctx = makeContext();
    await ctx.workspace.write('t.txt', btoa('one\ntwo'), 'base64');
    expect((await call(ctx, 'read_file', { path: 't.txt' })).content).toBe('1\tone\n2\ttwo');
  });

  it('explains a missing file with the nearest listing, and a folder', async () => {
    const ctx = makeContext({ 'src/a.ts': '' });
    await expect(call(ctx, 'read_file', { path: 'src/b.ts' })).rejects.toThrow(/"src\/b.ts" does not exist\. Entries of "src": a\.ts/);
    await expect(call(ctx, 'read_file', { path: 'src' })).rejects.toThrow(/is a folder.*list_files/);
  });

  it('refuses escapes and absolute paths', async () => {
    const ctx = makeContext({ 'a.txt': 'x' });
    await expect(call(ctx, 'read_file', { path: '../a.txt' })).rejects.toThrow(/escapes/);
    await expect(call(ctx, 'read_file', { path: '/a.txt' })).rejects.toThrow(/Absolute.*Use "a.txt"/);
  });
});
