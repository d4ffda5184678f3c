import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../src/store/memory.ts';
import { call, makeContext } from './testing.ts';

describe('save_memory', () => {
  it('saves trimmed content under a lower-cased type, "note" by default', async () => {
    const ctx = makeContext();
    const a = await call(ctx, 'save_memory', { content: '  User prefers tabs.  ', memory_type: ' Preference ' });
    expect(a).toMatchObject({ saved: true, memory_type: 'preference' });
    expect(typeof a.id).toBe('string');
    expect((await call(ctx, 'save_memory', { content: 'Deploys go to fra1.' })).memory_type).toBe('note');
    const [latest, first] = await ctx.memory.recall();
    expect(first).toMatchObject({ memoryType: 'preference', content: 'User prefers tabs.' });
    expect(latest?.content).toBe('Deploys go to fra1.');
  });

  it('refuses empty and oversized content', async () => {
    const ctx = makeContext();
    await expect(call(ctx, 'save_memory', { content: '   ' })).rejects.toThrow(/content is empty/);
    await expect(call(ctx, 'save_memory', { content: 'x'.repeat(4001) })).rejects.toThrow(/4001 characters; the limit is 4000/);
    expect(await ctx.memory.recall()).toEqual([]);
  });
});

describe('recall_memories', () => {
  async function seeded() {
    const ctx = makeContext();
    await call(ctx, 'save_memory', { content: 'User prefers tabs over spaces', memory_type: 'preference' });
    await call(ctx, 'save_memory', { content: 'The API runs on Cloudflare Workers', memory_type: 'fact' });
    await call(ctx, 'save_memory', { content: 'User prefers dark mode', memory_type: 'preference' });
    return ctx;
  }

  it('returns the newest first, limited', async () => {
    const r = await call(await seeded(), 'recall_memories', { limit: 2 });
    expect(r.count).toBe(2);
    expect(r.memories.map((m: { content: string }) => m.content)).toEqual(['User prefers dark mode', 'The API runs on Cloudflare Workers']);
    expect(Object.keys(r.memories[0]).sort()).toEqual(['content', 'created_at', 'id', 'memory_type']);
  });

  it('filters by query and by type', async () => {
    const ctx = await seeded();
    expect((await call(ctx, 'recall_memories', { query: 'cloudflare' })).memories.map((m: { memory_type: string }) => m.memory_type)).toEqual(['fact']);
    expect((await call(ctx, 'recall_memories', { memory_type: 'Preference' })).count).toBe(2);
  });

  it('falls back to keywords when the query as a phrase finds nothing, best match first', async () => {
    const r = await call(await seeded(), 'recall_memories', { query: 'what editor spaces does the user prefer' });
    expect(r.memories.map((m: { content: string }) => m.content)).toEqual(['User prefers tabs over spaces', 'User prefers dark mode']);
  });

  it('says when nothing matches, and when nothing is saved', async () => {
    expect((await call(await seeded(), 'recall_memories', { query: 'kubernetes' })).note).toMatch(/No memory matches/);
    expect((await call(makeContext(), 'recall_memories', {})).note).toMatch(/No memories saved yet/);
  });

  it('refuses a limit out of range', async () => {
    await expect(call(makeContext(), 'recall_memories', { limit: 0 })).rejects.toThrow();
    await expect(call(makeContext(), 'recall_memories', { limit: 51 })).rejects.toThrow();
  });

  it('keeps memories per user', async () => {
    const storage = createMemoryStorage();
    const ctxFor = (userId: string) => {
      const scope = { userId, sessionId: 's', turnId: 't' };
      return { scope, workspace: storage.workspace(scope), memory: storage.memory(scope), signal: new AbortController().signal };
    };
    await call(ctxFor('alice'), 'save_memory', { content: 'alice secret' });
    expect((await call(ctxFor('bob'), 'recall_memories', {})).count).toBe(0);
  });
});
