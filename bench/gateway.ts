// bench:gateway — what the gateway costs a client against calling the upstream directly (the same
// scripted stream, one run, interleaved so drift hits both sides alike), and what it does for the
// calls of the tool-calls corpus without a retry.
//
//   npm run bench:gateway -- [--json] [--tokens 2000] [--rounds 15] [--requests 300] [--calls 300]
//                            [--corpus ../shared/bench/tool-calls.dev.jsonl] [--protocols-only] [--cpu-prof DIR]
//                            [--protocol-configs chat,messages/chat,messages/anthropic,responses/chat,responses/responses]
//                            [--ttfb-only [--sides gateway,proxy,nodeProxy,direct]] [--warmup 1000]
//                            [--calls-only [--no-protocols]]
//
// Two bare proxies in the gateway's server process are the baselines: `proxy`, over fetch in the same
// Hono server (issue 34's goals are set against it), and `nodeProxy`, node:http and undici's request()
// with Node streams end to end (the hop's physical limit in Node).
// 1. time to first byte: the first body byte of a short streamed answer, p50 and p99 of each side.
// 2. total time of a streamed answer of --tokens words (the request carries tools, so the text goes
//    through the held-text check). Paced at 1 ms a token (about 1,000 tokens/s, faster than most
//    providers stream; the timing upstream below): the target, ≤ 1.05×. The pacing itself jitters by
//    more than the gateway adds, so each request's total is divided by how long the upstream took to
//    send that very answer, and the ratio is of the medians of that: gateway / direct. Unpaced (the scripted
//    server as fast as it writes, ~50,000 tokens/s: no model streams so): the cost of the hop and of
//    the gateway's work, against a bare pass-through proxy in the same server process, with the
//    server's CPU per token (each side paying for its own garbage: gateway-protocols.ts's serverCpu).
// 3. last argument delta → gated call: a timing upstream in this process notes when it writes a call's
//    last argument delta (the finish chunk follows in the same write); the client, also in this
//    process, notes when the call arrives: whole and gated through the gateway, as that last delta
//    directly. Plus the same step inside the gateway alone (held-stream.ts fed in memory, corpus calls).
// 4. the tool-calls corpus through the gateway over HTTP, non-streaming, GATEWAY_RETRIES=0: the share
//    of invalid calls the client receives valid (an exact tool name, JSON arguments that fit the schema
//    as written: the plain-schema baseline's check), and of valid calls it receives byte for byte.
// 5. each protocol and upstream mode (Chat Completions; Messages translated and to Anthropic; Responses
//    translated and native) against its upstream directly and against a bare proxy of that upstream
//    in the gateway's process (the translated modes': the chat upstream's): time to first byte, the
//    paced answer's ratio, CPU per token, the held call (gateway-protocols.ts). --protocols-only runs
//    this part alone; --protocol-configs the rows it names.
// --warmup N: before parts 1 and 3 (and part 5's first byte and held call) measure anything, each of
// their sides serves N requests (calls), the sides taking turns in the rotating order the measurement
// uses, so that every side (gateway, both bare proxies, direct) is measured warm: a fresh server runs the
// code of a request in V8's interpreter and baseline tiers for its first hundreds of requests, and a
// server in production has served far more (docs/benchmarks.md § "The streaming paths at the physical
// limit (issue 34)", H1 of the fourth session: the curve, and why the default). The cold figure stays:
// the p50 of each side's first 100 (the warm-up's, topped up with the measured ones' when it is
// shorter) is printed and kept as the `cold…` keys; the other keys are of the measured ones, after it.
// --cpu-prof DIR writes the V8 CPU profile of the gateway server of parts 1, 2a and 4 (the scripted
// upstream's) to DIR, and those of part 5's two servers (protocols-translated.cpuprofile,
// protocols-native.cpuprofile; read one with `npx tsx bench/cpu-profile.ts FILE`). --ttfb-only runs part 1 alone,
// then the server's CPU per short request of each side (batches of 20, taking turns); with --sides gateway
// and --cpu-prof, the profile of a short request's fixed cost in the gateway.
// --calls-only: the held call alone, the quick figure to iterate on: part 3 (a, b), then each protocol
// row's held call (part 5's, the rows --protocol-configs names), each after its --warmup calls a side,
// --calls measured a side (the rows take at most 100); --no-protocols leaves the rows out, --protocols-only
// runs the rows alone. --json prints the same keys as a full run (lastArgDeltaToCallUs, protocols' held-call
// keys). E.g. `npm run bench:gateway -- --calls-only --warmup 300 --calls 100 --protocol-configs chat`
// (about a minute on an idle machine).
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { plainSchemaValidate } from './baselines/tool-calls-plain-schema.ts';
import { matchesGold, percentile, readJsonl, type GoldCall } from './gate/common.ts';
import { startScriptedOpenAI } from '../test/support/scripted-openai.ts';
import { Delivery } from '../src/gateway/delivery.ts';
import { HeldStream } from '../src/gateway/held-stream.ts';
import type { ToolSpec } from 'rebound-gate';
import {
  CPU_WARMUP,
  cpuMs as serverCpuMs,
  forkServer,
  printHeldCallFigures,
  printProtocolFigures,
  protocolFigures,
  protocolHeldCalls,
  readTimed,
  serverCpu,
} from './gateway-protocols.ts';
import { COLD, rotate, servedWarm, warmupOption } from './gateway-warmup.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const json = args.includes('--json');
const TOKENS = Number(opt('tokens', '2000'));
const ROUNDS = Number(opt('rounds', '15'));
const PACED_ROUNDS = Number(opt('paced-rounds', '5'));
const REQUESTS = Number(opt('requests', '300'));
const CALLS = Number(opt('calls', '300'));
const WARMUP = warmupOption(opt('warmup', '1000'));
const CORPUS = opt('corpus', new URL('../../shared/bench/tool-calls.dev.jsonl', import.meta.url).pathname);
/** --no-corpus skips part 4 (a quick run of the latency figures). */
const RUN_CORPUS = !args.includes('--no-corpus');
/** --ttfb-only runs part 1 alone, for the sides --sides lists (comma-separated; default all four). */
const TTFB_ONLY = args.includes('--ttfb-only');
const TTFB_SIDES = opt('sides', 'gateway,proxy,nodeProxy,direct').split(',') as Array<'gateway' | 'proxy' | 'nodeProxy' | 'direct'>;
/** --calls-only runs the held call alone (part 3, then each protocol row's but with --no-protocols). */
const CALLS_ONLY = args.includes('--calls-only');
const NO_PROTOCOLS = args.includes('--no-protocols');
const PROTOCOL_OPTIONS = {
  tokens: TOKENS,
  requests: Math.min(REQUESTS, 200),
  pacedRounds: PACED_ROUNDS,
  rounds: ROUNDS,
  calls: Math.min(CALLS, 100),
  configs: args.includes('--protocol-configs') ? opt('protocol-configs', '').split(',') : undefined,
  cpuProfDir: args.includes('--cpu-prof') ? opt('cpu-prof', '') : undefined,
  warmup: WARMUP,
};
if (args.includes('--protocols-only') && CALLS_ONLY) {
  const figures = await protocolHeldCalls(PROTOCOL_OPTIONS);
  printHeldCallFigures(figures, PROTOCOL_OPTIONS);
  if (json) console.log(JSON.stringify({ warmup: WARMUP, protocols: figures }));
  process.exit(0);
}
if (args.includes('--protocols-only')) {
  const figures = await protocolFigures(PROTOCOL_OPTIONS);
  printProtocolFigures(figures, PROTOCOL_OPTIONS);
  if (json) console.log(JSON.stringify({ warmup: WARMUP, protocols: figures }));
  process.exit(0);
}

