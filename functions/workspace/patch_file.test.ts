import { describe, expect, it } from 'vitest';
import { call, makeContext } from '../testing.ts';

const src = 'function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n';

describe('patch_file', () => {
  it('replaces text that matches exactly once and reports where', async () => {
    const ctx = makeContext({ 'm.js': src });
    const r = await call(ctx, 'patch_file', { path: 'm.js', search: '  return a - b;', replace: '  return a - b;\n  // checked' });
    expect(r).toMatchObject({ path: 'm.js', line: 6, removed_lines: 1, added_lines: 2, total_lines: 8 });
    expect(r.preview).toContain('7\t  // checked');
    expect(r._diffs).toEqual([
      { path: 'm.js', change: 'modified', added: 1, removed: 0, hunks: '@@ -4,4 +4,5 @@\n \n function sub(a, b) {\n   return a - b;\n+  // checked\n }' },
    ]);
    expect((await ctx.workspace.read('m.js'))?.content).toBe(src.replace('  return a - b;', '  return a - b;\n  // checked'));
  });

  it('refuses two matches, saying how many and where, and changes nothing', async () => {
    const ctx = makeContext({ 'm.js': src });
    await expect(call(ctx, 'patch_file', { path: 'm.js', search: '(a, b) {', replace: '(x) {' })).rejects.toThrow(
      /matched 2 times in "m.js" \(at lines 1, 5\); it must match exactly once\. Include more surrounding lines/,
    );
    expect((await ctx.workspace.read('m.js'))?.content).toBe(src);
  });

  it('counts overlapping matches as ambiguous', async () => {
    const ctx = makeContext({ 'a.txt': 'aaa' });
    await expect(call(ctx, 'patch_file', { path: 'a.txt', search: 'aa', replace: 'b' })).rejects.toThrow(/matched 2 times/);
  });

  it('refuses zero matches and names the closest line', async () => {
    const ctx = makeContext({ 'm.js': src });
    await expect(call(ctx, 'patch_file', { path: 'm.js', search: 'return a * b;', replace: 'x' })).rejects.toThrow(
      /search text not found in "m.js"\. The closest line is 2: "return a \+ b;"/,
    );
    expect((await ctx.workspace.read('m.js'))?.content).toBe(src);
  });

  it('points at a whitespace-only difference', async () => {
    const ctx = makeContext({ 'm.js': src });
    await expect(call(ctx, 'patch_file', { path: 'm.js', search: 'function sub(a, b) {\n    return a - b;', replace: 'x' })).rejects.toThrow(
      /matches at line 5 if whitespace is ignored/,
    );
  });

  it('recognises line numbers copied from read_file', async () => {
    const ctx = makeContext({ 'm.js': src });
    await expect(call(ctx, 'patch_file', { path: 'm.js', search: '2\t  return a + b;\n3\t}', replace: 'x' })).rejects.toThrow(/line numbers/);
  });

  it('says when nothing resembles the search text', async () => {
    const ctx = makeContext({ 'm.js': src });
    await expect(call(ctx, 'patch_file', { path: 'm.js', search: 'zzzzqqqqwwww', replace: 'x' })).rejects.toThrow(/Nothing in the file resembles/);
  });

  it('matches LF search text in a CRLF file and keeps CRLF', async () => {
    const ctx = makeContext({ 'w.txt': 'a\r\nb\r\nc\r\n' });
    await call(ctx, 'patch_file', { path: 'w.txt', search: 'a\nb', replace: 'A\nB\nB2' });
    expect((await ctx.workspace.read('w.txt'))?.content).toBe('A\r\nB\r\nB2\r\nc\r\n');
  });

  it('refuses an empty search, a missing file, binary files and escapes', async () => {
    const ctx = makeContext({ 'm.js': src });
    await ctx.workspace.write('b.bin', btoa('\xff\x00'), 'base64');
    await expect(call(ctx, 'patch_file', { path: 'm.js', search: '', replace: 'x' })).rejects.toThrow(/search is empty/);
    await expect(call(ctx, 'patch_file', { path: 'n.js', search: 'a', replace: 'x' })).rejects.toThrow(/"n.js" does not exist/);
    await expect(call(ctx, 'patch_file', { path: 'b.bin', search: 'a', replace: 'x' })).rejects.toThrow(/binary/);
    await expect(call(ctx, 'patch_file', { path: '../m.js', search: 'a', replace: 'x' })).rejects.toThrow(/escapes/);
  });
});
