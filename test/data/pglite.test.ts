// The embedded mode: the same migrations and dashboard SQL on PGlite, the storage contract, the PGlite
// sink through the batching writer.
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivityWriter } from '../../src/activity/writer.ts';
import { createPgliteSink } from '../../src/activity/sinks/pglite.ts';
import { createPgliteDashboard } from '../../src/dashboard/pglite.ts';
import { readDashboardSql, readMigrations } from '../../src/entries/sql-files.ts';
import { createPgliteStorage, openPglite } from '../../src/store/pglite.ts';
import { applyMigrations } from '../../src/store/sql-migrate.ts';
import { MAX_ROW_TEXT } from '../../src/store/turn-events.ts';
import { checkLosslessActivity, checkPoisonRow, type ActivityDb } from './activity-checks.ts';
import { checkDashboardAll, checkDashboardUserA, checkViews } from './dashboard-checks.ts';
import { activityRows, turnRows } from './fixture.ts';
import {
  checkApprovals,
  checkCloseInterrupted,
  checkLosslessText,
  checkMeters,
  checkRequestStop,
  checkSeed,
  checkStorageContract,
  checkTurnEvents,
  SEED,
  TABLES,
} from './storage-contract.ts';
import { checkApprovalDesk } from './approval-contract.ts';

let db: PGlite;

beforeAll(async () => {
  db = await openPglite(undefined, readMigrations());
});
afterAll(async () => {
  await db?.close();
});

describe('migrations on PGlite', () => {
  it('applied every file once, and a second run applies nothing', async () => {
    const { rows } = await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations order by version');
    expect(rows.map((r) => r.version)).toEqual(readMigrations().map((m) => m.name.split('_')[0]));
    expect(await applyMigrations(db, readMigrations(), { bootstrap: true })).toEqual([]);
  });

  it('ships dashboard.sql verbatim as the newest dashboard migration', () => {
    const newest = readMigrations()
      .filter((m) => m.name.endsWith('_dashboard.sql'))
      .at(-1);
    expect(newest?.sql).toBe(readDashboardSql());
  });

  it('enables RLS on every table', async () => {
    const { rows } = await db.query<{ relname: string; relrowsecurity: boolean }>(
      `select relname, relrowsecurity from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r' order by relname`,
    );
    expect(rows).toEqual(
      TABLES.map((relname) => ({
        relname,
        relrowsecurity: true,
      })),
    );
  });

  it('persists in a data folder and reopens without re-applying', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'rebound-pglite-'));
    try {
      const first = await openPglite(dir, readMigrations());
      await createPgliteStorage(first).sessions.ensureSession(null, 'kept');
      await first.close();
      const again = await openPglite(dir, readMigrations());
      expect((await again.query('select id from agent_sessions')).rows).toEqual([{ id: 'kept' }]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('PGlite storage', () => {
  it('has the memory store semantics', async () => {
    await checkStorageContract(createPgliteStorage(db), { a: 'user-a', b: 'user-b' });
  });

  it('also for the local user (null)', async () => {
    await checkStorageContract(createPgliteStorage(db), { a: null, b: 'user-c' });
  });

  it('seeds new sessions', async () => {
    await checkSeed(createPgliteStorage(db, { seed: SEED }), 'user-seed');
  });

  it('gives back every text exactly: NUL, lone surrogates, the escape character, emoji', async () => {
    await checkLosslessText(createPgliteStorage(db), 'user-lossless');
  });

  it('writes a long message in rows of at most MAX_ROW_TEXT, each but the last marked continued, and reads it back whole', async () => {
    const { sessions } = createPgliteStorage(db);
    const sessionId = await sessions.ensureSession('user-long');
    const long = 'z'.repeat(2 * MAX_ROW_TEXT + 10);
    await sessions.appendMessages(sessionId, 't', [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: long },
    ]);
    const { rows } = await db.query<{ role: string; length: number; continued: boolean }>(
      'select role, length(content) as length, continued from agent_messages where session_id = $1 order by id',
      [sessionId],
    );
    expect(rows).toEqual([
      { role: 'user', length: 2, continued: false },
      { role: 'assistant', length: MAX_ROW_TEXT, continued: true },
      { role: 'assistant', length: MAX_ROW_TEXT, continued: true },
      { role: 'assistant', length: 10, continued: false },
    ]);
    expect(await sessions.history(sessionId)).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: long },
    ]);
  });

  it("keeps each turn's event log: replay from any seq, idempotent appends, any text, another turn's rows apart", async () => {
    await checkTurnEvents(createPgliteStorage(db), 'user-log');
    await checkTurnEvents(createPgliteStorage(db), null);
  });

  it('records a stop asked for a running turn, and only for a running one', async () => {
    await checkRequestStop(createPgliteStorage(db), 'user-stop');
  });

  it('pauses a turn for approval, decides once before expiry, expires and resumes once', async () => {
    await checkApprovals(createPgliteStorage(db), { a: 'user-a', b: 'user-b' });
    await checkApprovals(createPgliteStorage(db), { a: null, b: 'user-b' });
  });

  it('the approval desk decides once, refuses what does not wait (410 past expiry, even once ended), matches and decides a useChat batch whole, expires and goes on once (approval-contract.ts)', async () => {
    await checkApprovalDesk(createPgliteStorage(db), { a: 'user-a', b: 'user-b' });
    await checkApprovalDesk(createPgliteStorage(db), { a: null, b: 'user-b' });
  });

  it("counts the gateway's limits: up to the limit of racing requests, per subject and kind, tokens after the answer", async () => {
    await checkMeters([createPgliteStorage(db), createPgliteStorage(db)]);
  });

  it("starts a caller's count again in the next window and drops its past windows", async () => {
    const { meters } = createPgliteStorage(db);
    const add = () => meters.add({ subject: 'user:window', kind: 'requests', add: 1, limit: 2 });
    await add();
    await add();
    expect((await add()).allowed).toBe(false);
    // As if the minute had passed: the row's window is moved a minute back.
    await db.query(`update agent_gateway_usage set window_start = window_start - interval '1 minute' where subject = 'user:window'`);
    expect(await add()).toMatchObject({ allowed: true, amount: 1 });
    const { rows } = await db.query<{ amount: number }>(`select amount from agent_gateway_usage where subject = 'user:window'`);
    expect(rows).toEqual([{ amount: 1 }]);
  });

  it('closes turns a killed process left running: once, by age, as outcome interrupted', async () => {
    const { closed } = await checkCloseInterrupted(createPgliteStorage(db), 'user-zombies');
    const { rows } = await db.query<{ outcome: string; status: string; iterations: number; tool_calls: number; finished_at: Date | null }>(
      'select outcome, status, iterations, tool_calls, finished_at from agent_turns where id = any($1)',
      [closed],
    );
    expect(rows.map((r) => [r.outcome, r.status, r.iterations, r.tool_calls])).toEqual(closed.map(() => ['interrupted', 'finished', 0, 0]));
    expect(rows.every((r) => r.finished_at instanceof Date)).toBe(true);
  });
});

