// Every tool the model can call. Families live in their own modules; this list is what the app registers.
import type { Tool } from '../src/tools/types.ts';
import { memoryTools } from './memory.ts';
import { workspaceTools } from './workspace/index.ts';

export * from './workspace/index.ts';
export { memoryTools, recallMemories, saveMemory } from './memory.ts';

/** A fresh list, so a caller can add or remove tools without touching the shared default. */
export function createTools(): Tool[] {
  return [...workspaceTools, ...memoryTools];
}

export const defaultTools: Tool[] = createTools();
