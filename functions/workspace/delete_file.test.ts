import { describe, expect, it } from 'vitest';
import { takeDiffs } from '../../src/tools/diffs.ts';
import { call, makeContext } from '../testing.ts';

describe('delete_file', () => {
  it('deletes one file and has no next action when nothing refers to it', async () => {
    const ctx = makeContext({ 'a.txt': 'x', 'b.txt': 'y' });
    const r = await call(ctx, 'delete_file', { path: './a.txt' });
    expect(takeDiffs(r)).toEqual({
      result: { path: 'a.txt', deleted: ['a.txt'] },
      diffs: [{ path: 'a.txt', change: 'deleted', added: 0, removed: 1, hunks: '@@ -1 +0,0 @@\n-x' }],
    });
    expect((await ctx.workspace.list()).map((f) => f.path)).toEqual(['b.txt']);
  });

  it('deletes a folder with everything below it, and nothing beside it', async () => {
    const ctx = makeContext({ 'lib/a.ts': '', 'lib/deep/b.ts': '', 'libx.ts': '', 'main.ts': '' });
    const r = await call(ctx, 'delete_file', { path: 'lib' });
    expect(r).toMatchObject({ path: 'lib', count: 2, deleted: ['lib/a.ts', 'lib/deep/b.ts'] });
    expect((await ctx.workspace.list()).map((f) => f.path)).toEqual(['libx.ts', 'main.ts']);
  });

  it('chains a next action when other files still import the deleted file', async () => {
    const ctx = makeContext({
      'src/util.ts': 'export const x = 1;',
      'src/main.ts': "import { x } from './util.ts';\nconsole.log(x);\n",
      'src/other.ts': "const s = 'util';\n",
    });
    const r = await call(ctx, 'delete_file', { path: 'src/util.ts' });
    expect(r.references).toEqual([{ path: 'src/main.ts', line: 1, text: "import { x } from './util.ts';" }]);
    expect(r._next_action.instruction).toMatch(/1 place\(s\) still refer to the deleted file "src\/util.ts" \(src\/main.ts:1\)/);
  });

  it('chains a next action for a deleted folder that is still imported', async () => {
    const ctx = makeContext({ 'src/lib/a.ts': '', 'src/main.ts': 'import "./lib/a";\n' });
    const r = await call(ctx, 'delete_file', { path: 'src/lib' });
    expect(r._next_action.instruction).toMatch(/deleted folder "src\/lib" \(src\/main.ts:1\)/);
  });

  it('explains a missing path and refuses the root and escapes', async () => {
    const ctx = makeContext({ 'src/a.ts': '' });
    await expect(call(ctx, 'delete_file', { path: 'src/b.ts' })).rejects.toThrow(/"src\/b.ts" does not exist.*Entries of "src": a\.ts/);
    await expect(call(ctx, 'delete_file', { path: '.' })).rejects.toThrow(/whole workspace is refused/);
    await expect(call(ctx, 'delete_file', { path: '../src/a.ts' })).rejects.toThrow(/escapes/);
    expect(await ctx.workspace.read('src/a.ts')).not.toBeNull();
  });
});