interface CorpusCase {
  tools: Array<{ name: string; description?: string; parameters: ToolSpec['parameters'] }>;
  call: { name: string; arguments: string };
  expect: { valid: boolean; gold: GoldCall[] | null };
  meta: { gold_kind: string };
}
const corpus = readJsonl(CORPUS) as CorpusCase[];

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, note: { type: 'string' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    },
  },
];

// The scripted upstream (test/support/scripted-openai.ts), chosen by the user message.
const words = Array.from({ length: TOKENS }, (_, i) => `w${i} `).join('');
let corpusCase: CorpusCase = corpus[0]!;
const scripted = await startScriptedOpenAI((req) => {
  const mode = req.messages[0]?.content;
  if (mode === 'long') return { text: words };
  if (mode === 'corpus') return { toolCalls: [{ id: 'call_corpus', name: corpusCase.call.name, arguments: corpusCase.call.arguments }] };
  return { text: 'Hello there, how can I help?' };
});

// The timing upstream. "paced:<n>": --tokens words 1 ms apart, the time it took kept under n.
// Otherwise one call, its arguments in 7-character deltas 1 ms apart; the moment the last one is
// written is kept, and the finish chunk, usage and [DONE] follow in the same write.
const ARGS = JSON.stringify({ city: 'Paris', days: 3, note: 'bring an umbrella if it rains in the afternoon' });
let lastArgAt = 0;
const upstreamMs = new Map<string, number>();
const timing: Server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d: string) => (body += d));
  req.on('end', async () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    const mode = String((JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0]?.content);
    if (mode.startsWith('paced:')) {
      const t0 = performance.now();
      res.write(chunk({ role: 'assistant', content: '' }));
      for (let i = 0; i < TOKENS; i++) {
        await new Promise((r) => setTimeout(r, 1));
        res.write(chunk({ content: `w${i} ` }));
      }
      upstreamMs.set(mode, performance.now() - t0);
      res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
      return;
    }
    res.write(
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_t', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    );
    const pieces = ARGS.match(/.{1,7}/gs)!;
    for (const [i, piece] of pieces.entries()) {
      await new Promise((r) => setTimeout(r, 1));
      const delta = chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
      if (i < pieces.length - 1) {
        res.write(delta);
      } else {
        lastArgAt = performance.now();
        res.end(
          `${delta}${chunk({}, 'tool_calls')}data: ${JSON.stringify({ id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } })}\n\ndata: [DONE]\n\n`,
        );
      }
    }
  });
});
await new Promise<void>((r) => timing.listen(0, '127.0.0.1', r));
const timingUrl = `http://127.0.0.1:${(timing.address() as AddressInfo).port}/v1`;

