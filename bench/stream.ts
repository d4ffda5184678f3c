// bench:stream — what the loop costs on the streaming path with the turn log on (as `npm start` runs
// it: see bench/stream-server.ts), how a turn behaves when its reader leaves or comes back, how many
// open turns one Node process holds, and whether it still answers GET /health while they are open
// (latency under that load against the same requests on the idle server). Ratios against a baseline
// measured in the same run (these machines are noisy).
//
//   npm run bench:stream -- [--json] [--tokens 2000] [--rounds 40] [--streams 2000] [--store pglite|memory] [--cpu-prof DIR]
// Then the loop with tracing off and on (OTEL_EXPORTER_OTLP_ENDPOINT at an OTLP endpoint in this process
// that takes and drops the spans): two more servers, --tracing-runs interleaved runs (default 3) of
// --tracing-turns turns per side each (default 100), the sides taking turns, a turn with three proposed calls (executed, repaired, blocked)
// and a 200-word answer: six spans.
// Then readers that never read (bench/stalled-readers.ts): the server's RSS growth with 20 raw sockets
// stalled on a 20 MB turn, and 10 on a 20 MB gateway answer (--no-stalled skips it).
// --streams 0 skips the open-streams part. --store pglite persists to PGlite in a temporary directory
// instead of the in-memory store (bench/stream-server.ts says why memory is the default). --cpu-prof
// writes the server process's V8 CPU profile to DIR (read it with `npx tsx bench/cpu-profile.ts FILE`).
import { Agent, createServer, get, request, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startScriptedOpenAI } from '../test/support/scripted-openai.ts';
import { parseBlock, parseSse, type SseEvent } from '../test/support/sse-client.ts';
import { tracingEngineCpu } from './tracing-engine.ts';
import { ask, startAppProcess } from './app-process.ts';
import { BIG_ANSWER, BIG_MESSAGE, measureStalledReaders } from './stalled-readers.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const json = args.includes('--json');
const TOKENS = opt('tokens', 2000);
const ROUNDS = opt('rounds', 40);
const STREAMS = opt('streams', 2000);
const TRACING_RUNS = opt('tracing-runs', 3);
const TRACING_TURNS = opt('tracing-turns', 100);
const STORE = args.includes('--store') ? args[args.indexOf('--store') + 1]! : 'memory';
if (STORE !== 'pglite' && STORE !== 'memory') throw new Error(`--store must be pglite or memory, not ${JSON.stringify(STORE)}`);
/** How long the streams are held open (keepalives running, /health sampled), ms. */
const HOLD_MS = 3_000;
/** Resume: turns, reconnects in each, and the pause between a drop and its reconnect (ms). */
const RESUME_TURNS = 5;
const RESUMES_PER_TURN = 12;
const RESUME_PAUSE_MS = 20;
/** Unattended completion: turns whose reader leaves after the first text delta. */
const UNATTENDED = 100;

// The upstream answers by the user message: 'stream' as fast as it can, 'first' a word every 10 ms
// (time to the first text: the scripted server shares this process with the clients, and a burst it
// writes in one go would hold back the client's reads as well), 'paced' a word every few ms (a turn
// still running when its reader leaves or comes back), 'wait' not before release().
const words = Array.from({ length: TOKENS }, (_, i) => `w${i} `).join('');
const PACED_WORDS = 300;
const paced = Array.from({ length: PACED_WORDS }, (_, i) => `p${i} `).join('');
const expectedWait = 'short answer after the wait';
let release: () => void = () => {};
const released = new Promise<void>((r) => (release = r));
const upstream = await startScriptedOpenAI(async (request) => {
  const message = request.messages.findLast((m) => m.role === 'user')?.content;
  if (message === 'wait') {
    await released;
    return { text: expectedWait };
  }
  if (message === 'paced') return { text: paced, delayMs: 4 };
  if (message === 'first') return { text: 'f0 f1 f2 ', delayMs: 10 };
  if (message === 'tools') {
    // Three calls (executed, repaired, blocked), then an answer: the turn the tracing part measures.
    if (request.messages.some((m) => m.role === 'tool')) return { text: toolAnswer };
    const calls = [
      { name: 'list_files', arguments: '{}' },
      { name: 'list_file', arguments: '{}' },
      { name: 'fetch_url', arguments: '{"url":"https://example.com"}' },
    ];
    return { toolCalls: calls };
  }
  if (message === BIG_MESSAGE) return { text: BIG_ANSWER };
  return { text: words };
});
const toolAnswer = Array.from({ length: 200 }, (_, i) => `t${i} `).join('');

