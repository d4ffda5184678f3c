// What a call that waits for a person would change, shown before anyone decides (docs/approval.md § Gate first):
// the tool runs once against an overlay of the workspace, which reads the real files and keeps every
// write and delete to itself, and the diffs it returns are the preview. Only a tool that may change
// something and whose every effect is within the workspace and memory: one of the app's own
// (functions/) that says `openWorldHint: false` (MCP's "closed world"; the built-in file tools do). A
// tool that reaches outside (a payment, an email: open world, MCP's default) is never rehearsed, nor an
// MCP tool, whose effects are elsewhere, nor a read-only one. Memory writes are refused in the rehearsal
// (the tool fails; no preview). Nothing of it reaches the store.
import type { FileDiff } from '../vocabulary.ts';
import type { MemoryStore, WorkspaceFile, WorkspaceStore } from '../store/types.ts';
import type { Tool, ToolContext } from '../tools/types.ts';
import { executeTool } from './execute.ts';

/** The diffs the call would make, or undefined when there are none or it cannot be rehearsed. */
export async function previewDiffs(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: Omit<ToolContext, 'signal' | 'traceHeaders'>,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<FileDiff[] | undefined> {
  if (tool.origin || tool.annotations?.readOnlyHint === true || tool.annotations?.openWorldHint !== false) return undefined;
  const execution = await executeTool(tool, structuredClone(args), { ...ctx, workspace: overlay(ctx.workspace), memory: noMemoryWrites(ctx.memory) }, options);
  return execution.ok && execution.diffs?.length ? execution.diffs : undefined;
}

/** The workspace as the tool sees it, its changes kept in memory. */
function overlay(base: WorkspaceStore): WorkspaceStore {
  const written = new Map<string, WorkspaceFile | null>(); // null: deleted
  return {
    async list() {
      const files = new Map((await base.list()).map((f) => [f.path, f]));
      for (const [path, file] of written) {
        if (file) files.set(path, { path, size: file.content.length, updatedAt: file.updatedAt });
        else files.delete(path);
      }
      return [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
    async read(path) {
      return written.has(path) ? (written.get(path) ?? null) : base.read(path);
    },
    async write(path, content, encoding = 'utf-8') {
      written.set(path, { path, content, encoding, updatedAt: new Date().toISOString() });
    },
    async delete(path) {
      const existed = written.has(path) ? written.get(path) !== null : (await base.read(path)) !== null;
      written.set(path, null);
      return existed;
    },
  };
}

function noMemoryWrites(base: MemoryStore): MemoryStore {
  return {
    save: async () => {
      throw new Error('not saved: a preview');
    },
    recall: (...args) => base.recall(...args),
  };
}
