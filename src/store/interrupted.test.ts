import { describe, expect, it, vi } from 'vitest';
import { checkCloseInterrupted } from '../../test/data/storage-contract.ts';
import { closeAllRunning, closeStaleTurns, INTERRUPT_MARGIN_MS, INTERRUPTED_NOTE, staleBefore } from './interrupted.ts';
import { createMemoryStorage } from './memory.ts';
import type { SessionStore } from './types.ts';

describe('closing interrupted turns', () => {
  it('the memory store keeps the storage contract', async () => {
    await checkCloseInterrupted(createMemoryStorage(), null);
  });

  it('a turn is stale once it has run its budget plus the margin', () => {
    const now = Date.parse('2026-01-01T00:10:00.000Z');
    expect(staleBefore(120_000, now)).toBe(new Date(now - 120_000 - INTERRUPT_MARGIN_MS).toISOString());
    expect(Date.parse(staleBefore(120_000, now))).toBeLessThan(now - 120_000);
  });

  it('the sweep on turn creation spares live turns, and a failing store does not fail the turn', async () => {
    const storage = createMemoryStorage();
    const { sessions } = storage;
    const sessionId = await sessions.ensureSession(null);
    const turn = await sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId: null, message: 'live' });
    await sessions.claimTurn(turn.id);
    expect(await closeStaleTurns(sessions, { timeBudgetMs: 120_000, sessionId })).toEqual([]);
    expect((await sessions.getTurn(turn.id))?.status).toBe('running');

    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken = { ...sessions, closeInterrupted: async () => Promise.reject(new Error('database down')) } as unknown as SessionStore;
    expect(await closeStaleTurns(broken, { timeBudgetMs: 120_000 })).toEqual([]);
    expect(error).toHaveBeenCalledWith('rebound: could not close interrupted turns', expect.any(Error));
    error.mockRestore();
  });

  it('start-up closes every running turn, however many, and leaves pending ones', async () => {
    const { sessions } = createMemoryStorage();
    const sessionId = await sessions.ensureSession(null);
    const ids: string[] = [];
    for (let i = 0; i < 1_203; i++) {
      const turn = await sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId: null, message: `m${i}` });
      if (i % 100 !== 0) {
        await sessions.claimTurn(turn.id);
        ids.push(turn.id);
      }
    }
    const closed = await closeAllRunning(sessions, new Date(Date.now() + 1));
    expect(closed.map((t) => t.id).sort()).toEqual([...ids].sort());
    const history = await sessions.history(sessionId);
    expect(history).toHaveLength(ids.length * 2);
    expect(history.filter((m) => m.role === 'assistant').every((m) => m.content === INTERRUPTED_NOTE)).toBe(true);
    expect(await closeAllRunning(sessions)).toEqual([]);
  });

  it('refuses a cutoff that is not a timestamp', async () => {
    await expect(createMemoryStorage().sessions.closeInterrupted({ claimedBefore: 'yesterday' })).rejects.toThrow(/claimedBefore must be an ISO timestamp/);
  });
});
