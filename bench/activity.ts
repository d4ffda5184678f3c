// bench:activity — what activity logging costs. Starts PostgreSQL 17 + PostgREST 12 (test/support),
// then measures, in one run:
//   1. rows per second the batching writer sustains through supabase-js → PostgREST → PostgreSQL;
//   2. the real agent loop (src/loop/turn.ts, in-process scripted model, the real tools on an in-memory
//      workspace) with logging off (no-op writer) and on (writer → PostgREST), interleaved rounds, and
//      the ratio of median turn latency on/off (target ≤ 1.05×); rows logged meanwhile per second.
// Last line: one JSON object.
//
//   npm run bench:activity -- [--rows 20000] [--rounds 20] [--turns 4]
import { defaultTools } from '../functions/index.ts';
import { createSupabaseSink } from '../src/activity/sinks/supabase.ts';
import type { ActivityRow, ActivityWriter } from '../src/activity/types.ts';
import { createActivityWriter } from '../src/activity/writer.ts';
import { readMigrations } from '../src/entries/sql-files.ts';
import type { TurnEvent } from '../src/vocabulary.ts';
import { runTurn } from '../src/loop/turn.ts';
import type { ModelClient, ModelEvent, ModelRequest } from '../src/model/types.ts';
import { createMemoryStorage } from '../src/store/memory.ts';
import { serviceKey } from '../test/support/jwt.ts';
import { migrate, startPostgres } from '../test/support/postgres.ts';
import { startPostgrest, supabaseClient } from '../test/support/postgrest.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const ROWS = opt('rows', 20_000);
const ROUNDS = opt('rounds', 20);
const TURNS = opt('turns', 4); // concurrent turns per round
const ITERATIONS = 8;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

