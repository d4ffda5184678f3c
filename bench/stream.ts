// bench:stream — what the loop costs on the streaming path, how many open turns one Node process
// holds, and whether it still answers GET /health while they are open (latency under that load
// against the same requests on the idle server). Ratios against a baseline measured in the same run
// (these machines are noisy).
//
//   npm run bench:stream -- [--json] [--tokens 2000] [--rounds 15] [--streams 2000] [--cpu-prof DIR]
// --cpu-prof writes the server process's V8 CPU profile to DIR (open it in Chrome DevTools).
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, get } from 'node:http';
import { startScriptedOpenAI } from '../test/support/scripted-openai.ts';
import { parseSse } from '../test/support/sse-client.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const json = args.includes('--json');
const TOKENS = opt('tokens', 2000);
const ROUNDS = opt('rounds', 15);
const STREAMS = opt('streams', 2000);
/** How long the streams are held open (keepalives running, /health sampled), ms. */
const HOLD_MS = 3_000;

const words = Array.from({ length: TOKENS }, (_, i) => `w${i} `).join('');
let release: () => void = () => {};
let released = new Promise<void>((r) => (release = r));
let stallMode = false;
const upstream = await startScriptedOpenAI(async () => {
  if (stallMode) await released;
  return { text: stallMode ? 'short answer after the wait' : words };
});

const server = fork(new URL('./stream-server.ts', import.meta.url).pathname, [], {
  execArgv: ['--import', 'tsx', '--expose-gc', '--max-old-space-size=4096', ...(args.includes('--cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${args[args.indexOf('--cpu-prof') + 1]}`] : [])],
  env: { ...process.env, UPSTREAM_URL: upstream.url, KEEPALIVE_MS: '1000' },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const port = await new Promise<number>((resolve) => server.once('message', (m: any) => resolve(m.port)));
const base = `http://127.0.0.1:${port}`;

function ask<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: any) => {
      if (m.type === type) {
        child.off('message', on);
        resolve(m.usage);
      }
    };
    child.on('message', on);
    child.send({ type });
  });
}

const cpuMs = async () => {
  const u = await ask<NodeJS.CpuUsage>(server, 'cpu');
  return (u.user + u.system) / 1000;
};

async function timed(path: 'loop' | 'proxy'): Promise<{ wallMs: number; bytes: number }> {
  const t0 = performance.now();
  const res =
    path === 'loop'
      ? await fetch(`${base}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'stream' }) })
      : await fetch(`${base}/proxy`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'stream' }] }) });
  const body = await res.text();
  const wallMs = performance.now() - t0;
  if (path === 'loop' && !body.includes('event: done')) throw new Error('the loop stream did not finish');
  return { wallMs, bytes: body.length };
}

// Part 1: overhead per token, interleaved rounds so drift hits both sides alike.
for (let i = 0; i < 3; i++) {
  await timed('loop');
  await timed('proxy');
}
const sides = { loop: { wall: [] as number[], cpu: [] as number[] }, proxy: { wall: [] as number[], cpu: [] as number[] } };
for (let r = 0; r < ROUNDS; r++) {
  for (const side of r % 2 ? (['proxy', 'loop'] as const) : (['loop', 'proxy'] as const)) {
    const c0 = await cpuMs();
    const { wallMs } = await timed(side);
    const c1 = await cpuMs();
    sides[side].wall.push(wallMs);
    sides[side].cpu.push(c1 - c0);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loopWall = median(sides.loop.wall);
const proxyWall = median(sides.proxy.wall);
const loopCpu = median(sides.loop.cpu);
const proxyCpu = median(sides.proxy.cpu);

// GET /health on one kept-alive connection, one request every 10 ms (a probe, not a load of its own):
// the latency a load balancer's health check sees. Sampled for `ms` (at least 50 requests), on the
// idle server and again under load.
const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
function health(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    get(`${base}/health`, { agent: healthAgent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`GET /health answered ${res.statusCode}`))));
    }).on('error', reject);
  });
}
async function sampleHealth(ms: number): Promise<number[]> {
  const latencies: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until || latencies.length < 50) {
    const next = performance.now() + 10;
    latencies.push(await health());
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  return latencies;
}
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const healthIdle = await sampleHealth(1_000);

// Part 2: STREAMS turns open at once (the upstream holds every answer back), keepalives running.
stallMode = true;
released = new Promise<void>((r) => (release = r));
const memBefore = await ask<NodeJS.MemoryUsage>(server, 'mem');
let opened = 0;
let allOpen: () => void = () => {};
const allOpenP = new Promise<void>((r) => (allOpen = r));
const turns = Array.from({ length: STREAMS }, async () => {
  const res = await fetch(`${base}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'wait' }) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let raw = '';
  let counted = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    raw += decoder.decode(value, { stream: true });
    if (!counted && raw.includes('event: turn_start')) {
      counted = true;
      if (++opened === STREAMS) allOpen();
    }
  }
  return parseSse(raw);
});
await allOpenP;
// Keepalives run on every stream meanwhile; /health is asked throughout.
const healthLoaded = await sampleHealth(HOLD_MS);
const memOpen = await ask<NodeJS.MemoryUsage>(server, 'mem');
release();
const streams = await Promise.all(turns);

