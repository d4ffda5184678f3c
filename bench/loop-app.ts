// bench:loop-app — the loop's own CPU a turn, apart from sockets and the upstream: the app's POST /v1/chat
// served by app.fetch, its model's upstream a canned streamed answer read --read bytes at a time (a Node
// server's undici reads of a fast upstream are ~60 KB), the in-memory store, so only the app's own work
// counts. bench:stream measures the same turn with the sockets and against a bare proxy; this one says
// where the app's share goes, with --cpu-prof on the process (`node --import tsx --cpu-prof …`).
//
// With --against DIR, another checkout's app (a `git archive` tree given this node_modules) runs in the
// same process, the turns alternating, so the machine's load hits both alike; the streams' bytes are
// compared first (ids masked). --alloc samples what a turn allocates (V8's sampling heap profiler; one
// tree, without --against).
//
//   npm run bench:loop-app -- [--tokens 2000] [--rounds 400] [--read 65536] [--against DIR] [--alloc] [--json]
import { Session } from 'node:inspector';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1]! : fallback);
const TOKENS = Number(opt('tokens', '2000'));
const ROUNDS = Number(opt('rounds', '400'));
const READ = Number(opt('read', '65536'));
const json = args.includes('--json');
const trees = [resolve(import.meta.dirname, '..'), ...(args.includes('--against') ? [resolve(opt('against', ''))] : [])];
if (args.includes('--alloc') && trees.length > 1) throw new Error('--alloc samples one tree: leave out --against');

// The answer as the scripted upstream streams it: a role chunk, a chunk a word, the finish, usage, [DONE].
const chunk = (choices: unknown[], extra = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1764200000, model: 'bench', system_fingerprint: 'fp_scripted', choices, ...extra })}\n\n`;
const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
let answer = delta({ role: 'assistant', content: '' });
for (let i = 0; i < TOKENS; i++) answer += delta({ content: `w${i} ` });
answer += `${delta({}, 'stop')}${chunk([], { usage: { prompt_tokens: 10, completion_tokens: TOKENS, total_tokens: TOKENS + 10 } })}data: [DONE]\n\n`;
const bytes = new TextEncoder().encode(answer);
const upstream = (async () => {
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, at + READ));
      at += READ;
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}) as typeof fetch;

type App = { fetch: (request: Request) => Response | Promise<Response> };
const apps: App[] = [];
for (const tree of trees) {
  const { loadConfig } = await import(`${tree}/src/config.ts`);
  const { createApp } = await import(`${tree}/src/http/app.ts`);
  const { noAuth } = await import(`${tree}/src/http/deps.ts`);
  const { createModel } = await import(`${tree}/src/model/index.ts`);
  const { createMemoryStorage } = await import(`${tree}/src/store/memory.ts`);
  const { defaultTools } = await import(`${tree}/functions/index.ts`);
  const config = loadConfig({
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    MODEL: 'bench',
    KEEPALIVE_MS: '10000',
    TIME_BUDGET_MS: '600000',
  });
  // Activity rows are counted and dropped, as in bench/stream-server.ts.
  let rows = 0;
  const activity = { recordCall: () => void rows++, recordTurn: () => void rows++, flush: async () => ({ written: rows, dropped: 0 }) };
  apps.push(
    createApp({
      config,
      model: createModel(config, { fetch: upstream }),
      storage: createMemoryStorage(),
      activity,
      tools: defaultTools,
      auth: noAuth,
      singleInstance: true,
    }),
  );
}

/** One turn through `app`: the whole stream, read as a client reads it. */
async function turn(app: App): Promise<string> {
  const res = await app.fetch(
    new Request('http://127.0.0.1/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', host: '127.0.0.1' },
      body: '{"message":"stream"}',
    }),
  );
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  if (!text.includes('event: done')) throw new Error(`the turn did not finish: ${text.slice(-300)}`);
  return text;
}

const masked = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ID');
const first = await Promise.all(apps.map(async (app) => masked(await turn(app))));
const sameBytes = first.every((text) => text === first[0]);
for (let i = 0; i < 200; i++) for (const app of apps) await turn(app); // the JIT settles

interface SampleNode {
  selfSize: number;
  children: SampleNode[];
}
let session: Session | undefined;
const post = <T>(method: string, params: object = {}) =>
  new Promise<T>((ok, fail) => session!.post(method, params, (err: Error | null, result: unknown) => (err ? fail(err) : ok(result as T))));
if (args.includes('--alloc')) {
  session = new Session();
  session.connect();
  await post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}
const cpu = apps.map(() => [] as number[]);
for (let r = 0; r < ROUNDS; r++) {
  for (const k of r % 2 ? [...apps.keys()].reverse() : [...apps.keys()]) {
    const before = process.cpuUsage();
    await turn(apps[k]!);
    const used = process.cpuUsage(before);
    cpu[k]!.push((used.user + used.system) / 1000);
  }
}
let allocatedKB: number | undefined;
if (session) {
  const { profile } = await post<{ profile: { head: SampleNode } }>('HeapProfiler.stopSampling');
  let bytesSampled = 0;
  const walk = (node: SampleNode) => {
    bytesSampled += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  allocatedKB = Math.round(bytesSampled / ROUNDS / 1024);
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const result = {
  tokens: TOKENS,
  rounds: ROUNDS,
  readBytes: READ,
  sameBytes,
  trees: trees.map((tree, k) => ({ tree, cpuMsMean: +mean(cpu[k]!).toFixed(3), cpuMsMedian: +median(cpu[k]!).toFixed(3) })),
  ...(trees.length === 2 ? { againstRatio: +(mean(cpu[1]!) / mean(cpu[0]!)).toFixed(3) } : {}),
  ...(allocatedKB !== undefined ? { allocatedKBPerTurn: allocatedKB } : {}),
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(`the app's CPU a ${TOKENS}-token turn, in process (process CPU, ${ROUNDS} turns, reads of ${READ} bytes):`);
  for (const t of result.trees) console.log(`  ${t.tree}: mean ${t.cpuMsMean} ms, median ${t.cpuMsMedian} ms`);
  if (result.againstRatio !== undefined)
    console.log(`  --against ÷ this tree: ${result.againstRatio}x; the streams' bytes ${sameBytes ? 'the same' : 'DIFFER'}`);
  if (allocatedKB !== undefined) console.log(`  allocated a turn (sampled): ${allocatedKB} KB`);
}
process.exit(0);