async function startGatewayServer(upstream: string, profile = false): Promise<{ child: ChildProcess; url: string; proxyUrl: string; nodeProxyUrl: string }> {
  const cpuProf = profile && args.includes('--cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${opt('cpu-prof', '')}`] : [];
  const child = forkServer({ UPSTREAM_URL: upstream }, cpuProf);
  const ready = await new Promise<{ port: number; nodeProxyPort: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number; nodeProxyPort: number }));
    child.once('exit', (code) => reject(new Error(`the gateway server exited (${code}) before it was ready: its error is above`)));
  });
  return {
    child,
    url: `http://127.0.0.1:${ready.port}/v1`,
    proxyUrl: `http://127.0.0.1:${ready.port}/proxy`,
    nodeProxyUrl: `http://127.0.0.1:${ready.nodeProxyPort}`,
  };
}
const gw = await startGatewayServer(scripted.url, true);
const gwTiming = await startGatewayServer(timingUrl);

const post = (base: string, body: unknown) =>
  fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: JSON.stringify(body),
  });
const streamBody = (mode: string, tools: boolean) => ({
  model: 'bench',
  stream: true,
  messages: [{ role: 'user', content: mode }],
  ...(tools ? { tools: TOOLS } : {}),
});

/** ms to the first body byte, and to the end. */
async function timed(base: string, mode: string): Promise<{ ttfb: number; total: number }> {
  const t0 = performance.now();
  return readTimed(await post(base, streamBody(mode, true)), t0);
}