const pg = await startPostgres();
let rest: Awaited<ReturnType<typeof startPostgrest>> | undefined;
try {
  await migrate(pg.url, readMigrations());
  rest = await startPostgrest({ dbUri: pg.authenticatorUrl });
  const service = supabaseClient(rest.url, await serviceKey());
  const sink = createSupabaseSink(service);

  // 1. Sustained writer throughput, default options (what the entries use).
  const template: ActivityRow = {
    id: '',
    turn_id: 'bench-turn',
    session_id: 'bench',
    user_id: null,
    iteration: 1,
    model: 'bench',
    call_id: 'c',
    tool_requested: 'write_file',
    tool_resolved: 'write_file',
    verdict: 'repaired',
    category: 'unknown_parameter',
    problems: [],
    repairs: [{ kind: 'drop', path: '$.append', category: 'unknown_parameter' }],
    suggestions: [],
    invented_params: ['append'],
    arguments: '{"path":"src/a.ts","content":"export const a = 1;\\n","append":true}',
    error: null,
    duration_ms: 0.4,
    created_at: new Date().toISOString(),
    source: 'loop',
  };
  const raw = createActivityWriter(sink);
  const t0 = performance.now();
  let enqueueMs = 0;
  // Offer rows as fast as the writer takes them, keeping its queue under the cap (sustained, not a burst).
  for (let i = 0; i < ROWS; ) {
    if (raw.stats().queued > 5_000) {
      await new Promise((r) => setTimeout(r, 1));
      continue;
    }
    const e = performance.now();
    for (const end = Math.min(ROWS, i + 500); i < end; i++) raw.recordCall({ ...template, id: `raw-${i}` });
    enqueueMs += performance.now() - e;
  }
  const rawReport = await raw.flush();
  const rawMs = performance.now() - t0;
  const rowsPerSecond = Math.round((rawReport.written / rawMs) * 1000);
  const inDb = Number((await pg.sql`select count(*) as n from agent_activity where id like 'raw-%'`)[0]?.n);
  console.log(
    `writer: ${rawReport.written}/${ROWS} rows in ${rawMs.toFixed(0)} ms → ${rowsPerSecond} rows/s (dropped ${rawReport.dropped}, in db ${inDb}; record* total ${enqueueMs.toFixed(1)} ms = ${((enqueueMs / ROWS) * 1000).toFixed(2)} µs/row)`,
  );

  // 2. The real loop. The scripted model streams text in small deltas with a short network-like pause per
  // completion, and proposes a mix of good and bad calls each iteration (valid, phantom, invented param,
  // missing path), then answers.
  let ttftMs = 0;
  const model: ModelClient = {
    model: 'bench-model',
    demo: false,
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      const iteration = request.messages.filter((m) => m.role === 'assistant').length;
      await new Promise((r) => setTimeout(r, ttftMs));
      for (let i = 0; i < 40; i++) {
        // Deltas arrive in network reads of a few tokens each.
        if (i % 8 === 7) await new Promise((r) => setImmediate(r));
        yield { type: 'text', text: `token${i} ` };
      }
      const usage = { promptTokens: 100, completionTokens: 40 };
      if (iteration >= ITERATIONS - 1 || request.toolChoice === 'none') {
        yield { type: 'finish', toolCalls: [], finishReason: 'stop', usage };
        return;
      }
      const id = (k: number) => `call_${iteration}_${k}`;
      yield {
        type: 'finish',
        finishReason: 'tool_calls',
        usage,
        toolCalls: [
          { id: id(0), name: 'list_files', arguments: '{}' },
          { id: id(1), name: 'read_file', arguments: '{"path":"README.md"}' },
          { id: id(2), name: 'read_fille', arguments: '{"path":"README.md"}' },
          { id: id(3), name: 'write_file', arguments: `{"path":"notes/${iteration}.md","content":"note ${iteration}\\n","mode":"w"}` },
          { id: id(4), name: 'read_file', arguments: '{"path":"does/not/exist.ts"}' },
        ],
      };
    },
  };
  const storage = createMemoryStorage({ 'README.md': '# bench\n\nA small project.\n', 'src/main.ts': 'export const x = 1;\n' });
  const noop: ActivityWriter = { recordCall() {}, recordTurn() {}, flush: async () => ({ written: 0, dropped: 0 }) };
  const logging = createActivityWriter(sink);
  const pendingFlushes: Promise<unknown>[] = [];

  async function oneTurn(activity: ActivityWriter, round: string, k: number): Promise<{ ms: number; events: number; calls: number }> {
    const turnId = crypto.randomUUID();
    const sessionId = `bench-${round}-${k}`;
    let events = 0;
    let calls = 0;
    // The SSE writer serialises every event; do the same work here.
    const emit = (e: TurnEvent) => {
      events++;
      if (e.event === 'tool_result') calls++;
      JSON.stringify(e.data);
    };
    const started = performance.now();
    // The whole turn, as the server runs it: turn_start, the loop, its turn row and saved messages, done.
    await runTurn(
      { id: turnId, sessionId, userId: null, message: 'tidy the project' },
      { storage, model, tools: defaultTools, activity, limits: { maxIterations: ITERATIONS + 2, timeBudgetMs: 60_000, toolTimeoutMs: 5_000, modelRetries: 0 } },
      { sink: emit, signal: new AbortController().signal },
    );
    const ms = performance.now() - started;
    // runTurn hands its flush to waitUntil and does not wait for it; the bench waits for them all at the end.
    pendingFlushes.push(activity.flush());
    return { ms, events, calls };
  }

  async function scenario(name: string, ttft: number) {
    ttftMs = ttft;
    const latency = { off: [] as number[], on: [] as number[] };
    const cpu = { off: 0, on: 0 };
    let loggedCalls = 0;
    let loggedMs = 0;
    // Warm up both paths (JIT, connection pool).
    await Promise.all(Array.from({ length: TURNS }, (_, k) => oneTurn(noop, `${name}-warm-off`, k)));
    await Promise.all(Array.from({ length: TURNS }, (_, k) => oneTurn(logging, `${name}-warm-on`, k)));
    await Promise.all(pendingFlushes.splice(0));
    const before = Number((await pg.sql`select count(*) as n from agent_activity`)[0]?.n);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order so neither mode always runs first.
      const order: Array<'off' | 'on'> = round % 2 ? ['on', 'off'] : ['off', 'on'];
      for (const mode of order) {
        const t = performance.now();
        const c = process.cpuUsage();
        const results = await Promise.all(Array.from({ length: TURNS }, (_, k) => oneTurn(mode === 'on' ? logging : noop, `${name}-${mode}-${round}`, k)));
        const used = process.cpuUsage(c);
        cpu[mode] += (used.user + used.system) / 1000;
        for (const r of results) latency[mode].push(r.ms);
        if (mode === 'on') {
          loggedCalls += results.reduce((n, r) => n + r.calls, 0);
          loggedMs += performance.now() - t;
        }
      }
    }
    const flushT = performance.now();
    const reports = (await Promise.all(pendingFlushes.splice(0))) as Array<{ written: number; dropped: number }>;
    const drainMs = performance.now() - flushT;
    const written = reports.reduce((n, r) => n + r.written, 0);
    const dropped = reports.reduce((n, r) => n + r.dropped, 0);
    const rows = Number((await pg.sql`select count(*) as n from agent_activity`)[0]?.n) - before;
    const offMed = median(latency.off);
    const onMed = median(latency.on);
    const ratio = onMed / offMed;
    const callsPerTurn = loggedCalls / latency.on.length;
    const turnsPerMode = latency.on.length;
    console.log(
      `loop, ${name} (model time to first token ${ttft} ms): ${ROUNDS} rounds × ${TURNS} concurrent turns per mode, ${ITERATIONS} iterations, ${callsPerTurn.toFixed(0)} tool calls per turn`,
    );
    console.log(
      `  turn latency off: median ${offMed.toFixed(1)} ms, p95 ${p95(latency.off).toFixed(1)} ms, node cpu ${(cpu.off / turnsPerMode).toFixed(1)} ms/turn`,
    );
    console.log(
      `  turn latency on : median ${onMed.toFixed(1)} ms, p95 ${p95(latency.on).toFixed(1)} ms, node cpu ${(cpu.on / turnsPerMode).toFixed(1)} ms/turn`,
    );
    console.log(`  ratio on/off (median): ${ratio.toFixed(3)}×${name === 'paced' ? ' (target ≤ 1.05×)' : ''}`);
    console.log(
      `  logged while the loop ran: ${rows} call rows in agent_activity, ${written} rows (calls + turn outcomes) reported written, ${dropped} dropped; ${((loggedCalls / loggedMs) * 1000).toFixed(0)} calls/s from the loop; drain after the last turn ${drainMs.toFixed(0)} ms`,
    );
    return { offMed, onMed, ratio, callsPerTurn, turnsPerMode, rows, written, dropped, cpuOff: cpu.off / turnsPerMode, cpuOn: cpu.on / turnsPerMode };
  }

  const paced = await scenario('paced', opt('ttft', 25));
  const stress = await scenario('cpu-bound', 1);

  const r = (x: number, d = 2) => Number(x.toFixed(d));
  console.log(
    JSON.stringify({
      bench: 'activity',
      writerRowsPerSecond: rowsPerSecond,
      writerRows: rawReport.written,
      writerDropped: rawReport.dropped,
      recordMicrosPerRow: r((enqueueMs / ROWS) * 1000),
      turnsPerMode: paced.turnsPerMode,
      toolCallsPerTurn: Math.round(paced.callsPerTurn),
      latencyOffMedianMs: r(paced.offMed),
      latencyOnMedianMs: r(paced.onMed),
      latencyRatio: r(paced.ratio, 3),
      latencyRatioTarget: 1.05,
      cpuBoundLatencyRatio: r(stress.ratio, 3),
      cpuPerTurnOffMs: r(stress.cpuOff),
      cpuPerTurnOnMs: r(stress.cpuOn),
      loopRowsLogged: paced.rows + stress.rows,
      loopRowsDropped: paced.dropped + stress.dropped,
    }),
  );
} finally {
  await rest?.stop();
  await pg.stop();
}
