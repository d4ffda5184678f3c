// The server side of bench:stream, in its own process so that its CPU and memory are measured
// apart from the clients and the upstream: the real app (POST /v1/chat, /v1/turns, …/stream) and,
// beside it, a bare pass-through proxy of the same upstream (the baseline). It answers IPC requests
// for its cpuUsage and memoryUsage, its active handles by kind, and for the rows a turn's log got in
// agent_turn_events.
//
// The app runs as `npm start` runs it in the respects the stream depends on: the turn log on, every
// turn a producer (LiveTurns) whose log the stream reads, persisted through TurnLogWriter (coalesced
// text rows, a write per non-text event) to storage.turnEvents; ON_DISCONNECT=continue; local mode
// without auth; one instance (singleInstance, as src/entries/local.ts sets it).
//
// Where the rows go: the in-memory store by default (STORE=memory), PGlite in a fresh temporary
// DATA_DIR with STORE=pglite (`--store pglite`: openLocalDeps, exactly npm start's wiring, activity rows
// included). The default is memory because PGlite distorts what this bench measures: it runs
// PostgreSQL itself (WASM) on the server's own thread, and its per-turn statements (session, turn row,
// claim, history, events, messages, finish) cost ~8 ms of CPU per turn on this machine, more than
// the whole bare proxy's 2,000 tokens; on Supabase and Workers that work is the database server's,
// not the process streaming the answer. The log's own cost (packing rows, the writer's batching and
// timers, the store call) is paid either way. `--store pglite` shows what npm start pays on top.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { openLocalDeps } from '../src/entries/local.ts';
import { nodeSseSink } from '../src/entries/node-sse.ts';
import { createApp } from '../src/http/app.ts';
import { noAuth, type AppDeps } from '../src/http/deps.ts';
import { createModel } from '../src/model/index.ts';
import { nodeFetch } from '../src/entries/node-fetch.ts';
import { createMemoryStorage } from '../src/store/memory.ts';
import { defaultTools } from '../functions/index.ts';
import { LiveTurns } from '../src/turns/live-turns.ts';
import { writeHeapSnapshot } from 'node:v8';
import type { ActivityWriter } from '../src/activity/types.ts';

const upstream = process.env.UPSTREAM_URL!;
const store = process.env.STORE === 'pglite' ? 'pglite' : 'memory';
const config = loadConfig({
  OPENAI_API_KEY: 'sk-bench',
  OPENAI_BASE_URL: upstream,
  MODEL: 'bench',
  KEEPALIVE_MS: process.env.KEEPALIVE_MS ?? '10000',
  TIME_BUDGET_MS: '600000',
  // Tracing, for bench:stream's off/on part: the OTEL_* its parent set (none: off); approval, for bench:approval.
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('OTEL_') || k.startsWith('APPROVAL_'))),
});

let deps: AppDeps;
let close = async () => {};
if (store === 'pglite') {
  const dataDir = mkdtempSync(join(tmpdir(), 'rebound-bench-stream-'));
  const local = await openLocalDeps(config, { dataDir, auth: noAuth });
  deps = local.deps;
  close = async () => {
    await local.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
} else {
  // Activity rows are counted and dropped: this variant measures the stream, not a sink.
  let rows = 0;
  const activity: ActivityWriter = { recordCall: () => void rows++, recordTurn: () => void rows++, flush: async () => ({ written: rows, dropped: 0 }) };
  deps = {
    config,
    model: createModel(config, { fetch: nodeFetch }),
    // Streams written to Node's response itself, as npm start's (local.ts).
    sseSink: nodeSseSink,
    storage: createMemoryStorage(),
    activity,
    tools: defaultTools,
    auth: noAuth,
    singleInstance: true,
  };
}
// bench:turn-memory lets finished turns go sooner than npm start's 60 s, to see what stays once they have gone.
if (process.env.LIVE_TURN_RETAIN_MS) deps = { ...deps, placement: new LiveTurns({ retainMs: Number(process.env.LIVE_TURN_RETAIN_MS) }) };
const app = createApp(deps);

// The baseline: what a bare proxy does with the same upstream stream, byte for byte.
const outer = new Hono();
outer.post('/proxy', async (c) => {
  const res = await fetch(`${upstream}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: await c.req.text(),
    signal: c.req.raw.signal,
  });
  return new Response(res.body, { headers: { 'content-type': 'text/event-stream' } });
});
outer.route('/', app);

const server = serve({ fetch: outer.fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port, store });
});

process.on('message', async (msg: { type: string; turnId?: string; dir?: string }) => {
  if (msg.type === 'cpu') process.send!({ type: 'cpu', usage: process.cpuUsage() });
  if (msg.type === 'mem') {
    globalThis.gc?.();
    globalThis.gc?.();
    process.send!({ type: 'mem', usage: process.memoryUsage() });
  }
  if (msg.type === 'handles') {
    // What keeps the event loop busy, by kind (TCPSocketWrap: a socket, Timeout: a timer, …).
    const counts: Record<string, number> = {};
    for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
    process.send!({ type: 'handles', usage: counts });
  }
  if (msg.type === 'rows') {
    // What a reader on another instance would find: the persisted log of the turn.
    const rows = await deps.storage.turnEvents.eventsAfter(msg.turnId!, 0);
    process.send!({ type: 'rows', usage: rows.length });
  }
  if (msg.type === 'snapshot') {
    globalThis.gc?.();
    process.send!({ type: 'snapshot', usage: writeHeapSnapshot(join(msg.dir!, `turn-memory-${Date.now()}.heapsnapshot`)) });
  }
  if (msg.type === 'exit') {
    await close();
    process.exit(0);
  }
});