// The bare proxies: `proxy` over fetch in the gateway's Hono server (issue 34's goals are against it), `nodeProxy` node:http and undici's request() (the hop's floor).
const SIDES = { gateway: gw.url, proxy: gw.proxyUrl, nodeProxy: gw.nodeProxyUrl, direct: scripted.url } as const;
type Side = keyof typeof SIDES;
const ALL_SIDES: Side[] = ['gateway', 'proxy', 'nodeProxy', 'direct'];
/** The sides in a rotating order, so drift hits each alike. */
const order = (r: number, sides: Side[] = ALL_SIDES): Side[] => rotate(sides, r);
/** No figures of any side (the sides --sides leaves out). */
const NO_FIGURES: Record<Side, number[]> = { gateway: [], proxy: [], nodeProxy: [], direct: [] };

/** The gateway server's CPU time so far, ms (IPC). */
const cpuMs = () => serverCpuMs(gw.child);

/** The sides in front of the timing upstream (the paced answer, the held call). */
const TIMING_SIDES = { gateway: gwTiming.url, proxy: gwTiming.proxyUrl, nodeProxy: gwTiming.nodeProxyUrl, direct: timingUrl } as const;

// 3a. Last argument delta → the call at the client, over HTTP.
async function callArrival(base: string, gated: boolean): Promise<number> {
  const res = await post(base, { ...streamBody('call', true), stream_options: { include_usage: true } });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the stream ended without the call');
    buffer += decoder.decode(value, { stream: true });
    // Gateway: the one delta that carries the whole arguments; direct: the delta that ends them.
    const needle = gated ? JSON.stringify(ARGS) : JSON.stringify(ARGS.match(/.{1,7}/gs)!.at(-1));
    if (buffer.includes(`"arguments":${needle}`)) {
      const at = performance.now();
      await reader.cancel();
      return (at - lastArgAt) * 1000;
    }
  }
}
const med = (xs: number[]) => percentile(xs, 50);
const r = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** Part 3: the held call over HTTP (3a, each side) and inside the gateway alone (3b), p50s in µs. */
async function heldCalls() {
  // --warmup calls a side, then --calls measured, the sides in the rotating order; each side's first COLD (the cold figure) and the measured ones.
  const { measured: arrival, cold: coldArrival } = await servedWarm(ALL_SIDES, { warmup: WARMUP, measured: CALLS }, (side) =>
    callArrival(TIMING_SIDES[side], side === 'gateway'),
  );

  // 3b. The same step inside the gateway: a corpus call's deltas pushed into the held-call transformer,
  // timed from the finish chunk (which completes the call) to the gated call's chunk being written.
  const inMemory: number[] = [];
  {
    const sample = corpus.filter((_, i) => i % 7 === 0).slice(0, 800);
    for (let round = 0; round < 2; round++) {
      for (const c of sample) {
        let writtenAt = 0;
        const delivery = new Delivery((text) => {
          if (text.includes('"tool_calls"')) writtenAt = performance.now();
        });
        const toolset = c.tools.map((t) => ({ name: t.name, parameters: t.parameters }));
        const held = new HeldStream({ toolset, extractTextCalls: true, first: true, last: true, delivery });
        const chunk = (delta: unknown, finish: string | null = null) => ({
          event: null,
          data: JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }),
        });
        held.push(chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: c.call.name, arguments: '' } }] }));
        for (const piece of c.call.arguments.match(/.{1,7}/gs) ?? []) held.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
        const t0 = performance.now();
        held.push(chunk({}, 'tool_calls'));
        held.end();
        if (round === 1 && writtenAt > 0) inMemory.push((writtenAt - t0) * 1000);
      }
    }
  }
  return {
    httpGatewayP50: r(med(arrival.gateway), 0),
    httpProxyP50: r(med(arrival.proxy), 0),
    httpNodeProxyP50: r(med(arrival.nodeProxy), 0),
    httpDirectP50: r(med(arrival.direct), 0),
    httpOverheadP50: r(med(arrival.gateway) - med(arrival.direct), 0),
    httpOverheadToProxyP50: r(med(arrival.gateway) - med(arrival.proxy), 0),
    inGatewayP50: r(med(inMemory), 1),
    inGatewayP99: r(percentile(inMemory, 99), 1),
    calls: CALLS,
    /** The same of each side's first COLD calls. */
    coldHttpGatewayP50: r(med(coldArrival.gateway), 0),
    coldHttpProxyP50: r(med(coldArrival.proxy), 0),
    coldHttpNodeProxyP50: r(med(coldArrival.nodeProxy), 0),
    coldHttpDirectP50: r(med(coldArrival.direct), 0),
    coldHttpOverheadP50: r(med(coldArrival.gateway) - med(coldArrival.direct), 0),
  };
}

