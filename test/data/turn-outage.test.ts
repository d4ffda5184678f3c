// A real turn (the app over HTTP, the scripted model, the edge's Supabase activity sink) while
// PostgREST goes down in the middle of it: the stream still completes, the writer reports what it
// wrote and what it could not, and every row reported written is in PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupabaseSink } from '../../src/activity/sinks/supabase.ts';
import { createActivityWriter } from '../../src/activity/writer.ts';
import { readMigrations } from '../../src/entries/sql-files.ts';
import type { Tool } from '../../src/tools/types.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { serviceKey } from '../support/jwt.ts';
import { migrate, startPostgres, type PostgresCluster } from '../support/postgres.ts';
import { edgeClient, startPostgrest, type PostgrestServer } from '../support/postgrest.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { chat, shape } from '../support/sse-client.ts';

let pg: PostgresCluster;
let rest: PostgrestServer;
let upstream: ScriptedServer | undefined;
let app: TestApp | undefined;

beforeAll(async () => {
  pg = await startPostgres();
  await migrate(pg.url, readMigrations());
  rest = await startPostgrest({ dbUri: pg.authenticatorUrl });
});
afterAll(async () => {
  await app?.close();
  await upstream?.close();
  await rest?.stop();
  await pg?.stop();
});

const echo: Tool = {
  name: 'echo',
  description: 'echo',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: async (args) => ({ echoed: args.text }),
};

const rowsOfTurn = async (turnId: string) => (await pg.sql`select call_id from agent_activity where turn_id = ${turnId}`).map((r) => r.call_id as string);

describe('PostgREST down in the middle of a turn', () => {
  it.each([
    { name: 'comes back within the retries: nothing lost', restartAt: 4, dropped: 0 },
    { name: 'stays down: what could not be written is reported, the rest is there', restartAt: Infinity, dropped: 4 },
  ])('$name', async ({ restartAt, dropped }) => {
    const lines: string[] = [];
    const activity = createActivityWriter(createSupabaseSink(edgeClient(rest.url, await serviceKey())), {
      batchSize: 100,
      flushIntervalMs: 10,
      retries: restartAt === Infinity ? 1 : 6,
      backoffMs: 100,
      maxBackoffMs: 400,
      log: (l) => lines.push(l),
    });
    // Six iterations, one call in each of the first five; PostgREST stops when the model is asked for
    // the third, so when it stays down, calls 3–5 and the turn's outcome row cannot be written.
    upstream = await startScriptedOpenAI(async (_req, i) => {
      if (i === 2) {
        await new Promise((r) => setTimeout(r, 50)); // let the first rows reach the database
        await rest.stop();
      }
      if (i === restartAt) await rest.start();
      return i < 5 ? { toolCalls: [{ name: 'echo', arguments: JSON.stringify({ text: `call ${i}` }) }] } : { text: 'all done' };
    });
    app = await startApp({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url }, { tools: [echo], activity });

    const res = await chat(app.url, { message: 'echo five times' });
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 6 });
    expect(shape(res.events).filter((e) => e === 'tool_result')).toHaveLength(5);

    // The app flushed at the end of the turn (what waitUntil holds on the edge); wait for the same
    // flush here, then read the writer's totals.
    await activity.flush();
    const report = activity.stats();
    if (!rest.running()) await rest.start();
    const turnId = res.events[0]!.data.turnId as string;
    const inDb = await rowsOfTurn(turnId);
    // Five call rows and the turn's outcome row were handed to the writer.
    expect(report.written + report.dropped).toBe(6);
    expect(report.dropped).toBe(dropped);
    const turnRows = Number((await pg.sql`select count(*) as n from agent_turns where id = ${turnId}`)[0]!.n);
    expect(inDb.length + turnRows).toBe(report.written);
    if (dropped > 0) expect(lines.some((l) => /gave up on \d+ rows/.test(l))).toBe(true);
    else expect(lines).toEqual([]);

    await app.close();
    await upstream.close();
    app = upstream = undefined;
  });
});
