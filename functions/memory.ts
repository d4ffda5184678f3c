// Long-lived notes the model keeps across sessions of the same user (facts, preferences, decisions).
import * as z from 'zod';
import { defineTool } from '../src/tools/define.ts';
import type { Memory, MemoryStore } from '../src/store/types.ts';
import type { Tool } from '../src/tools/types.ts';

export const DEFAULT_MEMORY_TYPE = 'note';
const MAX_CONTENT = 4000;

export const saveMemory = defineTool({
  name: 'save_memory',
  description: 'Remember a fact, preference or decision for later sessions. One self-contained statement per call.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  schema: z.object({
    content: z.string().describe('What to remember, as a complete sentence.'),
    memory_type: z.string().optional().describe(`A short category such as "preference", "fact", "decision" (default "${DEFAULT_MEMORY_TYPE}").`),
  }),
  async run(args, { memory }) {
    const content = args.content.trim();
    if (content === '') throw new Error('content is empty. Send the fact to remember as a sentence.');
    if (content.length > MAX_CONTENT) {
      throw new Error(`content is ${content.length} characters; the limit is ${MAX_CONTENT}. Save a shorter summary, or several memories.`);
    }
    const type = normaliseType(args.memory_type) ?? DEFAULT_MEMORY_TYPE;
    const saved = await memory.save(type, content);
    return { saved: true, id: saved.id, memory_type: saved.memoryType };
  },
});

export const recallMemories = defineTool({
  name: 'recall_memories',
  description: 'Look up saved memories, newest first. Omit query to get the most recent ones.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  schema: z.object({
    query: z.string().optional().describe('Words to look for in the memories.'),
    memory_type: z.string().optional().describe('Only memories of this category.'),
    limit: z.number().int().min(1).max(50).optional().describe('Maximum number of memories (default 10).'),
  }),
  async run(args, { memory }) {
    const limit = args.limit ?? 10;
    const type = normaliseType(args.memory_type);
    const query = args.query?.trim() || undefined;
    let found = await memory.recall(query, type, limit);
    // The stores match the query as one phrase; a model's query is usually a few keywords.
    if (found.length === 0 && query && /\s/.test(query)) found = await byWords(memory, query, type, limit);
    const result: Record<string, unknown> = {
      count: found.length,
      memories: found.map((m) => ({ id: m.id, memory_type: m.memoryType, content: m.content, created_at: m.createdAt })),
    };
    if (found.length === 0) {
      result.note = query || type ? 'No memory matches. Try fewer or other words, or omit query and memory_type.' : 'No memories saved yet.';
    }
    return result;
  },
});

/** Blank and differently-cased types would split one category into several. */
function normaliseType(type: string | undefined): string | undefined {
  const t = type?.trim().toLowerCase();
  return t ? t : undefined;
}

const RECALL_SCAN = 200;
// Question words would otherwise match nearly every memory.
const STOP_WORDS = new Set('the and for are was were what does did with that this from have has how who which when where about into your you'.split(' '));

async function byWords(memory: MemoryStore, query: string, type: string | undefined, limit: number): Promise<Memory[]> {
  const words = [
    ...new Set(
      query
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => w.length > 2 && !STOP_WORDS.has(w)),
    ),
  ];
  if (words.length === 0) return [];
  const recent = await memory.recall(undefined, type, RECALL_SCAN);
  return recent
    .map((m, order) => ({ m, order, hits: words.filter((w) => m.content.toLowerCase().includes(w)).length }))
    .filter((x) => x.hits > 0)
    .sort((a, b) => b.hits - a.hits || a.order - b.order)
    .slice(0, limit)
    .map((x) => x.m);
}

export const memoryTools: Tool[] = [saveMemory, recallMemories];