/** The app's server process (bench/stream-server.ts), with `env` besides the upstream's. */
function startServer(env: Record<string, string> = {}, profile = false) {
  const execArgv = profile && args.includes('--cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${args[args.indexOf('--cpu-prof') + 1]}`] : [];
  return startAppProcess({ upstreamUrl: upstream.url, env: { STORE, ...env }, execArgv });
}
const { child: server, base } = await startServer({}, true);

const cpuMs = async () => {
  const u = await ask<NodeJS.CpuUsage>(server, 'cpu');
  return (u.user + u.system) / 1000;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

/** One request through either side: its wall time, and the time to the first text of the answer. */
async function timed(path: 'loop' | 'proxy', message = 'stream', at = base): Promise<{ wallMs: number; ttfbMs: number; body: string }> {
  const t0 = performance.now();
  const res =
    path === 'loop'
      ? await fetch(`${at}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) })
      : await fetch(`${base}/proxy`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: message }] }),
        });
  // The first text: a text_delta event from the loop, the first chunk with content from the proxy.
  const marker = path === 'loop' ? 'event: text_delta' : '"content":"';
  const roleChunk = '"content":""';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let body = '';
  let ttfbMs = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    body += decoder.decode(value, { stream: true });
    if (ttfbMs < 0 && message === 'first' && body.replaceAll(roleChunk, '').includes(marker)) ttfbMs = performance.now() - t0;
  }
  const wallMs = performance.now() - t0;
  if (path === 'loop' && !body.includes('event: done')) throw new Error('the loop stream did not finish');
  return { wallMs, ttfbMs, body };
}

// Part 1: overhead per token, interleaved rounds so drift hits both sides alike, after a warm-up
// that lets the JIT settle on both paths (a server streams many turns; the first few are not it).
for (let i = 0; i < 10; i++) {
  await timed('loop');
  await timed('proxy');
}
const sides = { loop: { wall: [] as number[], cpu: [] as number[] }, proxy: { wall: [] as number[], cpu: [] as number[] } };
let lastLoopBody = '';
for (let r = 0; r < ROUNDS; r++) {
  for (const side of r % 2 ? (['proxy', 'loop'] as const) : (['loop', 'proxy'] as const)) {
    const c0 = await cpuMs();
    const { wallMs, body } = await timed(side);
    const c1 = await cpuMs();
    sides[side].wall.push(wallMs);
    sides[side].cpu.push(c1 - c0);
    if (side === 'loop') lastLoopBody = body;
  }
}
// Time to the first text, on a turn whose upstream pauses 10 ms after each word (see the script above).
const ttfb = { loop: [] as number[], proxy: [] as number[] };
for (let r = 0; r < 20; r++) {
  for (const side of r % 2 ? (['proxy', 'loop'] as const) : (['loop', 'proxy'] as const)) ttfb[side].push((await timed(side, 'first')).ttfbMs);
}
const loopWall = median(sides.loop.wall);
const proxyWall = median(sides.proxy.wall);
const loopCpu = median(sides.loop.cpu);
const proxyCpu = median(sides.proxy.cpu);

// Part 1b: the loop with tracing off and on. The spans go to an OTLP endpoint in this process that
// reads each export and answers 200 (what a collector on the same host costs the server: the export).
const otlp = { requests: 0, bytes: 0 };
const collector = createServer((req, res) => {
  req.on('data', (d: Buffer) => {
    otlp.bytes += d.length;
  });
  req.on('end', () => {
    otlp.requests++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
const tracingServers = {
  off: await startServer(),
  // An export every 100 ms (not the default 5 s), so that the runs pay for the exports they cause.
  on: await startServer({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`, OTEL_BSP_SCHEDULE_DELAY: '100' }),
};
const tracingRuns: Array<Record<'off' | 'on', { wallMs: number; cpuMs: number }>> = [];
for (const side of ['off', 'on'] as const) for (let i = 0; i < 5; i++) await timed('loop', 'tools', tracingServers[side].base); // warm-up
// Within a run the sides take turns turn by turn (drift and the other processes on the machine hit
// both alike); each side's figure is the median over its turns: wall, and its server's CPU.
for (let r = 0; r < TRACING_RUNS; r++) {
  const samples = { off: { wall: [] as number[], cpu: [] as number[] }, on: { wall: [] as number[], cpu: [] as number[] } };
  for (let t = 0; t < TRACING_TURNS; t++) {
    for (const side of t % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const { child, base: at } = tracingServers[side];
      const c0 = await ask<NodeJS.CpuUsage>(child, 'cpu');
      samples[side].wall.push((await timed('loop', 'tools', at)).wallMs);
      const c1 = await ask<NodeJS.CpuUsage>(child, 'cpu');
      samples[side].cpu.push((c1.user + c1.system - c0.user - c0.system) / 1000);
    }
  }
  const figures = (side: 'off' | 'on') => ({ wallMs: median(samples[side].wall), cpuMs: median(samples[side].cpu) });
  tracingRuns.push({ off: figures('off'), on: figures('on') });
}
await sleep(200); // the last turn's export
for (const { child } of Object.values(tracingServers)) {
  child.send({ type: 'exit' });
  await new Promise((r) => child.once('exit', r));
}
collector.close();
const engineAlone = await tracingEngineCpu();

// The rows the 2,000-token turn left in agent_turn_events, once its last write has landed.
const lastTurnId = parseSse(lastLoopBody).events[0]!.data.turnId as string;
await sleep(500);
const logRowsPerTurn = await ask<number>(server, 'rows', { turnId: lastTurnId });

// A stream of a turn opened with node:http, so that it can be dropped at any moment.
interface OpenStream {
  /** Resolves with the next event, or null once the stream has ended. */
  next(): Promise<SseEvent | null>;
  drop(): void;
}
function openStream(url: string, lastEventId?: number): OpenStream {
  const queue: Array<SseEvent | null> = [];
  let wake: (() => void) | null = null;
  let buffer = '';
  const push = (e: SseEvent | null) => {
    queue.push(e);
    wake?.();
  };
  const req: ClientRequest = get(`${base}${url}`, { headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) } }, (res) => {
    res.on('error', () => push(null)); // a dropped stream
    if (res.statusCode !== 200) {
      res.resume();
      return push(null);
    }
    res.setEncoding('utf8');
    res.on('data', (text: string) => {
      buffer += text;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const { event } = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) push(event);
      }
    });
    res.on('end', () => push(null));
  });
  req.on('error', () => push(null));
  return {
    async next() {
      while (queue.length === 0) await new Promise<void>((r) => (wake = r));
      wake = null;
      return queue.shift()!;
    },
    drop: () => req.destroy(),
  };
}
/**
 * POSTs JSON on a connection of its own and calls `onText` with the response body as it comes; resolves
 * with the status when the body has ended. Not fetch: its pool may reuse a connection the server is
 * just closing for idleness, and a POST that meets that reset is not retried (many at once, that happens).
 */