describe('the PGlite activity sink', () => {
  const activityDb: ActivityDb = {
    activity: async (id) => (await db.query<Record<string, unknown>>('select * from agent_activity where id = $1', [id])).rows[0],
    turn: async (id) =>
      (
        await db.query<{ prompt_tokens: unknown; completion_tokens: unknown; model: string }>(
          'select prompt_tokens, completion_tokens, model from agent_turns where id = $1',
          [id],
        )
      ).rows[0],
    countActivity: async (prefix) =>
      (await db.query<{ n: number }>('select count(*)::int as n from agent_activity where starts_with(id, $1)', [prefix])).rows[0]!.n,
  };

  it('writes any text and reads it back exactly; token counts out of range are null, not a failed batch', async () => {
    await checkLosslessActivity(createPgliteSink(db), activityDb, 'lossless');
  });

  it('of a batch of 100 with one row the database refuses, writes 99 and reports the one', async () => {
    await checkPoisonRow(createPgliteSink(db), activityDb, 'poison');
  });
});

describe('dashboard on PGlite', () => {
  let fresh: PGlite;
  beforeAll(async () => {
    fresh = await openPglite(undefined, readMigrations());
    const writer = createActivityWriter(createPgliteSink(fresh), { batchSize: 5 });
    for (const row of activityRows()) writer.recordCall(row);
    for (const row of turnRows()) writer.recordTurn(row);
    expect(await writer.flush()).toEqual({ written: activityRows().length + turnRows().length, dropped: 0 });
  });
  afterAll(async () => {
    await fresh?.close();
  });

  it('agent_dashboard() matches the hand-worked numbers', async () => {
    const source = createPgliteDashboard(fresh);
    await checkDashboardAll((range, user) => source.load(range, user));
    await checkDashboardUserA((range, user) => source.load(range, user));
  });

  it('the views match the hand-worked numbers', async () => {
    await checkViews(async (view) => (await fresh.query<Record<string, unknown>>(`select * from public.${view}`)).rows);
  });

  it('writing the same rows twice keeps one copy (a retried batch)', async () => {
    await createPgliteSink(fresh).writeActivity(activityRows().slice(0, 3));
    expect((await fresh.query('select count(*)::int as n from agent_activity')).rows).toEqual([{ n: activityRows().length }]);
  });
});
