import { describe, expect, it } from 'vitest';
import { takeDiffs } from '../../src/tools/diffs.ts';
import { call, makeContext } from '../testing.ts';

const b64 = (bytes: number[]) => btoa(String.fromCharCode(...bytes));

describe('write_file', () => {
  it('creates a file at a normalised path and reports it', async () => {
    const ctx = makeContext();
    const r = await call(ctx, 'write_file', { path: '.\\src//new.ts', content: 'a\nb\n' });
    // What the model reads, and beside it the diff for the page (the loop takes it off: src/loop/execute.ts).
    expect(takeDiffs(r)).toEqual({
      result: { path: 'src/new.ts', action: 'created', size: 4, encoding: 'utf-8', total_lines: 2 },
      diffs: [{ path: 'src/new.ts', change: 'created', added: 2, removed: 0, hunks: '@@ -0,0 +1,2 @@\n+a\n+b' }],
    });
    expect((await ctx.workspace.read('src/new.ts'))?.content).toBe('a\nb\n');
  });

  it('diffs an overwrite against the old content', async () => {
    const ctx = makeContext({ 'a.txt': 'one\ntwo\n' });
    const r = await call(ctx, 'write_file', { path: 'a.txt', content: 'one\n2\n' });
    expect(takeDiffs(r).diffs).toEqual([{ path: 'a.txt', change: 'modified', added: 1, removed: 1, hunks: '@@ -1,2 +1,2 @@\n one\n-two\n+2' }]);
  });

  it('overwrites by default', async () => {
    const ctx = makeContext({ 'a.txt': 'old' });
    const r = await call(ctx, 'write_file', { path: 'a.txt', content: 'new' });
    expect(r.action).toBe('overwritten');
    expect((await ctx.workspace.read('a.txt'))?.content).toBe('new');
  });

  it('refuses to replace an existing file when overwrite is false, and leaves it alone', async () => {
    const ctx = makeContext({ 'a.txt': 'old' });
    await expect(call(ctx, 'write_file', { path: 'a.txt', content: 'new', overwrite: false })).rejects.toThrow(
      /"a.txt" already exists\. Pass overwrite: true.*append: true.*patch_file/,
    );
    expect((await ctx.workspace.read('a.txt'))?.content).toBe('old');
  });

  it('creates a new file when overwrite is false', async () => {
    const ctx = makeContext();
    expect((await call(ctx, 'write_file', { path: 'a.txt', content: 'x', overwrite: false })).action).toBe('created');
  });

  it('appends to the end of an existing file', async () => {
    const ctx = makeContext({ 'log.txt': 'one\n' });
    const r = await call(ctx, 'write_file', { path: 'log.txt', content: 'two\n', append: true });
    expect(r).toMatchObject({ action: 'appended', total_lines: 2 });
    expect((await ctx.workspace.read('log.txt'))?.content).toBe('one\ntwo\n');
  });

  it('appends even with overwrite false, and creates a missing file', async () => {
    const ctx = makeContext({ 'log.txt': 'one\n' });
    await call(ctx, 'write_file', { path: 'log.txt', content: 'two\n', append: true, overwrite: false });
    expect((await ctx.workspace.read('log.txt'))?.content).toBe('one\ntwo\n');
    expect((await call(ctx, 'write_file', { path: 'fresh.txt', content: 'x', append: true })).action).toBe('created');
  });

  it('converts line ends to CRLF and back to LF', async () => {
    const ctx = makeContext();
    await call(ctx, 'write_file', { path: 'w.txt', content: 'a\nb\r\nc\n', line_end: 'crlf' });
    expect((await ctx.workspace.read('w.txt'))?.content).toBe('a\r\nb\r\nc\r\n');
    await call(ctx, 'write_file', { path: 'w.txt', content: 'a\r\nb\r\n', line_end: 'lf' });
    expect((await ctx.workspace.read('w.txt'))?.content).toBe('a\nb\n');
  });

  it('keeps a CRLF file CRLF when appending without line_end', async () => {
    const ctx = makeContext({ 'w.txt': 'a\r\n' });
    await call(ctx, 'write_file', { path: 'w.txt', content: 'b\nc\n', append: true });
    expect((await ctx.workspace.read('w.txt'))?.content).toBe('a\r\nb\r\nc\r\n');
  });

  it('round-trips binary content through base64', async () => {
    const ctx = makeContext();
    const bytes = [0, 255, 128, 10, 13, 42];
    const w = await call(ctx, 'write_file', { path: 'bin/x.dat', content: b64(bytes), encoding: 'base64' });
    expect(w).toMatchObject({ action: 'created', size: 6, encoding: 'base64' });
    expect(w.total_lines).toBeUndefined();
    const r = await call(ctx, 'read_file', { path: 'bin/x.dat', encoding: 'base64' });
    expect([...atob(r.content)].map((c) => c.charCodeAt(0))).toEqual(bytes);
  });

  it('accepts unpadded and base64url input, and stores canonical base64', async () => {
    const ctx = makeContext();
    await call(ctx, 'write_file', { path: 'x', content: '-_8', encoding: 'base64' }); // bytes fb ff
    expect((await ctx.workspace.read('x'))?.content).toBe('+/8=');
  });

  it('appends base64 bytes to a text file', async () => {
    const ctx = makeContext({ 'a.txt': 'hi' });
    await call(ctx, 'write_file', { path: 'a.txt', content: btoa('!!'), encoding: 'base64', append: true });
    const r = await call(ctx, 'read_file', { path: 'a.txt' });
    expect(r.content).toBe('1\thi!!');
  });

  it('appends text to a base64 file', async () => {
    const ctx = makeContext();
    await ctx.workspace.write('a.bin', btoa('ab'), 'base64');
    await call(ctx, 'write_file', { path: 'a.bin', content: 'cd', append: true });
    expect(atob((await ctx.workspace.read('a.bin'))?.content ?? '')).toBe('abcd');
  });

  it('refuses invalid base64 and line_end with base64', async () => {
    const ctx = makeContext();
    await expect(call(ctx, 'write_file', { path: 'x', content: 'not base64!', encoding: 'base64' })).rejects.toThrow(/not valid base64/);
    await expect(call(ctx, 'write_file', { path: 'x', content: 'YQ==', encoding: 'base64', line_end: 'crlf' })).rejects.toThrow(
      /line_end.*cannot be used with encoding "base64"/,
    );
    expect(await ctx.workspace.read('x')).toBeNull();
  });

  it('refuses to write over a folder or below a file', async () => {
    const ctx = makeContext({ 'src/a.ts': '', 'notes.txt': '' });
    await expect(call(ctx, 'write_file', { path: 'src', content: 'x' })).rejects.toThrow(/"src" is a folder/);
    await expect(call(ctx, 'write_file', { path: 'notes.txt/b.txt', content: 'x' })).rejects.toThrow(/"notes.txt" is a file, not a folder/);
  });

  it('refuses escapes and absolute paths without writing', async () => {
    const ctx = makeContext();
    await expect(call(ctx, 'write_file', { path: 'a/../../x', content: 'x' })).rejects.toThrow(/escapes/);
    await expect(call(ctx, 'write_file', { path: '/etc/x', content: 'x' })).rejects.toThrow(/Absolute/);
    expect(await ctx.workspace.list()).toEqual([]);
  });
});
