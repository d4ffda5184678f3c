// Test helper: a ToolContext over the in-memory storage, and a way to call a tool by name.
import { createMemoryStorage } from '../src/store/memory.ts';
import type { Tool, ToolContext } from '../src/tools/types.ts';
import { defaultTools } from './index.ts';

export function makeContext(seed: Record<string, string> = {}): ToolContext {
  const storage = createMemoryStorage(seed);
  const scope = { userId: 'u1', sessionId: 's1', turnId: 't1' };
  return { scope, workspace: storage.workspace(scope), memory: storage.memory(scope), signal: new AbortController().signal };
}

export function tool(name: string): Tool {
  const found = defaultTools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

/** Calls a tool and returns its result as a plain record (what the loop serialises). */
export async function call(ctx: ToolContext, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  return (await tool(name).run(args, ctx)) as Record<string, any>;
}
