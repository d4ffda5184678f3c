// The data layer on the real Supabase parts: PostgreSQL 17 + PostgREST 12 + supabase-js with anon,
// user and service-role JWTs. Migrations from zero, RLS, the writer through PostgREST (also while
// PostgREST is down), the Supabase storage and the dashboard RPC under RLS.
import { readFileSync } from 'node:fs';
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupabaseSink } from '../../src/activity/sinks/supabase.ts';
import type { FlushReport } from '../../src/activity/types.ts';
import { createActivityWriter } from '../../src/activity/writer.ts';
import { createSupabaseDashboard } from '../../src/dashboard/supabase.ts';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { createSupabaseStorage } from '../../src/store/supabase.ts';
import { anonKey, serviceKey, TEST_JWT_SECRET, userToken } from '../support/jwt.ts';
import { migrate, startPostgres, type PostgresCluster } from '../support/postgres.ts';
import { edgeClient, restRootFetch, startPostgrest, supabaseClient, type PostgrestServer } from '../support/postgrest.ts';
import { checkDashboardAll, checkDashboardUserA, checkViews, rounded } from './dashboard-checks.ts';
import { approvalInserts, EXPECTED_APPROVALS_ALL, EXPECTED_APPROVALS_USER_A } from './fixture-approvals.ts';
import { activityRows, turnRows, USER_A, USER_B } from './fixture.ts';
import {
  awayFromWindowEdge,
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
import { packEvents } from '../../src/store/turn-events.ts';
import { createJwtAuthenticator } from '../../src/http/auth/jwt.ts';
import { startApp } from '../support/app-server.ts';
import { startScriptedOpenAI } from '../support/scripted-openai.ts';
import { checkLosslessActivity, checkPoisonRow, type ActivityDb } from './activity-checks.ts';

let pg: PostgresCluster;
let rest: PostgrestServer;
let anon: SupabaseClient;
let service: SupabaseClient;
let userA: SupabaseClient;
let userB: SupabaseClient;
let keys: { anon: string; service: string; a: string; b: string };

beforeAll(async () => {
  pg = await startPostgres();
  const applied = await migrate(pg.url, readMigrations());
  expect(applied).toEqual(readMigrations().map((m) => m.name));
  // Capped at 1000 rows a response, as on Supabase: the stores must page past it.
  rest = await startPostgrest({ dbUri: pg.authenticatorUrl, maxRows: 1000 });
  keys = { anon: await anonKey(), service: await serviceKey(), a: await userToken(USER_A), b: await userToken(USER_B) };
  anon = supabaseClient(rest.url, keys.anon);
  service = supabaseClient(rest.url, keys.service);
  userA = supabaseClient(rest.url, keys.anon, keys.a);
  userB = supabaseClient(rest.url, keys.anon, keys.b);
});

afterAll(async () => {
  await rest?.stop();
  await pg?.stop();
});

const count = async (table: string) => Number((await pg.sql.unsafe(`select count(*) as n from public.${table}`))[0]?.n);

describe('migrations on PostgreSQL 17', () => {
  it('runs the major version supabase/config.toml deploys to', async () => {
    const config = readFileSync(new URL('../../supabase/config.toml', import.meta.url), 'utf8');
    const major = /^major_version = (\d+)$/m.exec(config)?.[1];
    const [row] = await pg.sql`select current_setting('server_version_num')::int / 10000 as major`;
    expect(String(row?.major)).toBe(major);
  });

  it('created every table with RLS and recorded every version', async () => {
    const tables = await pg.sql`select relname, relrowsecurity from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r' order by relname`;
    expect(tables.map((t) => [t.relname, t.relrowsecurity])).toEqual(TABLES.map((t) => [t, true]));
    const versions = await pg.sql`select version from supabase_migrations.schema_migrations order by version`;
    expect(versions).toHaveLength(readMigrations().length);
  });

  it('grants anon nothing on any table or view', async () => {
    const grants =
      await pg.sql`select table_name, privilege_type from information_schema.role_table_grants where grantee in ('anon', 'public') and table_schema = 'public'`;
    expect(grants).toEqual([]);
  });
});

describe('the writer through PostgREST, then the dashboard under RLS', () => {
  beforeAll(async () => {
    // Written with the edge's client (the PostgREST query builder), read back with supabase-js.
    const writer = createActivityWriter(createSupabaseSink(edgeClient(rest.url, keys.service)), { batchSize: 5, flushIntervalMs: 10 });
    for (const row of activityRows()) writer.recordCall(row);
    for (const row of turnRows()) writer.recordTurn(row);
    expect(await writer.flush()).toEqual({ written: activityRows().length + turnRows().length, dropped: 0 });
  });

  it('rows written by the writer arrive, as written, through supabase-js', async () => {
    const { data, error } = await service.from('agent_activity').select('*').order('id');
    expect(error).toBeNull();
    expect(data).toHaveLength(activityRows().length);
    const c3 = data!.find((r) => r.id === 'c3');
    const expected = activityRows().find((r) => r.id === 'c3')!;
    expect({ ...c3, created_at: new Date(c3.created_at).toISOString() }).toEqual({ ...expected, created_at: new Date(expected.created_at).toISOString() });
    const turns = await service.from('agent_turns').select('id, outcome, status').order('id');
    expect(turns.data?.map((t) => [t.id, t.outcome, t.status])).toEqual(turnRows().map((t) => [t.id, t.outcome, 'finished']));
  });

  it('anon: insert refused, select sees nothing, RPC refused', async () => {
    const insert = await anon.from('agent_activity').insert({ ...activityRows()[0]!, id: 'anon-row' });
    expect(insert.error?.code).toBe('42501');
    for (const table of [
      'agent_activity',
      'agent_turns',
      'agent_turn_events',
      'agent_sessions',
      'agent_messages',
      'workspace_files',
      'agent_memories',
      'agent_approvals',
      'dashboard_categories',
    ]) {
      const { data, error } = await anon.from(table).select('*');
      expect(data ?? []).toEqual([]);
      expect(error?.code).toBe('42501');
    }
    expect((await anon.rpc('agent_dashboard', { p_from: '2025-01-01', p_to: '2026-01-01' })).error).not.toBeNull();
    expect(await count('agent_activity')).toBe(activityRows().length);
  });

  it('an authenticated user reads only their own rows and writes nothing', async () => {
    const a = await userA.from('agent_activity').select('id, user_id');
    expect(a.data?.map((r) => r.id).sort()).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']);
    const b = await userB.from('agent_activity').select('id');
    expect(b.data?.map((r) => r.id).sort()).toEqual(['c10', 'c11', 'c12', 'c13', 'c14', 'c15', 'c16', 'c17']);
    expect((await userB.from('agent_turns').select('id')).data?.map((r) => r.id).sort()).toEqual(['T4', 'T5']);
    const write = await userA.from('agent_activity').insert({ ...activityRows()[0]!, id: 'user-row' });
    expect(write.error?.code).toBe('42501');
    const update = await userA.from('agent_turns').update({ outcome: 'error' }).eq('id', 'T1').select();
    expect(update.error?.code).toBe('42501');
  });

  it('the dashboard RPC with the user JWT: RLS gives user A only their numbers', async () => {
    const source = createSupabaseDashboard({ url: rest.url, publishableKey: keys.anon, fetch: restRootFetch });
    // userId null on purpose: RLS alone must narrow it to A.
    await checkDashboardUserA((range) => source.load(range, null, keys.a), null);
    const b = await source.load({ from: '2025-03-01T00:00:00Z', to: '2025-03-03T00:00:00Z', bucket: 'day' }, null, keys.b);
    expect(b.totals).toMatchObject({ calls: 8, turns: 2, repeatedFailures: 3, repeatedFailureTurns: 1 });
    await expect(source.load({ from: '2025-03-01T00:00:00Z', to: '2025-03-03T00:00:00Z', bucket: 'day' }, null)).rejects.toThrow(
      /Sign in to see the dashboard/,
    );
  });

  it('the dashboard RPC and views through the service role match the hand-worked numbers', async () => {
    const source = createSupabaseDashboard({ url: rest.url, publishableKey: keys.anon, serviceClient: service, allowAll: true });
    await checkDashboardAll((range, user) => source.load(range, user));
    await checkDashboardUserA((range, user) => source.load(range, user));
    await checkViews(async (view) => {
      const { data, error } = await service.from(view).select('*');
      if (error) throw new Error(error.message);
      return data as Record<string, unknown>[];
    });
  });

  // Last in this block: the checks above expect the fixture without approvals.
  it('approvals in the dashboard RPC: RLS gives user A only their calls sent to a person', async () => {
    for (const { text, params } of approvalInserts()) await pg.sql.unsafe(text, params);
    const range = { from: '2025-03-01T00:00:00Z', to: '2025-03-03T00:00:00Z', bucket: 'day' as const };
    const asUser = createSupabaseDashboard({ url: rest.url, publishableKey: keys.anon, fetch: restRootFetch });
    expect(rounded((await asUser.load(range, null, keys.a)).approvals)).toEqual(rounded(EXPECTED_APPROVALS_USER_A));
    const all = createSupabaseDashboard({ url: rest.url, publishableKey: keys.anon, serviceClient: service, allowAll: true });
    expect(rounded((await all.load(range, null)).approvals)).toEqual(rounded(EXPECTED_APPROVALS_ALL));
  });

  it('views through user A see only A', async () => {
    const { data } = await userA.from('dashboard_self_correction').select('*');
    expect(data).toEqual([{ blocked: 4, corrected_first_retry: 2, corrected_second_retry: 3, rate_first: 0.5, rate_second: 0.75 }]);
  });
});

describe('Supabase storage (service role through PostgREST)', () => {
  it('has the memory store semantics', async () => {
    await checkStorageContract(createSupabaseStorage(service), { a: crypto.randomUUID(), b: crypto.randomUUID() });
  });

  it('seeds new sessions', async () => {
    await checkSeed(createSupabaseStorage(service, { seed: SEED }), crypto.randomUUID());
  });

  it('gives back every text exactly: NUL, lone surrogates, the escape character, emoji', async () => {
    await checkLosslessText(createSupabaseStorage(service), crypto.randomUUID());
  });

  it("keeps each turn's event log: replay from any seq, idempotent appends, any text, another turn's rows apart, past the 1000-row cap", async () => {
    await checkTurnEvents(createSupabaseStorage(service), crypto.randomUUID());
    // The edge's own client (the PostgREST query builder) too.
    await checkTurnEvents(createSupabaseStorage(edgeClient(rest.url, keys.service)), crypto.randomUUID());
  });

  it('records a stop asked for a running turn, and only for a running one', async () => {
    await checkRequestStop(createSupabaseStorage(service), crypto.randomUUID());
  });

  it('pauses a turn for approval, decides once before expiry, expires and resumes once; a user reads only their approvals and changes none', async () => {
    await checkApprovals(createSupabaseStorage(service), { a: USER_A, b: USER_B });
    const mine = await userA.from('agent_approvals').select('user_id');
    expect(mine.error).toBeNull();
    expect(new Set(mine.data!.map((r) => r.user_id))).toEqual(new Set([USER_A]));
    const theirs = await userB.from('agent_approvals').select('user_id');
    expect(new Set(theirs.data!.map((r) => r.user_id))).toEqual(new Set([USER_B]));
    // Only the server decides: a user's token may neither update a row nor call the functions.
    const id = (await service.from('agent_approvals').select('id').eq('user_id', USER_A).eq('status', 'pending').limit(1)).data![0]!.id as string;
    expect((await userA.from('agent_approvals').update({ status: 'approved' }).eq('id', id).select()).error?.code).toBe('42501');
    expect((await userA.rpc('agent_decide_approval', { p_id: id, p_status: 'approved', p_reason: null })).error?.code).toBe('42501');
    expect((await userA.rpc('agent_resume_turn', { p_turn: 'x' })).error?.code).toBe('42501');
    expect((await service.from('agent_approvals').select('status').eq('id', id).single()).data?.status).toBe('pending');
  });

  it('the approval desk decides once, refuses what does not wait (410 past expiry, even once ended), matches and decides a useChat batch whole, expires and goes on once (approval-contract.ts)', async () => {
    await checkApprovalDesk(createSupabaseStorage(service), { a: USER_A, b: USER_B });
  });

  it('closes turns a killed process left running: once, by age, as outcome interrupted, even when callers race', async () => {
    const { closed } = await checkCloseInterrupted(createSupabaseStorage(service), crypto.randomUUID());
    const rows = await pg.sql`select outcome, status, finished_at from agent_turns where id = any(${closed})`;
    expect(rows.map((r) => [r.outcome, r.status])).toEqual(closed.map(() => ['interrupted', 'finished']));
    expect(rows.every((r) => r.finished_at instanceof Date)).toBe(true);
    // Only the server closes turns: a user's token may not call it.
    expect((await userA.rpc('agent_close_interrupted', { p_before: new Date().toISOString(), p_note: 'x' })).error?.code).toBe('42501');
  });

  it("counts the gateway's limits on two clients as on two isolates; no user or anon may read the counts or call the function", async () => {
    await checkMeters([createSupabaseStorage(service), createSupabaseStorage(edgeClient(rest.url, keys.service))]);
    const args = { p_subject: `user:${USER_A}`, p_kind: 'requests', p_add: -1000, p_limit: null };
    expect((await userA.rpc('agent_gateway_meter', args)).error?.code).toBe('42501');
    expect((await anon.rpc('agent_gateway_meter', args)).error?.code).toBe('42501');
    for (const client of [userA, anon]) {
      const read = await client.from('agent_gateway_usage').select('*');
      expect(read.error?.code).toBe('42501');
      expect((await client.from('agent_gateway_usage').delete().neq('subject', '')).error?.code).toBe('42501');
    }
    expect(Number((await pg.sql`select count(*) as n from public.agent_gateway_usage`)[0]?.n)).toBeGreaterThan(0);
  });

  it('a user past GATEWAY_RPM gets 429 with Retry-After from two apps on this project, the upstream asked once', async () => {
    const upstream = await startScriptedOpenAI(() => ({ text: 'ok' }));
    const env = { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: upstream.url, GATEWAY_USERS: 'authenticated', GATEWAY_RPM: '1' };
    const apps = await Promise.all(
      [0, 1].map(() =>
        startApp(env, { auth: createJwtAuthenticator({ secret: TEST_JWT_SECRET }), storage: createSupabaseStorage(edgeClient(rest.url, keys.service)) }),
      ),
    );
    try {
      const token = await userToken(crypto.randomUUID());
      await awayFromWindowEdge();
      const ask = (i: number) =>
        fetch(`${apps[i]!.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
        });
      expect((await ask(0)).status).toBe(200);
      const refused = await ask(1);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await Promise.all(apps.map((a) => a.close()));
      await upstream.close();
    }
  });

  it("a user reads their own session history through RLS, not another user's", async () => {
    const storage = createSupabaseStorage(service);
    const sessionId = await storage.sessions.ensureSession(USER_A);
    await storage.sessions.appendMessages(sessionId, 't', [{ role: 'user', content: 'mine' }]);
    expect((await userA.from('agent_messages').select('content').eq('session_id', sessionId)).data).toEqual([{ content: 'mine' }]);
    expect((await userB.from('agent_messages').select('content').eq('session_id', sessionId)).data).toEqual([]);
  });
});

describe('turn events under RLS (user, anon and service-role JWTs through PostgREST)', () => {
  const done = { event: 'done' as const, data: { reason: 'completed' as const, iterations: 1, usage: { promptTokens: 1, completionTokens: 2 } } };
  /** A turn of `userId` with a few logged events, written by the server (service role). */
  async function loggedTurn(userId: string) {
    const storage = createSupabaseStorage(service);
    const sessionId = await storage.sessions.ensureSession(userId);
    const turnId = crypto.randomUUID();
    await storage.sessions.createTurn({ id: turnId, sessionId, userId, message: 'log me' });
    const rows = packEvents(turnId, [
      { seq: 1, event: { event: 'turn_start', data: { turnId, sessionId, model: 'm', demo: false } } },
      { seq: 2, event: { event: 'text_delta', data: { text: 'hel' } } },
      { seq: 3, event: { event: 'text_delta', data: { text: 'lo' } } },
      { seq: 4, event: done },
    ]);
    await storage.turnEvents.appendEvents(rows);
    return { turnId, rows };
  }
  const seqs = (result: { data: Array<{ seq: number }> | null; error: unknown }) => {
    expect(result.error).toBeNull();
    return result.data?.map((r) => r.seq);
  };

  it("the owner reads their turn's events, the other user none of them, anon is refused", async () => {
    const a = await loggedTurn(USER_A);
    const b = await loggedTurn(USER_B);
    expect(seqs(await userA.from('agent_turn_events').select('seq').eq('turn_id', a.turnId).order('seq'))).toEqual([1, 2, 4]);
    expect(seqs(await userB.from('agent_turn_events').select('seq').eq('turn_id', a.turnId))).toEqual([]);
    expect(seqs(await userA.from('agent_turn_events').select('seq').eq('turn_id', b.turnId))).toEqual([]);
    // Unfiltered, each sees only turns of their own.
    const visible = async (client: SupabaseClient) => new Set((await client.from('agent_turn_events').select('turn_id')).data?.map((r) => r.turn_id));
    expect((await visible(userA)).has(b.turnId)).toBe(false);
    expect((await visible(userB)).has(a.turnId)).toBe(false);
    expect((await visible(userB)).has(b.turnId)).toBe(true);
    // The store on a user's client reads through the same policy.
    expect(await createSupabaseStorage(userA).turnEvents.eventsAfter(a.turnId, 0)).toEqual(a.rows);
    expect(await createSupabaseStorage(userB).turnEvents.eventsAfter(a.turnId, 0)).toEqual([]);
    const anonRead = await anon.from('agent_turn_events').select('*');
    expect(anonRead.error?.code).toBe('42501');
    expect(anonRead.data ?? []).toEqual([]);
  });

  it('an authenticated user cannot insert, update or delete events, nor ask for a stop; anon cannot write', async () => {
    const a = await loggedTurn(USER_A);
    const row = { turn_id: a.turnId, seq: 10, last_seq: 10, event: 'agent_error', data: { message: 'forged', retryable: false } };
    expect((await userA.from('agent_turn_events').insert(row)).error?.code).toBe('42501');
    expect((await anon.from('agent_turn_events').insert(row)).error?.code).toBe('42501');
    expect(
      (
        await userA
          .from('agent_turn_events')
          .update({ data: { texts: ['forged'] } })
          .eq('turn_id', a.turnId)
          .select()
      ).error?.code,
    ).toBe('42501');
    expect((await userA.from('agent_turn_events').delete().eq('turn_id', a.turnId).select()).error?.code).toBe('42501');
    expect((await userA.from('agent_turns').update({ stop_requested_at: new Date().toISOString() }).eq('id', a.turnId).select()).error?.code).toBe('42501');
    expect(await createSupabaseStorage(service).turnEvents.eventsAfter(a.turnId, 0)).toEqual(a.rows);
    expect((await pg.sql`select stop_requested_at from agent_turns where id = ${a.turnId}`)[0]?.stop_requested_at).toBeNull();
  });

  it('the service role inserts, updates and deletes events', async () => {
    const a = await loggedTurn(USER_A);
    const row = { turn_id: a.turnId, seq: 10, last_seq: 10, event: 'agent_error', data: { message: 'late', retryable: false } };
    expect((await service.from('agent_turn_events').insert(row)).error).toBeNull();
    const updated = await service
      .from('agent_turn_events')
      .update({ data: { message: 'later', retryable: true } })
      .eq('turn_id', a.turnId)
      .eq('seq', 10)
      .select('seq');
    expect(seqs(updated)).toEqual([10]);
    const deleted = await service.from('agent_turn_events').delete().eq('turn_id', a.turnId).select('seq');
    expect(seqs(deleted)?.sort((x, y) => x - y)).toEqual([1, 2, 4, 10]);
    expect((await pg.sql`select count(*)::int as n from agent_turn_events where turn_id = ${a.turnId}`)[0]?.n).toBe(0);
  });
});

describe('the activity sink through PostgREST', () => {
  const activityDb: ActivityDb = {
    activity: async (id) => (await pg.sql`select * from agent_activity where id = ${id}`)[0],
    turn: async (id) =>
      (await pg.sql`select prompt_tokens, completion_tokens, model from agent_turns where id = ${id}`)[0] as Awaited<ReturnType<ActivityDb['turn']>>,
    countActivity: async (prefix) => Number((await pg.sql`select count(*) as n from agent_activity where starts_with(id, ${prefix})`)[0]?.n),
  };

  it('writes any text and reads it back exactly; token counts out of range are null, not a failed batch', async () => {
    await checkLosslessActivity(createSupabaseSink(edgeClient(rest.url, keys.service)), activityDb, 'rest-lossless');
  });

  it('of a batch of 100 with one row the database refuses, writes 99 and reports the one', async () => {
    await checkPoisonRow(createSupabaseSink(edgeClient(rest.url, keys.service)), activityDb, 'rest-poison');
  });

  it('down, then back, with a row it refuses in the batch: the batch is retried whole, then only that row is lost', async () => {
    const lines: string[] = [];
    const sink = createSupabaseSink(edgeClient(rest.url, keys.service));
    let calls = 0;
    const counted = {
      ...sink,
      writeActivity: (rows: Parameters<typeof sink.writeActivity>[0]) => {
        calls++;
        return sink.writeActivity(rows);
      },
    };
    const writer = createActivityWriter(counted, {
      batchSize: 100,
      flushIntervalMs: 5,
      retries: 8,
      backoffMs: 100,
      maxBackoffMs: 400,
      log: (l) => lines.push(l),
    });
    const rows = Array.from({ length: 100 }, (_, i) => ({
      ...activityRows()[i % 12]!,
      id: `back-${i}`,
      turn_id: 'back-turn',
      created_at: '2024-01-01T00:00:00Z',
    }));
    rows[7] = { ...rows[7]!, verdict: 'maybe' as never };
    await rest.stop();
    let report: FlushReport | undefined;
    try {
      for (const row of rows) writer.recordCall(row);
      const flushing = writer.flush();
      await new Promise((r) => setTimeout(r, 500));
      const whileDown = calls;
      await rest.start();
      report = await flushing;
      // While down: one call per attempt, never a split batch (a split would be 2 calls per attempt and more).
      expect(whileDown).toBeLessThanOrEqual(8);
    } finally {
      if (!rest.running()) await rest.start();
    }
    expect(report).toMatchObject({
      written: 99,
      dropped: 1,
      refused: [{ kind: 'call', id: 'back-7', error: expect.stringMatching(/agent_activity_verdict_check/) }],
    });
    expect(await activityDb.countActivity('back-')).toBe(99);
    expect(lines).toEqual([expect.stringMatching(/^\[activity\] supabase: refused 1 of 100 call rows, wrote the others: "back-7" /)]);
  });
});

describe('PostgREST stopped in the middle of a run', () => {
  const rows = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ ...activityRows()[i % 12]!, id: `${prefix}-${i}`, turn_id: `${prefix}-turn` }));
  const inDb = async (prefix: string) => Number((await pg.sql`select count(*) as n from agent_activity where id like ${`${prefix}-%`}`)[0]?.n);

  /** Emits a simulated turn: one call row per event, timing each record call. */
  function emit(writer: ReturnType<typeof createActivityWriter>, batch: ReturnType<typeof rows>) {
    let worst = 0;
    for (const row of batch) {
      const t = performance.now();
      writer.recordCall(row);
      worst = Math.max(worst, performance.now() - t);
    }
    return worst;
  }

  it('loses nothing when it comes back within the retries, and never blocks the caller', async () => {
    const lines: string[] = [];
    const writer = createActivityWriter(createSupabaseSink(service), {
      batchSize: 20,
      flushIntervalMs: 10,
      retries: 8,
      backoffMs: 100,
      maxBackoffMs: 800,
      log: (l) => lines.push(l),
    });
    let worst = emit(writer, rows('up', 40));
    await new Promise((r) => setTimeout(r, 100));
    await rest.stop();
    worst = Math.max(worst, emit(writer, rows('down', 60)));
    const flushing = writer.flush();
    await new Promise((r) => setTimeout(r, 600));
    await rest.start();
    const report = await flushing;
    expect(report).toEqual({ written: 100, dropped: 0 });
    expect(lines).toEqual([]);
    expect(await inDb('up')).toBe(40);
    expect(await inDb('down')).toBe(60);
    // A record call that waited on PostgREST would take the whole outage (600 ms and more).
    expect(worst).toBeLessThan(50);
  });

  it('when it stays down, reports what it could not write and everything reported written is there', async () => {
    const lines: string[] = [];
    const writer = createActivityWriter(createSupabaseSink(service), {
      batchSize: 25,
      flushIntervalMs: 5,
      retries: 2,
      backoffMs: 20,
      log: (l) => lines.push(l),
    });
    emit(writer, rows('before', 50));
    expect(await writer.flush()).toEqual({ written: 50, dropped: 0 });
    await rest.stop();
    try {
      const started = performance.now();
      const worst = emit(writer, rows('lost', 50));
      const emitted = performance.now() - started;
      const report = await writer.flush();
      expect(report.written).toBe(0);
      expect(report.dropped).toBe(50);
      expect(report.lastError).toMatch(/fetch failed|ECONNREFUSED|agent_activity/);
      expect(lines).toHaveLength(2); // one line per batch given up on
      expect(lines[0]).toMatch(/supabase: gave up on 25 rows after 3 attempts/);
      expect(worst).toBeLessThan(50);
      expect(emitted).toBeLessThan(250);
    } finally {
      await rest.start();
    }
    expect(await inDb('before')).toBe(50);
    expect(await inDb('lost')).toBe(0);
  });
});