function post(path: string, body: unknown, onText: (text: string) => void = () => {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', onText);
      res.on('end', () => resolve(res.statusCode!));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
async function newTurn(message: string): Promise<string> {
  let text = '';
  const status = await post('/v1/turns', { message }, (t) => (text += t));
  if (status !== 201) throw new Error(`POST /v1/turns answered ${status}: ${text}`);
  return (JSON.parse(text) as { streamUrl: string }).streamUrl;
}

// Part 1b: resume. A paced turn is read for a few events, dropped, and reconnected with Last-Event-ID
// while it runs: the time from the reconnect's request to its first replayed event. The first replayed
// event must be the one after the last seen (no gap, no duplicate).
const resumeMs: number[] = [];
let resumeGaps = 0;
for (let t = 0; t < RESUME_TURNS; t++) {
  const url = await newTurn('paced');
  let last = 0;
  let stream = openStream(url);
  for (let i = 0; i < 3; i++) last = Number((await stream.next())!.id);
  stream.drop();
  for (let r = 0; r < RESUMES_PER_TURN; r++) {
    await sleep(RESUME_PAUSE_MS);
    const t0 = performance.now();
    stream = openStream(url, last);
    const first = await stream.next();
    if (!first) break; // the turn ended and was seen to its end: 204
    resumeMs.push(performance.now() - t0);
    if (Number(first.id) !== last + 1) resumeGaps++;
    last = Number(first.id);
    let ended = first.event === 'done';
    for (let i = 0; i < 2 + (r % 5) && !ended; i++) {
      const e = await stream.next();
      if (!e) break;
      last = Number(e.id);
      ended = e.event === 'done';
    }
    stream.drop();
    if (ended) break;
  }
}

// Part 1c: unattended completion. Readers leave after the first text delta; each turn is then read
// again from its start (a reload): finished `completed`, with the whole answer?
const urls = await Promise.all(Array.from({ length: UNATTENDED }, () => newTurn('paced')));
let leftEarly = 0;
await Promise.all(
  urls.map(async (url) => {
    const stream = openStream(url);
    for (let e = await stream.next(); e; e = await stream.next()) {
      if (e.event === 'text_delta') break;
      if (e.event === 'done') return stream.drop();
    }
    leftEarly++;
    stream.drop();
  }),
);
const finished = await Promise.all(
  urls.map(async (url) => {
    const stream = openStream(url);
    let text = '';
    for (let e = await stream.next(); e; e = await stream.next()) {
      if (e.event === 'text_delta') text += e.data.text;
      if (e.event === 'done') return e.data.reason === 'completed' && text === paced;
    }
    return false;
  }),
);
const unattendedCompletion = finished.filter(Boolean).length / UNATTENDED;

// GET /health on one kept-alive connection, one request every 10 ms (a probe, not a load of its own):
// the latency a load balancer's health check sees. Sampled for `ms` (at least 50 requests), on the
// idle server and again under load.
function health(healthAgent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    get(`${base}/health`, { agent: healthAgent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`GET /health answered ${res.statusCode}`))));
    }).on('error', reject);
  });
}
async function sampleHealth(ms: number): Promise<number[]> {
  // A connection of its own each time: one left idle between samplings is closed by the server's keep-alive timeout.
  const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until || latencies.length < 50) {
    const next = performance.now() + 10;
    latencies.push(await health(healthAgent));
    await sleep(Math.max(0, next - performance.now()));
  }
  healthAgent.destroy();
  return latencies;
}
const healthIdle = await sampleHealth(1_000);

