// The in-memory store (tests, fallback) under the same storage contract as PGlite and Supabase: the
// reference the SQL stores are held to, so it has to pass it too.
import { describe, expect, it } from 'vitest';
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

  it("shares nothing of a row with the caller, as a database: a turn_start's or done's fields copied by hand, other data by structuredClone", async () => {
    const storage = createMemoryStorage();
    const sessionId = await storage.sessions.ensureSession('user-copy');
    const turnId = crypto.randomUUID();
    await storage.sessions.createTurn({ id: turnId, sessionId, userId: 'user-copy', message: 'hi' });
    const done = { reason: 'completed', iterations: 1, usage: { promptTokens: 3, completionTokens: 4 }, note: undefined };
    const odd = { when: new Date(0), list: [1, { a: 2 }], deep: { a: { b: { c: 1 } } } };
    const rows = [
      { turnId, seq: 1, lastSeq: 1, event: 'turn_start' as const, data: { turnId, sessionId, model: 'm', demo: false } },
      { turnId, seq: 2, lastSeq: 2, event: 'tool_result' as const, data: odd },
      { turnId, seq: 3, lastSeq: 3, event: 'done' as const, data: done },
    ];
    await storage.turnEvents.appendEvents(rows);
    done.usage.promptTokens = 99;
    odd.deep.a.b.c = 99;
    const read = await storage.turnEvents.eventsAfter(turnId, 0);
    expect(read).toEqual([
      rows[0],
      { ...rows[1], data: { when: new Date(0), list: [1, { a: 2 }], deep: { a: { b: { c: 1 } } } } },
      { ...rows[2], data: { ...done, usage: { promptTokens: 3, completionTokens: 4 } } },
    ]);
    expect(Object.keys(read[2]!.data as object)).toEqual(['reason', 'iterations', 'usage', 'note']);
    expect((read[1]!.data as typeof odd).when).toBeInstanceOf(Date);
    // What a reader is handed is its own too.
    (read[2]!.data as typeof done).usage.completionTokens = 99;
    expect(((await storage.turnEvents.eventsAfter(turnId, 2))[0]!.data as typeof done).usage.completionTokens).toBe(4);
    expect(read[0]!.data).not.toBe(rows[0]!.data);
  });

  it("counts the gateway's limits: up to the limit of racing requests, per subject and kind, tokens after the answer", async () => {
    const storage = createMemoryStorage();
    await checkMeters([storage, storage]);
  });
});
