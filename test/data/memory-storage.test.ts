// The in-memory store (tests, fallback) under the same storage contract as PGlite and Supabase: the
// reference the SQL stores are held to, so it has to pass it too.
import { describe, it } from 'vitest';
import { createMemoryStorage } from '../../src/store/memory.ts';
import {
  checkApprovals,
  checkLosslessText,
  checkMeters,
  checkRequestStop,
  checkSeed,
  checkStorageContract,
  checkTurnEvents,
  SEED,
} from './storage-contract.ts';
import { checkApprovalDesk } from './approval-contract.ts';

describe('in-memory storage', () => {
  it('has the storage contract semantics', async () => {
    await checkStorageContract(createMemoryStorage(), { a: 'user-a', b: 'user-b' });
  });

  it('also for the local user (null)', async () => {
    await checkStorageContract(createMemoryStorage(), { a: null, b: 'user-c' });
  });

  it('seeds new sessions', async () => {
    await checkSeed(createMemoryStorage(SEED), 'user-seed');
  });

  it('gives back every text exactly: NUL, lone surrogates, the escape character, emoji', async () => {
    await checkLosslessText(createMemoryStorage(), 'user-lossless');
    await checkLosslessText(createMemoryStorage(), null);
  });

  it("keeps each turn's event log: replay from any seq, idempotent appends, any text, another turn's rows apart", async () => {
    await checkTurnEvents(createMemoryStorage(), 'user-log');
    await checkTurnEvents(createMemoryStorage(), null);
  });

  it('records a stop asked for a running turn, and only for a running one', async () => {
    await checkRequestStop(createMemoryStorage(), 'user-stop');
  });

  it('pauses a turn for approval, decides once before expiry, expires and resumes once', async () => {
    await checkApprovals(createMemoryStorage(), { a: 'user-a', b: 'user-b' });
    await checkApprovals(createMemoryStorage(), { a: null, b: 'user-b' });
  });

  it('the approval desk decides once, refuses what does not wait (410 past expiry, even once ended), matches and decides a useChat batch whole, expires and goes on once (approval-contract.ts)', async () => {
    await checkApprovalDesk(createMemoryStorage(), { a: 'user-a', b: 'user-b' });
    await checkApprovalDesk(createMemoryStorage(), { a: null, b: 'user-b' });
  });

  it("counts the gateway's limits: up to the limit of racing requests, per subject and kind, tokens after the answer", async () => {
    const storage = createMemoryStorage();
    await checkMeters([storage, storage]);
  });
});