// Part 2: STREAMS turns open at once (the upstream holds every answer back), keepalives running.
let opened = 0;
let lostEvents = resumeGaps;
let keepalives = 0;
let healthLoaded: number[] = [];
let heapDelta = 0;
let rssDelta = 0;
if (STREAMS > 0) {
  const memBefore = await ask<NodeJS.MemoryUsage>(server, 'mem');
  let allOpen: () => void = () => {};
  const allOpenP = new Promise<void>((r) => (allOpen = r));
  const turns = Array.from({ length: STREAMS }, async () => {
    let raw = '';
    let counted = false;
    await post('/v1/chat', { message: 'wait' }, (text) => {
      raw += text;
      if (!counted && raw.includes('event: turn_start')) {
        counted = true;
        if (++opened === STREAMS) allOpen();
      }
    });
    return parseSse(raw);
  });
  await allOpenP;
  // Keepalives run on every stream meanwhile; /health is asked throughout.
  healthLoaded = await sampleHealth(HOLD_MS);
  const memOpen = await ask<NodeJS.MemoryUsage>(server, 'mem');
  release();
  const streams = await Promise.all(turns);

  for (const s of streams) {
    const ids = s.events.map((e) => Number(e.id));
    const contiguous = ids.every((id, i) => id === i + 1);
    const text = s.events
      .filter((e) => e.event === 'text_delta')
      .map((e) => e.data.text)
      .join('');
    // Deltas that arrive in one network read are merged, so count what must be there: the start,
    // every character of the answer, the end, and no gap in the event ids.
    lostEvents +=
      (s.events[0]?.event === 'turn_start' ? 0 : 1) + (contiguous ? 0 : 1) + (text === expectedWait ? 0 : 1) + (s.events.at(-1)?.event === 'done' ? 0 : 1);
    keepalives += s.comments.filter((c) => c === 'keepalive').length;
  }
  heapDelta = memOpen.heapUsed + memOpen.external - (memBefore.heapUsed + memBefore.external);
  rssDelta = memOpen.rss - memBefore.rss;
}

