// bench:abuse — what one hostile request costs the server (issue 18): for each class of request a
// client can send, the answer's time and size, and the worst GET /health latency while it is served
// (a probe every 5 ms on its own connection: what every other user of the process waits). Then readers
// that never read (bench/stalled-readers.ts): the server's RSS growth. The app runs in its own process
// (bench/stream-server.ts, as npm start wires it, the memory store), so its event loop is what /health
// measures. Two classes are a hostile upstream rather than client: a streamed answer of 48 MB (stopped at
// MAX_COMPLETION_BYTES) and a call of 3 MB (past the gate's argument limit), read to their end.
//
//   npm run bench:abuse -- [--json] [--runs 3]
import { Agent, request } from 'node:http';
import { startScriptedOpenAI } from '../test/support/scripted-openai.ts';
import { ask, startAppProcess } from './app-process.ts';
import { BIG_ANSWER, BIG_MESSAGE, measureStalledReaders } from './stalled-readers.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const RUNS = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 3;

/** What the two hostile-upstream classes ask for (the user message), and what the upstream streams then. */
const LONG_STREAM = 'stream 48 MB';
const LONG_CALL = 'call with 3 MB of arguments';
const upstream = await startScriptedOpenAI((req) => {
  const message = req.messages.findLast((m) => m.role === 'user')?.content;
  if (message === LONG_STREAM) return { text: `${'y'.repeat(10 * 1024 - 1)} `.repeat(4_800) };
  if (message === LONG_CALL) return { toolCalls: [{ name: 't', arguments: JSON.stringify({ content: 'z'.repeat(3_000_000) }) }], argChunk: 64 * 1024 };
  return { text: message === BIG_MESSAGE ? BIG_ANSWER : 'fine' };
});
const { child, base } = await startAppProcess({ upstreamUrl: upstream.url });
const { hostname, port } = new URL(base);

const members = (item: string, count: number) => new Array(count).fill(item).join(',');
const user = '{"id":"m1","role":"user","parts":[{"type":"text","text":"hello"}]}';
const gateway = (fields: string) => `{"model":"bench",${fields}}`;

interface Class {
  name: string;
  path: string;
  body: () => string;
  /** A streamed answer read to its end (otherwise a stream is timed to its headers). */
  read?: boolean;
}
const streamed = (message: string) =>
  gateway(
    `"stream":true,"messages":[{"role":"user","content":"${message}"}],"tools":[{"type":"function","function":{"name":"t","parameters":{"type":"object"}}}]`,
  );

const classes: Class[] = [
  // The baseline, in the same run: a small body refused, on this machine as it is now.
  { name: 'baseline: turns, {} (a 2-byte body refused)', path: '/v1/turns', body: () => '{}' },
  { name: 'ui/chat: 4 MB, 1.4M {} messages, the last invalid', path: '/v1/ui/chat', body: () => `{"id":"a","messages":[${members('{}', 1_398_000)},{}]}` },
  {
    name: 'ui/chat: 4 MB, 1.4M {} messages, then a user message (accepted: time to the stream)',
    path: '/v1/ui/chat',
    body: () => `{"id":"chat-${Math.random()}","messages":[${members('{}', 1_398_000)},${user}],"trigger":"submit-message"}`,
  },
  { name: 'gateway: 8 MB, 2.79M {} messages', path: '/v1/chat/completions', body: () => gateway(`"messages":[${members('{}', 2_790_000)}]`) },
  { name: 'gateway: 10,000 messages, each invalid', path: '/v1/chat/completions', body: () => gateway(`"messages":[${members('{"content":"x"}', 10_000)}]`) },
  {
    name: 'gateway: 8 MB, 2.7M {} in a field it forwards unread',
    path: '/v1/chat/completions',
    body: () => gateway(`"messages":[{"role":"user","content":"hi"}],"metadata":{"x":[${members('{}', 2_700_000)}]}`),
  },
  {
    name: 'gateway: a 2 MB tool name in tool_choice',
    path: '/v1/chat/completions',
    body: () =>
      gateway(
        `"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"t"}}],"tool_choice":{"type":"function","function":{"name":"${'n'.repeat(2 * 1024 * 1024)}"}}`,
      ),
  },
  { name: 'turns: 256 KB of [ (nesting never closed)', path: '/v1/turns', body: () => '['.repeat(256 * 1024 - 1) },
  {
    name: 'gateway, hostile upstream: a 48 MB streamed answer (stopped at 32 MB)',
    path: '/v1/chat/completions',
    body: () => streamed(LONG_STREAM),
    read: true,
  },
  {
    name: 'gateway, hostile upstream: a call of 3 MB arguments streamed, re-asked (GATEWAY_RETRIES: 2)',
    path: '/v1/chat/completions',
    body: () => streamed(LONG_CALL),
    read: true,
  },
];

