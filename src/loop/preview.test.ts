import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { deleteFile, patchFile, writeFile } from '../../functions/index.ts';
import { createMemoryStorage } from '../store/memory.ts';
import { defineTool } from '../tools/define.ts';
import type { Tool } from '../tools/types.ts';
import { previewDiffs } from './preview.ts';

const scope = { userId: 'u', sessionId: 's', turnId: 't' };
const options = { timeoutMs: 1_000, signal: new AbortController().signal };

function context() {
  const storage = createMemoryStorage({ 'a.txt': 'one\ntwo\n' });
  return { scope, workspace: storage.workspace(scope), memory: storage.memory(scope) };
}

describe('previewDiffs', () => {
  it('shows what a file write, patch or delete would change, and changes nothing', async () => {
    const ctx = context();
    expect(await previewDiffs(writeFile, { path: 'b.txt', content: 'new\n' }, ctx, options)).toEqual([
      { path: 'b.txt', change: 'created', added: 1, removed: 0, hunks: '@@ -0,0 +1 @@\n+new' },
    ]);
    expect(await previewDiffs(patchFile, { path: 'a.txt', search: 'two', replace: '2' }, ctx, options)).toMatchObject([
      { path: 'a.txt', change: 'modified', added: 1, removed: 1 },
    ]);
    expect(await previewDiffs(deleteFile, { path: 'a.txt' }, ctx, options)).toMatchObject([{ path: 'a.txt', change: 'deleted' }]);
    expect((await ctx.workspace.list()).map((f) => f.path)).toEqual(['a.txt']);
    expect((await ctx.workspace.read('a.txt'))?.content).toBe('one\ntwo\n');
  });

  it('never runs a tool that reaches outside (open world, the default), an MCP tool, or a read-only one', async () => {
    let runs = 0;
    const pay = defineTool({
      name: 'pay',
      description: 'pays',
      schema: z.object({ amount: z.number() }),
      annotations: { destructiveHint: true },
      needsApproval: true,
      run: async () => {
        runs++;
        return { paid: true };
      },
    });
    const mcp: Tool = { ...pay, origin: { server: 'crm', tool: 'pay' }, annotations: { openWorldHint: false } };
    const reader: Tool = { ...pay, annotations: { readOnlyHint: true, openWorldHint: false } };
    for (const tool of [pay, mcp, reader]) expect(await previewDiffs(tool, { amount: 5 }, context(), options)).toBeUndefined();
    expect(runs).toBe(0);
  });

  it('a failing rehearsal (a memory write, an error) shows nothing', async () => {
    const remember = defineTool({
      name: 'remember',
      description: 'saves',
      schema: z.object({}),
      annotations: { openWorldHint: false },
      run: async (_args, { memory }) => memory.save('fact', 'x'),
    });
    expect(await previewDiffs(remember, {}, context(), options)).toBeUndefined();
    expect(await previewDiffs(patchFile, { path: 'missing.txt', search: 'a', replace: 'b' }, context(), options)).toBeUndefined();
  });
});