// Part 3: readers that never read (bench/stalled-readers.ts): 20 of a 20 MB turn, 10 of a gateway answer.
const stalled = args.includes('--no-stalled') ? null : await measureStalledReaders({ child: server, base, upstream });

const result = {
  store: STORE,
  tokens: TOKENS,
  rounds: ROUNDS,
  loopWallMs: round(loopWall),
  proxyWallMs: round(proxyWall),
  wallRatio: round(loopWall / proxyWall, 3),
  loopCpuUsPerToken: round((loopCpu * 1000) / TOKENS, 2),
  proxyCpuUsPerToken: round((proxyCpu * 1000) / TOKENS, 2),
  cpuRatio: round(loopCpu / proxyCpu, 3),
  ttfbOverheadMs: round(median(ttfb.loop) - median(ttfb.proxy), 2),
  logRowsPerTurn,
  resumes: resumeMs.length,
  resumeP50Ms: round(percentile(resumeMs, 50), 2),
  resumeP99Ms: round(percentile(resumeMs, 99), 2),
  unattendedCompletion,
  unattendedLeftEarly: leftEarly,
  openStreams: opened,
  memPerStreamKB: STREAMS ? round(heapDelta / STREAMS / 1024, 1) : null,
  rssPerStreamKB: STREAMS ? round(rssDelta / STREAMS / 1024, 1) : null,
  keepalivesPerStream: STREAMS ? round(keepalives / STREAMS, 1) : null,
  lostEvents,
  healthRequests: healthLoaded.length,
  healthP50Ms: STREAMS ? round(percentile(healthLoaded, 50), 2) : null,
  healthP99Ms: STREAMS ? round(percentile(healthLoaded, 99), 2) : null,
  healthIdleP50Ms: round(percentile(healthIdle, 50), 2),
  healthIdleP99Ms: round(percentile(healthIdle, 99), 2),
  tracing: tracingSummary(),
  stalled,
};

/** Off and on per run, their medians, the ratio on/off and the spread of the off runs (max − min over the median). */
function tracingSummary() {
  const of = (side: 'off' | 'on', k: 'wallMs' | 'cpuMs') => tracingRuns.map((r) => r[side][k]);
  const spread = (xs: number[]) => round(((Math.max(...xs) - Math.min(...xs)) / median(xs)) * 100, 1);
  const m = (side: 'off' | 'on', k: 'wallMs' | 'cpuMs') => median(of(side, k));
  return {
    runs: tracingRuns.map((r) => ({
      off: { wallMs: round(r.off.wallMs, 2), cpuMs: round(r.off.cpuMs, 2) },
      on: { wallMs: round(r.on.wallMs, 2), cpuMs: round(r.on.cpuMs, 2) },
    })),
    turnsPerRun: TRACING_TURNS,
    wallRatio: round(m('on', 'wallMs') / m('off', 'wallMs'), 3),
    cpuRatio: round(m('on', 'cpuMs') / m('off', 'cpuMs'), 3),
    offWallSpreadPct: spread(of('off', 'wallMs')),
    offCpuSpreadPct: spread(of('off', 'cpuMs')),
    onWallSpreadPct: spread(of('on', 'wallMs')),
    exports: otlp.requests,
    exportedKB: round(otlp.bytes / 1024, 1),
    engineCpuMsPerTurn: round(engineAlone.cpuMsPerTurn, 3),
    engineDropped: engineAlone.dropped,
    /** The engine's CPU per turn against the loop's (off), as a ratio: what tracing adds when nothing else moves. */
    engineRatio: round(1 + engineAlone.cpuMsPerTurn / m('off', 'cpuMs'), 3),
  };
}

