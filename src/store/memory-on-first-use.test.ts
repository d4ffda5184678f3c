import { describe, expect, it } from 'vitest';
import { checkApprovalDesk } from '../../test/data/approval-contract.ts';
import {
  checkApprovals,
  checkCloseInterrupted,
  checkLosslessText,
  checkMeters,
  checkRequestStop,
  checkRunningTurn,
  checkStorageContract,
  checkTurnEvents,
} from '../../test/data/storage-contract.ts';
import { memoryStorageOnFirstUse } from './memory-on-first-use.ts';
import { SessionForbiddenError } from './types.ts';

describe('the memory storage loaded on first use (src/entries/edge.ts)', () => {
  it('keeps the storage contract, each check on a store that has not loaded yet', async () => {
    await checkStorageContract(memoryStorageOnFirstUse(), { a: 'user-a', b: 'user-b' });
    await checkStorageContract(memoryStorageOnFirstUse(), { a: null, b: 'user-c' });
    await checkRunningTurn(memoryStorageOnFirstUse(), null);
    await checkLosslessText(memoryStorageOnFirstUse(), 'user-lossless');
    await checkTurnEvents(memoryStorageOnFirstUse(), 'user-log');
    await checkRequestStop(memoryStorageOnFirstUse(), 'user-stop');
    await checkCloseInterrupted(memoryStorageOnFirstUse(), null);
    await checkApprovals(memoryStorageOnFirstUse(), { a: 'user-a', b: 'user-b' });
    await checkApprovalDesk(memoryStorageOnFirstUse(), { a: 'user-a', b: 'user-b' });
    const metered = memoryStorageOnFirstUse();
    await checkMeters([metered, metered]);
  });

  it('answers calls made at once, before the module is in, from one store', async () => {
    const storage = memoryStorageOnFirstUse();
    const scope = { userId: 'u1', sessionId: 's1', turnId: 't1' };
    const [id, , files] = await Promise.all([
      storage.sessions.ensureSession('u1', 's1'),
      storage.workspace(scope).write('a.txt', 'one'),
      storage.workspace(scope).list(),
    ]);
    expect(id).toBe('s1');
    expect(files.map((f) => f.path)).toEqual(['a.txt']);
    expect(await storage.sessions.getSession('s1')).toEqual({ id: 's1', userId: 'u1' });
    expect((await storage.workspace({ ...scope, turnId: 't2' }).read('a.txt'))?.content).toBe('one');
    expect(await storage.workspace({ ...scope, userId: 'u2' }).read('a.txt')).toBeNull();
  });

  it("rejects with the memory store's own errors", async () => {
    const storage = memoryStorageOnFirstUse();
    await expect(storage.sessions.closeInterrupted({ claimedBefore: 'yesterday' })).rejects.toThrow(/claimedBefore must be an ISO timestamp/);
    await storage.sessions.ensureSession('u1', 's1');
    await expect(storage.sessions.ensureSession('u2', 's1')).rejects.toBeInstanceOf(SessionForbiddenError);
  });
});