const expectedText = 'short answer after the wait';
let lostEvents = 0;
let keepalives = 0;
for (const s of streams) {
  const ids = s.events.map((e) => Number(e.id));
  const contiguous = ids.every((id, i) => id === i + 1);
  const text = s.events.filter((e) => e.event === 'text_delta').map((e) => e.data.text).join('');
  // Deltas that arrive in one network read are merged, so count what must be there: the start,
  // every character of the answer, the end, and no gap in the event ids.
  lostEvents += (s.events[0]?.event === 'turn_start' ? 0 : 1) + (contiguous ? 0 : 1) + (text === expectedText ? 0 : 1) + (s.events.at(-1)?.event === 'done' ? 0 : 1);
  keepalives += s.comments.filter((c) => c === 'keepalive').length;
}
const heapDelta = memOpen.heapUsed + memOpen.external - (memBefore.heapUsed + memBefore.external);
const rssDelta = memOpen.rss - memBefore.rss;

const result = {
  tokens: TOKENS,
  rounds: ROUNDS,
  loopWallMs: round(loopWall),
  proxyWallMs: round(proxyWall),
  wallRatio: round(loopWall / proxyWall, 3),
  loopCpuUsPerToken: round((loopCpu * 1000) / TOKENS, 2),
  proxyCpuUsPerToken: round((proxyCpu * 1000) / TOKENS, 2),
  cpuRatio: round(loopCpu / proxyCpu, 3),
  openStreams: opened,
  memPerStreamKB: round(heapDelta / STREAMS / 1024, 1),
  rssPerStreamKB: round(rssDelta / STREAMS / 1024, 1),
  keepalivesPerStream: round(keepalives / STREAMS, 1),
  lostEvents,
  healthRequests: healthLoaded.length,
  healthP50Ms: round(percentile(healthLoaded, 50), 2),
  healthP99Ms: round(percentile(healthLoaded, 99), 2),
  healthIdleP50Ms: round(percentile(healthIdle, 50), 2),
  healthIdleP99Ms: round(percentile(healthIdle, 99), 2),
};

console.log(`loop overhead, ${TOKENS} tokens, median of ${ROUNDS} interleaved rounds`);
console.log(`  wall  loop ${result.loopWallMs} ms   proxy ${result.proxyWallMs} ms   ratio ${result.wallRatio}x (target <= 1.10)`);
console.log(`  cpu   loop ${result.loopCpuUsPerToken} us/token   proxy ${result.proxyCpuUsPerToken} us/token   ratio ${result.cpuRatio}x (target <= 1.5)`);
console.log(`concurrency: ${result.openStreams}/${STREAMS} streams open at once, ${result.keepalivesPerStream} keepalives each`);
console.log(`  memory per open stream: ${result.memPerStreamKB} KB heap+external, ${result.rssPerStreamKB} KB RSS; lost events: ${lostEvents}`);
console.log(`GET /health with ${result.openStreams} streams open: p50 ${result.healthP50Ms} ms, p99 ${result.healthP99Ms} ms over ${result.healthRequests} requests (idle server: p50 ${result.healthIdleP50Ms} ms, p99 ${result.healthIdleP99Ms} ms)`);
if (json) console.log(JSON.stringify(result));

healthAgent.destroy();
server.send({ type: 'exit' });
await upstream.close();
process.exit(0);

function round(x: number, digits = 1) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