console.log(`loop overhead, ${TOKENS} tokens, median of ${ROUNDS} interleaved rounds (store: ${STORE})`);
console.log(`  wall  loop ${result.loopWallMs} ms   proxy ${result.proxyWallMs} ms   ratio ${result.wallRatio}x (target <= 1.10)`);
console.log(`  cpu   loop ${result.loopCpuUsPerToken} us/token   proxy ${result.proxyCpuUsPerToken} us/token   ratio ${result.cpuRatio}x (target <= 1.5)`);
console.log(
  `  first text delta: ${result.ttfbOverheadMs} ms later than through the proxy (p50: loop ${round(median(ttfb.loop), 2)} ms, proxy ${round(median(ttfb.proxy), 2)} ms)`,
);
const t = result.tracing;
console.log(
  `tracing off vs on (to a local OTLP endpoint), a turn with 3 calls and a 200-word answer (6 spans), ${tracingRuns.length} interleaved runs of ${TRACING_TURNS} turns:`,
);
for (const [i, r] of t.runs.entries()) {
  console.log(
    `  run ${i + 1}: off ${r.off.wallMs} ms wall, ${r.off.cpuMs} ms server CPU per turn   on ${r.on.wallMs} ms wall, ${r.on.cpuMs} ms server CPU per turn`,
  );
}
console.log(
  `  on/off: wall ${t.wallRatio}x, CPU ${t.cpuRatio}x (target <= 1.05); spread of the runs: off wall ${t.offWallSpreadPct}%, off CPU ${t.offCpuSpreadPct}%, on wall ${t.onWallSpreadPct}%; ${t.exports} exports, ${t.exportedKB} KB`,
);
console.log(
  `  the tracing engine alone (this process, 2,000 turns of 6 spans, exported): ${t.engineCpuMsPerTurn} ms CPU per turn, ${t.engineDropped} dropped; against the loop's ${round(median(tracingRuns.map((r) => r.off.cpuMs)), 2)} ms (off): ${t.engineRatio}x`,
);
console.log(`turn log: ${logRowsPerTurn} rows in agent_turn_events for the ${TOKENS}-token turn`);
console.log(
  `resume with Last-Event-ID mid-turn: p50 ${result.resumeP50Ms} ms, p99 ${result.resumeP99Ms} ms to the first replayed event over ${resumeMs.length} reconnects (${resumeGaps} gaps)`,
);
console.log(
  `unattended: ${finished.filter(Boolean).length}/${UNATTENDED} turns finished completed with the whole answer after their reader left (${leftEarly} left before done)`,
);
if (STREAMS > 0) {
  console.log(`concurrency: ${result.openStreams}/${STREAMS} streams open at once, ${result.keepalivesPerStream} keepalives each`);
  console.log(`  memory per open stream: ${result.memPerStreamKB} KB heap+external, ${result.rssPerStreamKB} KB RSS; lost events: ${lostEvents}`);
  console.log(
    `GET /health with ${result.openStreams} streams open: p50 ${result.healthP50Ms} ms, p99 ${result.healthP99Ms} ms over ${result.healthRequests} requests (idle server: p50 ${result.healthIdleP50Ms} ms, p99 ${result.healthIdleP99Ms} ms)`,
  );
}
if (stalled) {
  console.log(
    `stalled readers (raw sockets that never read): a ${stalled.answerMB} MB turn read by one client: RSS +${stalled.turnAloneRssGrowthMB} MB; with ${stalled.turnReaders} stalled readers beside it: +${stalled.turnRssGrowthMB} MB; ${stalled.gatewayClients} gateway clients of a ${stalled.answerMB} MB answer: RSS +${stalled.gatewayRssGrowthMB} MB, the upstream wrote ${stalled.gatewayUpstreamSentMB} MB of it per client`,
  );
}
if (json) console.log(JSON.stringify(result));

server.send({ type: 'exit' });
await new Promise((r) => server.once('exit', r));
await upstream.close();
process.exit(0);

function round(x: number, digits = 1) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