function post(path: string, body: string, read = false): Promise<{ status: number; bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      { hostname, port, path, method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const ms = performance.now() - t0;
        let bytes = 0;
        // A stream (the accepted useChat body) is timed to its headers and then dropped.
        if (!read && res.headers['content-type']?.includes('event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode!, bytes: 0, ms });
          return;
        }
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode!, bytes, ms: performance.now() - t0 }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** GET /health every 5 ms until `stop` resolves: the worst latency seen. */
async function worstHealth(stop: Promise<unknown>): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let done = false;
  void stop.finally(() => (done = true));
  let worst = 0;
  while (!done) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) =>
      request({ hostname, port, path: '/health', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      })
        .on('error', reject)
        .end(),
    );
    worst = Math.max(worst, performance.now() - t0);
    await new Promise((r) => setTimeout(r, 5));
  }
  agent.destroy();
  return worst;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

const cpuMs = async () => {
  const u = await ask<NodeJS.CpuUsage>(child, 'cpu');
  return (u.user + u.system) / 1000;
};

const rows: Array<{
  name: string;
  bodyMB: number;
  status: number;
  answerBytes: number;
  answerMs: number;
  serverCpuMs: number;
  worstHealthMs: number;
  runs: number;
}> = [];
for (const c of classes) {
  const body = c.body();
  const times: number[] = [];
  const cpus: number[] = [];
  const healths: number[] = [];
  let last = { status: 0, bytes: 0, ms: 0 };
  for (let i = 0; i < RUNS; i++) {
    // Alone: the answer's time and the server's CPU over it (nothing else asks the server meanwhile).
    const c0 = await cpuMs();
    const a = await post(c.path, body, c.read);
    cpus.push((await cpuMs()) - c0);
    times.push(a.ms);
    last = a;
    // Again, with GET /health probed every 5 ms meanwhile: the worst wait another user sees.
    const probed = post(c.path, body, c.read);
    const [, h] = await Promise.all([probed, worstHealth(probed)]);
    healths.push(h);
  }
  rows.push({
    name: c.name,
    bodyMB: round(Buffer.byteLength(body) / 1024 / 1024, 2),
    status: last.status,
    answerBytes: last.bytes,
    answerMs: round(median(times)),
    serverCpuMs: round(median(cpus)),
    worstHealthMs: round(Math.max(...healths)),
    runs: RUNS,
  });
}
const stalled = await measureStalledReaders({ child, base, upstream });
const memory = await ask<NodeJS.MemoryUsage>(child, 'mem');

console.log(
  `hostile requests, each ${RUNS} times alone (answer time and server CPU: medians) and ${RUNS} times with GET /health probed every 5 ms (the worst latency of all)`,
);
for (const r of rows) {
  console.log(
    `  ${r.name} (${r.bodyMB} MB): ${r.status} in ${r.answerMs} ms (server CPU ${r.serverCpuMs} ms), ${r.answerBytes} bytes; worst /health meanwhile ${r.worstHealthMs} ms`,
  );
}
console.log(
  `stalled readers: a ${stalled.answerMB} MB turn read by one client: RSS +${stalled.turnAloneRssGrowthMB} MB; with ${stalled.turnReaders} stalled readers beside it: +${stalled.turnRssGrowthMB} MB; ${stalled.gatewayClients} stalled gateway clients of a ${stalled.answerMB} MB answer: RSS +${stalled.gatewayRssGrowthMB} MB, the upstream wrote ${stalled.gatewayUpstreamSentMB} MB of it per client`,
);
console.log(`server RSS at the end: ${round(memory.rss / 1024 / 1024)} MB`);
if (json) console.log(JSON.stringify({ rows, stalled, rssMB: round(memory.rss / 1024 / 1024) }));

child.send({ type: 'exit' });
await new Promise((r) => child.once('exit', r));
await upstream.close();
process.exit(0);