/** Part 3's lines. */
function printHeldCalls(l: Awaited<ReturnType<typeof heldCalls>>): void {
  console.log(
    `  last argument delta → call at the client  gateway p50 ${l.httpGatewayP50} µs   bare proxy p50 ${l.httpProxyP50} µs   node:http proxy p50 ${l.httpNodeProxyP50} µs   direct p50 ${l.httpDirectP50} µs   overhead p50 ${l.httpOverheadP50} µs (${l.httpOverheadToProxyP50} µs over the bare proxy)`,
  );
  console.log(
    `    cold (each side's first ${COLD})  gateway p50 ${l.coldHttpGatewayP50} µs   bare proxy p50 ${l.coldHttpProxyP50} µs   node:http proxy p50 ${l.coldHttpNodeProxyP50} µs   direct p50 ${l.coldHttpDirectP50} µs   overhead p50 ${l.coldHttpOverheadP50} µs`,
  );
  console.log(`  … inside the gateway (finish chunk in → gated call out, corpus calls)  p50 ${l.inGatewayP50} µs   p99 ${l.inGatewayP99} µs`);
}

if (CALLS_ONLY) {
  // --calls-only: part 3, then each protocol row's held call.
  const heldCall = await heldCalls();
  console.log(`gateway vs direct, the held call alone (${CALLS} calls after ${WARMUP} a side; interleaved)`);
  printHeldCalls(heldCall);
  // Each server exits on its own (its CPU profile, when asked for, is written as it does).
  await Promise.all([gw, gwTiming].map(({ child }) => new Promise((exited) => child.once('exit', exited).send({ type: 'exit' }))));
  await scripted.close();
  timing.close();
  const protocols = NO_PROTOCOLS ? undefined : await protocolHeldCalls(PROTOCOL_OPTIONS);
  if (protocols) printHeldCallFigures(protocols, PROTOCOL_OPTIONS);
  if (json) console.log(JSON.stringify({ warmup: WARMUP, lastArgDeltaToCallUs: heldCall, ...(protocols ? { protocols } : {}) }));
  process.exit(0);
}

// 1. Time to first byte: --warmup requests a side, then --requests measured; each side's first COLD
// (the cold figure) and the measured ones.
const firstBytes = await servedWarm(TTFB_SIDES, { warmup: WARMUP, measured: REQUESTS }, async (side) => (await timed(SIDES[side], 'short')).ttfb);
const ttfb = { ...NO_FIGURES, ...firstBytes.measured };
const coldTtfb = { ...NO_FIGURES, ...firstBytes.cold };
if (TTFB_ONLY) {
  // --ttfb-only: part 1 alone (with --cpu-prof and --sides gateway, a profile of the request's fixed cost).
  const line = TTFB_SIDES.map(
    (side) =>
      `${side} p50 ${percentile(ttfb[side], 50).toFixed(2)} ms p99 ${percentile(ttfb[side], 99).toFixed(2)} ms (cold p50 ${percentile(coldTtfb[side], 50).toFixed(2)} ms)`,
  );
  console.log(`time to first byte, ${REQUESTS} short answers after ${WARMUP} a side (cold: the first ${COLD}): ${line.join('   ')}`);
  // The server's CPU per short request: batches of 20, the sides taking turns (the IPC that asks costs each side alike).
  const served = TTFB_SIDES.filter((side) => side !== 'direct');
  const cpuPerRequest = { gateway: [] as number[], proxy: [] as number[], nodeProxy: [] as number[], direct: [] as number[] };
  for (let r = 0; r < 10; r++) {
    for (const side of order(r, served)) {
      const c0 = await cpuMs();
      for (let k = 0; k < 20; k++) await timed(SIDES[side], 'short');
      cpuPerRequest[side].push((((await cpuMs()) - c0) * 1000) / 20);
    }
  }
  console.log(`server CPU per short request: ${served.map((side) => `${side} ${percentile(cpuPerRequest[side], 50).toFixed(0)} µs`).join('   ')}`);
  if (json) {
    const figures = (side: Side) => ({
      p50: percentile(ttfb[side], 50),
      p99: percentile(ttfb[side], 99),
      cpuUs: percentile(cpuPerRequest[side], 50),
      coldP50: percentile(coldTtfb[side], 50),
    });
    console.log(JSON.stringify({ warmup: WARMUP, ttfbMs: Object.fromEntries(TTFB_SIDES.map((side) => [side, figures(side)])) }));
  }
  gw.child.send({ type: 'exit' });
  gwTiming.child.send({ type: 'exit' });
  await new Promise((resolve) => gw.child.once('exit', resolve));
  process.exit(0);
}

// 2. A long answer, end to end: paced, then unpaced with the server's CPU.
const paced = { gateway: [] as number[], proxy: [] as number[], nodeProxy: [] as number[], direct: [] as number[] };
const pacedRatio = { gateway: [] as number[], proxy: [] as number[], nodeProxy: [] as number[], direct: [] as number[] };
let pacedId = 0;
for (let r = 0; r < PACED_ROUNDS; r++) {
  for (const side of order(r, ['gateway', 'proxy', 'direct'])) {
    const mode = `paced:${++pacedId}`;
    const { total: ms } = await timed(TIMING_SIDES[side], mode);
    paced[side].push(ms);
    pacedRatio[side].push(ms / upstreamMs.get(mode)!);
  }
}
// CPU_WARMUP long answers a side unmeasured first (gateway-protocols.ts: the long path warm before it is measured).
for (let w = 0; w < CPU_WARMUP; w++) for (const side of order(w)) await timed(SIDES[side], 'long');
const total = { gateway: [] as number[], proxy: [] as number[], nodeProxy: [] as number[], direct: [] as number[] };
const cpu = { gateway: [] as number[], proxy: [] as number[], nodeProxy: [] as number[] };
const gcMs = { gateway: [] as number[], proxy: [] as number[], nodeProxy: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  for (const side of order(r)) {
    // Each side pays for its own garbage (serverCpu's GC fence); direct is not in the server.
    if (side === 'direct') {
      total[side].push((await timed(SIDES[side], 'long')).total);
      continue;
    }
    const used = await serverCpu(gw.child, () => timed(SIDES[side], 'long'));
    total[side].push(used.value.total);
    cpu[side].push(used.cpuMs);
    gcMs[side].push(used.gcMs);
  }
}

// 3. The held call (heldCalls above).
const heldCall = await heldCalls();

// 4. The corpus through the gateway, non-streaming, no retry.
let invalid = 0;
let invalidReachValid = 0;
let invalidToGold = 0;
let invalidPossible = 0;
let valid = 0;
let validUnchanged = 0;
const corpusStart = performance.now();
for (const c of RUN_CORPUS ? corpus : []) {
  corpusCase = c;
  const tools = c.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters },
  }));
  const res = await post(gw.url, { model: 'bench', messages: [{ role: 'user', content: 'corpus' }], tools });
  if (res.status !== 200) throw new Error(`corpus request answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { choices: Array<{ message: { tool_calls?: Array<{ function: { name: string; arguments: string } }> } }> };
  const received = body.choices[0]!.message.tool_calls?.[0]?.function;
  const check = received ? plainSchemaValidate({ id: 'x', name: received.name, arguments: received.arguments }, c.tools) : { verdict: 'blocked' as const };
  if (c.expect.valid) {
    valid++;
    if (received && received.name === c.call.name && received.arguments === c.call.arguments) validUnchanged++;
    continue;
  }
  invalid++;
  if (check.verdict === 'pass') invalidReachValid++;
  if (c.meta.gold_kind === 'possible_answer') {
    invalidPossible++;
    if (check.verdict === 'pass' && matchesGold(received!.name, check.args!, c.expect.gold ?? [])) invalidToGold++;
  }
}
const corpusMs = performance.now() - corpusStart;

/** The paths' median times, in ms to a tenth (the node:http proxy where the part ran it). */
const medianMs = (xs: Record<'gateway' | 'proxy' | 'nodeProxy' | 'direct', number[]>) => ({
  gatewayMs: r(med(xs.gateway), 1),
  proxyMs: r(med(xs.proxy), 1),
  ...(xs.nodeProxy.length ? { nodeProxyMs: r(med(xs.nodeProxy), 1) } : {}),
  directMs: r(med(xs.direct), 1),
});
const result = {
  /** Requests (calls) each side served before parts 1 and 3 measured. */
  warmup: WARMUP,
  ttfbMs: {
    gateway: { p50: r(percentile(ttfb.gateway, 50)), p99: r(percentile(ttfb.gateway, 99)) },
    proxy: { p50: r(percentile(ttfb.proxy, 50)), p99: r(percentile(ttfb.proxy, 99)) },
    nodeProxy: { p50: r(percentile(ttfb.nodeProxy, 50)), p99: r(percentile(ttfb.nodeProxy, 99)) },
    direct: { p50: r(percentile(ttfb.direct, 50)), p99: r(percentile(ttfb.direct, 99)) },
    overheadP50: r(percentile(ttfb.gateway, 50) - percentile(ttfb.direct, 50)),
    overheadP99: r(percentile(ttfb.gateway, 99) - percentile(ttfb.direct, 99)),
    /** What the hop alone adds (the node:http proxy over direct), and the gateway over it. */
    nodeProxyOverheadP50: r(percentile(ttfb.nodeProxy, 50) - percentile(ttfb.direct, 50)),
    overheadToNodeProxyP50: r(percentile(ttfb.gateway, 50) - percentile(ttfb.nodeProxy, 50)),
    requests: REQUESTS,
    /** The p50 of each side's first COLD requests (a fresh server's; the warm-up's when it is that long). */
    coldGatewayP50: r(med(coldTtfb.gateway)),
    coldProxyP50: r(med(coldTtfb.proxy)),
    coldNodeProxyP50: r(med(coldTtfb.nodeProxy)),
    coldDirectP50: r(med(coldTtfb.direct)),
    coldOverheadP50: r(med(coldTtfb.gateway) - med(coldTtfb.direct)),
  },
  pacedAnswer: {
    tokens: TOKENS,
    rounds: PACED_ROUNDS,
    ...medianMs(paced),
    /** Each request's total over the time its upstream took to send it, medians, gateway / direct. */
    ratio: r(med(pacedRatio.gateway) / med(pacedRatio.direct), 4),
    proxyRatio: r(med(pacedRatio.proxy) / med(pacedRatio.direct), 4),
  },
  unpacedAnswer: {
    tokens: TOKENS,
    rounds: ROUNDS,
    ...medianMs(total),
    ratioToDirect: r(med(total.gateway) / med(total.direct), 3),
    ratioToProxy: r(med(total.gateway) / med(total.proxy), 3),
    gatewayCpuUsPerToken: r((med(cpu.gateway) * 1000) / TOKENS, 2),
    proxyCpuUsPerToken: r((med(cpu.proxy) * 1000) / TOKENS, 2),
    nodeProxyCpuUsPerToken: r((med(cpu.nodeProxy) * 1000) / TOKENS, 2),
    /** The server's GC pause per answer, p50 ms (V8's own record; the CPU figures include it). */
    gatewayGcMsPerAnswer: r(med(gcMs.gateway), 2),
    proxyGcMsPerAnswer: r(med(gcMs.proxy), 2),
    nodeProxyGcMsPerAnswer: r(med(gcMs.nodeProxy), 2),
  },
  lastArgDeltaToCallUs: heldCall,
  corpus: {
    cases: corpus.length,
    invalid,
    invalidReachValidWithoutRetry: invalidReachValid,
    shareReachValid: r(invalidReachValid / invalid, 4),
    invalidRepairedToGold: invalidToGold,
    invalidWithGold: invalidPossible,
    valid,
    validByteForByte: r(validUnchanged / valid, 4),
    msPerRequest: r(corpusMs / corpus.length, 2),
  },
};

console.log(
  `gateway vs direct, the same scripted stream (${REQUESTS} short answers and ${CALLS} calls after ${WARMUP} of each a side, ${ROUNDS} of ${TOKENS} tokens; interleaved)`,
);
const t = result.ttfbMs;
console.log(
  `  time to first byte  gateway p50 ${t.gateway.p50} ms p99 ${t.gateway.p99} ms   bare proxy p50 ${t.proxy.p50} ms p99 ${t.proxy.p99} ms   node:http proxy p50 ${t.nodeProxy.p50} ms p99 ${t.nodeProxy.p99} ms   direct p50 ${t.direct.p50} ms p99 ${t.direct.p99} ms   overhead p50 ${t.overheadP50} ms p99 ${t.overheadP99} ms (the hop alone ${t.nodeProxyOverheadP50} ms)`,
);
console.log(
  `    cold (each side's first ${COLD})  gateway p50 ${t.coldGatewayP50} ms   bare proxy p50 ${t.coldProxyP50} ms   node:http proxy p50 ${t.coldNodeProxyP50} ms   direct p50 ${t.coldDirectP50} ms   overhead p50 ${t.coldOverheadP50} ms`,
);
const p = result.pacedAnswer;
const u = result.unpacedAnswer;
console.log(
  `  ${TOKENS}-token answer, 1 ms a token   gateway ${p.gatewayMs} ms   bare proxy ${p.proxyMs} ms   direct ${p.directMs} ms   ratio ${p.ratio}x (target <= 1.05; bare proxy ${p.proxyRatio}x), each against its upstream's own time`,
);
console.log(
  `  ${TOKENS}-token answer, unpaced        gateway ${u.gatewayMs} ms   bare proxy ${u.proxyMs} ms   node:http proxy ${u.nodeProxyMs} ms   direct ${u.directMs} ms   ratio ${u.ratioToDirect}x to direct, ${u.ratioToProxy}x to the bare proxy`,
);
console.log(
  `    server CPU per token  gateway ${u.gatewayCpuUsPerToken} µs   bare proxy ${u.proxyCpuUsPerToken} µs   node:http proxy ${u.nodeProxyCpuUsPerToken} µs   (GC per answer, in it: ${u.gatewayGcMsPerAnswer} / ${u.proxyGcMsPerAnswer} / ${u.nodeProxyGcMsPerAnswer} ms)`,
);
printHeldCalls(result.lastArgDeltaToCallUs);
console.log(`tool-calls corpus through the gateway (${corpus.length} requests, non-streaming, GATEWAY_RETRIES=0, ${result.corpus.msPerRequest} ms each)`);
console.log(
  `  invalid calls the client receives valid without a retry: ${invalidReachValid}/${invalid} = ${(100 * result.corpus.shareReachValid).toFixed(1)}%   (of those with gold, repaired to gold: ${invalidToGold}/${invalidPossible})`,
);
console.log(`  valid calls received byte for byte: ${validUnchanged}/${valid} = ${(100 * result.corpus.validByteForByte).toFixed(1)}%`);
gw.child.send({ type: 'exit' });
gwTiming.child.send({ type: 'exit' });
await scripted.close();
timing.close();

// 5. The protocols and upstream modes.
const protocols = await protocolFigures(PROTOCOL_OPTIONS);
printProtocolFigures(protocols, PROTOCOL_OPTIONS);
if (json) console.log(JSON.stringify({ ...result, protocols }));
process.exit(0);
