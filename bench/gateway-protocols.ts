// bench:gateway's protocols part (issue 31): what the gateway costs a client of each protocol it speaks,
// in each upstream mode, against the upstream directly, in one run:
//   chat                Chat Completions → the chat upstream (today's figure, for comparison)
//   messages/chat       Anthropic Messages → translated to the chat upstream (MESSAGES_UPSTREAM=chat)
//   messages/anthropic  Anthropic Messages → Anthropic's API (MESSAGES_UPSTREAM=anthropic)
//   responses/chat      Responses → translated to the chat upstream (RESPONSES_UPSTREAM=chat)
//   responses/responses Responses → the upstream's /responses (RESPONSES_UPSTREAM=responses)
// The direct side is the upstream the gateway asks, in its own protocol (a translated client's
// alternative is that same server). Timing upstreams in this process stream each protocol as its API
// does (the scripted shapes of test/support); the gateway runs in its own process (gateway-server.ts).
// Figures: time to first byte of a short streamed answer (p50, gateway − direct), a --tokens-word answer
// paced 1 ms a token (each request's total over its upstream's own sending time, medians, gateway /
// direct: target ≤ 1.05), the gateway's CPU per token on the unpaced answer, and the held call's delay
// (issue 34): a call streamed with its arguments in 7-character deltas 1 ms apart, its last delta written
// with the end of the answer in one write; the time from that write to the client holding the call
// (through the gateway: the one event that carries the whole arguments; directly: the last delta), p50.
// The second baseline (issue 34): a bare pass-through proxy over `fetch` in the gateway's own server
// process (gateway-server.ts /proxy/…), forwarding the upstream's stream as it comes, measured beside
// each row in the same rounds: its first byte, its CPU per token (in the same process, so the ratio is
// the gateway's work over the hop's), its held call (the last delta, as direct). Each row's proxy is
// that of the upstream the gateway reads in that mode: the translated modes (messages/chat,
// responses/chat) read the chat upstream, so their baseline is the Chat Completions proxy, as chat's
// is; messages/anthropic's is the proxy of Anthropic's /v1/messages, responses/responses' that of
// /responses. --protocol-configs picks rows (their names, comma-separated); --cpu-prof DIR writes each
// gateway server's V8 CPU profile there (protocols-translated.cpuprofile: chat, messages/chat,
// responses/chat; protocols-native.cpuprofile: messages/anthropic, responses/responses).
// --warmup N (bench/gateway.ts): before each row measures its first byte and its held call, each of its
// three sides serves N of them, the sides taking turns; the p50 of each side's first 100 is the row's
// cold figure (the `cold…` keys; a row's server has served the rows before it).
// --calls-only (bench/gateway.ts): each row's held call alone (protocolHeldCalls), the quick figure.
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverExecArgv } from './app-process.ts';
import { percentile } from './gate/common.ts';
import { COLD, servedWarm } from './gateway-warmup.ts';
import { responsesEventData } from '../test/support/scripted-native.ts';

type Protocol = 'chat' | 'messages' | 'anthropic' | 'responses';

/** A row's held call (--calls-only measures only this): its three sides' p50, warm and cold. */
export interface HeldCallFigures {
  config: string;
  /** The row's bare proxy: the protocol of the upstream it forwards (chat, anthropic, responses). */
  proxyUpstream: Protocol;
  /** Last argument delta written → the call at the client, p50 µs: through the gateway, directly, the difference. */
  heldCallGatewayUsP50: number;
  heldCallDirectUsP50: number;
  heldCallOverheadUsP50: number;
  heldCallProxyUsP50: number;
  heldCallOverheadToProxyUsP50: number;
  /** The p50 of each side's first COLD held calls (µs), the gateway's over direct. */
  coldHeldCallGatewayUsP50: number;
  coldHeldCallProxyUsP50: number;
  coldHeldCallDirectUsP50: number;
  coldHeldCallOverheadUsP50: number;
}

export interface ProtocolFigures extends HeldCallFigures {
  ttfbGatewayP50: number;
  ttfbDirectP50: number;
  ttfbOverheadP50: number;
  pacedRatio: number;
  cpuUsPerToken: number;
  ttfbProxyP50: number;
  /** The gateway's first byte over the proxy's, p50 − p50. */
  ttfbOverheadToProxyP50: number;
  /** The proxy's server CPU per token on the same unpaced answer, and the gateway's over it (goal ≤ 1.5). */
  proxyCpuUsPerToken: number;
  cpuRatioToProxy: number;
  /** The server's GC pause per answer (V8's own record; the CPU figures include it), p50 ms, the gateway's and its proxy's. */
  gcMsPerAnswer: number;
  proxyGcMsPerAnswer: number;
  /** The p50 of each side's first COLD first bytes (ms), the gateway's over direct. */
  coldTtfbGatewayP50: number;
  coldTtfbProxyP50: number;
  coldTtfbDirectP50: number;
  coldTtfbOverheadP50: number;
}

/** The held call: its arguments, sent in 7-character deltas; when the upstream wrote the last one. */
const CALL_ARGS = JSON.stringify({ city: 'Saint-Remy-de-Provence, Bouches-du-Rhone, France' });
const CALL_PIECES = CALL_ARGS.match(/.{1,7}/gs)!;
let lastArgAt = 0;

/** One tool call in the protocol of `path`, its argument deltas 1 ms apart; the last goes out with the answer's end, in one write. */
async function callAnswer(res: ServerResponse, path: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const text = (event: string | null, data: unknown) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
  /** The events of one argument delta, and those that end the answer after the last. */
  let delta: (piece: string) => string;
  let end: string;
  if (path.endsWith('/chat/completions')) {
    const chunk = (d: unknown, finish: string | null = null) =>
      text(null, {
        id: 'chatcmpl-c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }],
      });
    res.write(
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_c', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    );
    delta = (piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
    end = `${chunk({}, 'tool_calls')}data: [DONE]\n\n`;
  } else if (path.endsWith('/v1/messages')) {
    const message = startedMessage('msg_c');
    res.write(text('message_start', { type: 'message_start', message }));
    res.write(
      text('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_c', name: 'get_weather', input: {} },
      }),
    );
    delta = (piece) => text('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: piece } });
    end =
      text('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      text('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } }) +
      text('message_stop', { type: 'message_stop' });
  } else {
    const emit = responsesEvents();
    const item = (status: string, args: string) => ({ id: ITEM_IDS.fc, type: 'function_call', status, arguments: args, call_id: CALL_ID, name: 'get_weather' });
    res.write(
      emit('response.created', { response: responsesResponse('in_progress', []) }) +
        emit('response.in_progress', { response: responsesResponse('in_progress', []) }) +
        emit('response.output_item.added', { output_index: 0, item: item('in_progress', '') }),
    );
    delta = (piece) => emit('response.function_call_arguments.delta', { item_id: ITEM_IDS.fc, output_index: 0, delta: piece });
    end =
      emit('response.function_call_arguments.done', { item_id: ITEM_IDS.fc, output_index: 0, arguments: CALL_ARGS }) +
      emit('response.output_item.done', { output_index: 0, item: item('completed', CALL_ARGS) }) +
      emit('response.completed', {
        response: { ...responsesResponse('completed', [item('completed', CALL_ARGS)]), usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 } },
      });
  }
  for (const [i, piece] of CALL_PIECES.entries()) {
    await sleep(1);
    if (i < CALL_PIECES.length - 1) {
      res.write(delta(piece));
      continue;
    }
    lastArgAt = performance.now();
    res.end(delta(piece) + end);
  }
}

/**
 * The Responses API's events as it streams them today (test/support/scripted-native.ts
 * responsesEventData: `type` first, the other keys sorted, an obfuscation pad on each delta), numbered
 * from 0, as SSE text. The older order (`type`, `sequence_number`, then the event's keys), which this
 * bench wrote until the eighth session, the gateway reads too; on today's it had read no text delta as a
 * run (docs/benchmarks.md § The streaming paths at the physical limit, eighth session).
 */
function responsesEvents(): (type: string, fields: Record<string, unknown>) => string {
  let seq = 0;
  return (type, fields) => `event: ${type}\ndata: ${JSON.stringify(responsesEventData(type, seq++, fields))}\n\n`;
}

/** Ids as long as the API's (a prefix and 50 hex digits; a call id of 24 characters after `call_`). */
const HEX50 = '04e21c25f1df9e70016968ca722660819da8b53c713113f3bb';
const ITEM_IDS = { resp: `resp_${HEX50}`, msg: `msg_${HEX50}`, fc: `fc_${HEX50}` };
const CALL_ID = 'call_Xq3GkRo2vW9mTn8pLc4bYz1A';

/** A Responses `response` object as the stream's first and last events carry it (the API's keys, fewer of them). */
const responsesResponse = (status: string, output: unknown[]) => ({
  id: ITEM_IDS.resp,
  object: 'response',
  created_at: 1768475249,
  status,
  error: null,
  model: 'gpt-5.2-2025-12-11',
  output,
  parallel_tool_calls: true,
  tool_choice: 'auto',
  usage: null,
});

/** The message an Anthropic stream's message_start carries, before any content. */
const startedMessage = (id: string) => ({
  id,
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [],
  stop_reason: null,
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 1 },
});

/** Reads `res` to its end: ms from `t0` to the first body read, and to the end. */
export async function readTimed(res: Response, t0: number): Promise<{ ttfb: number; total: number }> {
  const reader = res.body!.getReader();
  let ttfb = -1;
  for (;;) {
    const { done } = await reader.read();
    if (ttfb < 0) ttfb = performance.now() - t0;
    if (done) break;
  }
  return { ttfb, total: performance.now() - t0 };
}

export interface ProtocolOptions {
  tokens: number;
  requests: number;
  pacedRounds: number;
  rounds: number;
  /** Held calls per side and configuration. */
  calls: number;
  /** The rows to run, by name (absent: all). */
  configs?: string[] | undefined;
  /** Where each gateway server writes its V8 CPU profile (absent: none). */
  cpuProfDir?: string | undefined;
  /** First bytes and held calls each side serves before a row measures them (--warmup). */
  warmup: number;
}

const sse = (res: ServerResponse, event: string | null, data: unknown) => res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One answer of `words` in the protocol of `path`, a word per `pauseMs` (0: as fast as it writes). It
 * waits for the socket to drain when a write fills it, as the main line's scripted server does
 * (test/support/scripted-openai.ts) and any streaming server does. Written regardless, the unpaced
 * answer went out at once and reached the server in fewer, fuller reads (6 of ~60 KB, against 9), which
 * cost the `fetch` proxy less per token and not the gateway, so the chat row read ~0.1 higher
 * gateway ÷ proxy than the same path on the main line (docs/benchmarks.md § "The streaming paths at the
 * physical limit (issue 34)", H1 of the fourth session).
 */
async function answer(res: ServerResponse, path: string, words: string[], pauseMs: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const each = async (write: (w: string) => boolean) => {
    for (const w of words) {
      if (pauseMs) await sleep(pauseMs);
      if (!write(w) && !res.destroyed) await new Promise((drained) => res.once('drain', drained));
    }
  };
  if (path.endsWith('/chat/completions')) {
    const chunk = (delta: unknown, finish: string | null = null) => ({
      id: 'chatcmpl-b',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    sse(res, null, chunk({ role: 'assistant', content: '' }));
    await each((w) => sse(res, null, chunk({ content: w })));
    sse(res, null, chunk({}, 'stop'));
    sse(res, null, {
      id: 'chatcmpl-b',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: words.length, total_tokens: 10 + words.length },
    });
    res.end('data: [DONE]\n\n');
  } else if (path.endsWith('/v1/messages')) {
    const message = startedMessage('msg_b');
    sse(res, 'message_start', { type: 'message_start', message });
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    await each((w) => sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: w } }));
    sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
    sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: words.length } });
    sse(res, 'message_stop', { type: 'message_stop' });
    res.end();
  } else {
    const events = responsesEvents();
    const emit = (type: string, fields: Record<string, unknown>) => res.write(events(type, fields));
    const id = ITEM_IDS.msg;
    const part = (text: string) => ({ type: 'output_text', annotations: [], logprobs: [], text });
    emit('response.created', { response: responsesResponse('in_progress', []) });
    emit('response.in_progress', { response: responsesResponse('in_progress', []) });
    emit('response.output_item.added', { output_index: 0, item: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' } });
    emit('response.content_part.added', { item_id: id, output_index: 0, content_index: 0, part: part('') });
    await each((w) => emit('response.output_text.delta', { item_id: id, output_index: 0, content_index: 0, delta: w, logprobs: [] }));
    const text = words.join('');
    const item = { id, type: 'message', status: 'completed', content: [part(text)], role: 'assistant' };
    emit('response.output_text.done', { item_id: id, output_index: 0, content_index: 0, text, logprobs: [] });
    emit('response.content_part.done', { item_id: id, output_index: 0, content_index: 0, part: part(text) });
    emit('response.output_item.done', { output_index: 0, item });
    emit('response.completed', {
      response: { ...responsesResponse('completed', [item]), usage: { input_tokens: 10, output_tokens: words.length, total_tokens: 10 + words.length } },
    });
    res.end();
  }
}

/** The request of a client of `protocol`, asking for `mode` ("short", "long" or "paced:<id>"), with a tool so the text goes through the held-text check. */
function request(protocol: Protocol, mode: string): { path: string; body: unknown; headers: Record<string, string> } {
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
  switch (protocol) {
    case 'chat':
      return {
        path: '/chat/completions',
        body: {
          model: 'm',
          stream: true,
          messages: [{ role: 'user', content: mode }],
          tools: [{ type: 'function', function: { name: 'get_weather', parameters: schema } }],
        },
        headers: { authorization: 'Bearer sk-bench' },
      };
    case 'messages':
    case 'anthropic':
      return {
        path: '/v1/messages',
        body: {
          model: 'm',
          max_tokens: 4096,
          stream: true,
          messages: [{ role: 'user', content: mode }],
          tools: [{ name: 'get_weather', input_schema: schema }],
        },
        headers: { 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01' },
      };
    case 'responses':
      return {
        path: '/responses',
        body: { model: 'm', stream: true, input: mode, tools: [{ type: 'function', name: 'get_weather', parameters: schema, strict: false }] },
        headers: { authorization: 'Bearer sk-bench' },
      };
    default: {
      const never: never = protocol;
      return never;
    }
  }
}

/** The mode a request asks for, in any of the three protocols. */
function modeOf(body: Record<string, unknown>): string {
  if (typeof body.input === 'string') return body.input;
  const messages = (body.messages ?? []) as Array<{ content: unknown }>;
  const c = messages[0]?.content;
  return typeof c === 'string' ? c : '';
}

async function startGateway(env: Record<string, string>, cpuProf: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = forkServer(env, cpuProf);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`a gateway server exited (${code}) before it was ready: its error is above`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/**
 * Each side pays for its own garbage. Without this, V8 scavenges when the young generation fills, so a
 * measured answer paid for whatever collection fell in it: often of the garbage the other side's answer
 * before it left (the gateway allocates far more than a proxy). Here a minor GC before the start's
 * reading (outside the window) leaves the answer an empty young generation, and one before the end's
 * reading (inside) makes it pay for the scavenge of what it left. A minor GC has a fixed cost (its roots,
 * its helper threads: about 0.4 ms of CPU with nothing to collect, half a proxy's answer's GC), which the
 * end's adds to every answer whatever it allocated: the server measures an empty one at the start and it is
 * taken off. Both sides alike. docs/benchmarks.md § The streaming paths at the physical limit (issue 34), H5.
 */
export const GC_FENCE = true;
/**
 * Long answers each side serves unmeasured before the CPU rounds: with one, a row's first rounds ran its
 * long-answer path still being optimised (the CPU of its first quarter of rounds up to twice its last's,
 * the gateway's and the proxy's), so the median leaned on the warm-up. 20 flatten it (same doc, H5).
 */
export const CPU_WARMUP = 20;

interface ServerUsage {
  cpuMs: number;
  /** The GC's pause since the last request (V8's record of each collection). */
  gcMs: number;
  /** The CPU and GC pause of the empty minor GC the start's request measured. */
  emptyGc: { cpuMs: number; gcMs: number };
}

/** The server's CPU time, and its GC's since the last request, ms (IPC); `gc`: the fence's start or end. */
const serverUsage = (child: ChildProcess, gc?: 'start' | 'end') =>
  new Promise<ServerUsage>((resolve) => {
    const on = (message: unknown) => {
      const m = message as { type: string; usage: NodeJS.CpuUsage } & Omit<ServerUsage, 'cpuMs'>;
      if (m.type !== 'cpu') return;
      child.off('message', on);
      resolve({ cpuMs: (m.usage.user + m.usage.system) / 1000, gcMs: m.gcMs, emptyGc: m.emptyGc });
    };
    child.on('message', on);
    child.send({ type: 'cpu', gc });
  });

/** The gateway server's CPU and GC ms over `run` (GC_FENCE around it), and what `run` returned. */
export async function serverCpu<T>(child: ChildProcess, run: () => Promise<T>): Promise<{ value: T; cpuMs: number; gcMs: number }> {
  const start = await serverUsage(child, GC_FENCE ? 'start' : undefined);
  const value = await run();
  const end = await serverUsage(child, GC_FENCE ? 'end' : undefined);
  return { value, cpuMs: end.cpuMs - start.cpuMs - start.emptyGc.cpuMs, gcMs: end.gcMs - start.emptyGc.gcMs };
}

/** The gateway server's CPU time so far, ms (IPC), with no GC asked. */
export const cpuMs = async (child: ChildProcess) => (await serverUsage(child)).cpuMs;

/** The gateway server, forked with the GC exposed for GC_FENCE. */
export function forkServer(env: Record<string, string>, cpuProf: string[]): ChildProcess {
  const child = fork(new URL('./gateway-server.ts', import.meta.url).pathname, [], {
    execArgv: serverExecArgv(...cpuProf),
    env: { ...process.env, GATEWAY_RETRIES: '0', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // A failing bench must not leave its servers running.
  process.once('exit', () => child.kill());
  return child;
}

type Side = 'gateway' | 'proxy' | 'direct';
const SIDES: Side[] = ['gateway', 'proxy', 'direct'];
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** What a row's measurements ask: each side's URL and protocol, and the helpers that time a request to one. */
interface Row {
  name: string;
  /** The protocol the gateway's client speaks; the upstream's (the direct side's and the proxy's). */
  client: Protocol;
  direct: Protocol;
  gateway: { child: ChildProcess; url: string };
  /** Where each side is asked, in which protocol: the proxy in the gateway's process speaks the upstream's. */
  at: Record<Side, { url: string; protocol: Protocol }>;
  /** ms to the first body byte and to the end of an answer of `mode`. */
  timed: (url: string, protocol: Protocol, mode: string) => Promise<{ ttfb: number; total: number }>;
  /** µs from the upstream writing the call's last argument delta to the client holding the call. */
  callArrival: (url: string, protocol: Protocol, gated: boolean) => Promise<number>;
  /** A fresh paced mode ("paced:<n>") and, after its answer, how long its upstream took to send it. */
  pacedMode: () => string;
  upstreamMs: Map<string, number>;
}

/** The rows --protocol-configs names (all by default), `measure` run on each in turn, the servers up around them. */
async function eachRow<F>(o: ProtocolOptions, measure: (row: Row) => Promise<F>): Promise<F[]> {
  const long = Array.from({ length: o.tokens }, (_, i) => `w${i} `);
  const short = 'Hello there, how can I help?'.split(/(?<= )/);
  const upstreamMs = new Map<string, number>();
  const upstream = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', async () => {
      const mode = modeOf(JSON.parse(text) as Record<string, unknown>);
      const path = (req.url ?? '').split('?')[0]!;
      if (mode === 'call') return callAnswer(res, path);
      const t0 = performance.now();
      await answer(res, path, mode === 'short' ? short : long, mode.startsWith('paced:') ? 1 : 0);
      upstreamMs.set(mode, performance.now() - t0);
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const cpuProf = (name: string) => (o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`, `--cpu-prof-name=protocols-${name}.cpuprofile`] : []);
  const translated = await startGateway({ UPSTREAM_URL: base, MESSAGES_UPSTREAM: 'chat', RESPONSES_UPSTREAM: 'chat' }, cpuProf('translated'));
  const native = await startGateway(
    {
      UPSTREAM_URL: base,
      MESSAGES_UPSTREAM: 'anthropic',
      RESPONSES_UPSTREAM: 'responses',
      ANTHROPIC_BASE_URL: base,
      ANTHROPIC_API_KEY: 'sk-bench',
    },
    cpuProf('native'),
  );

  /**
   * Each configuration: the client's protocol, its gateway, the upstream protocol the direct side speaks
   * (the bare proxy in the gateway's process forwards that same upstream).
   */
  const all: Array<{ name: string; client: Protocol; gateway: { child: ChildProcess; url: string }; direct: Protocol }> = [
    { name: 'chat', client: 'chat', gateway: translated, direct: 'chat' },
    { name: 'messages/chat', client: 'messages', gateway: translated, direct: 'chat' },
    { name: 'messages/anthropic', client: 'anthropic', gateway: native, direct: 'anthropic' },
    { name: 'responses/chat', client: 'responses', gateway: translated, direct: 'chat' },
    { name: 'responses/responses', client: 'responses', gateway: native, direct: 'responses' },
  ];
  const unknown = (o.configs ?? []).filter((name) => !all.some((c) => c.name === name));
  if (unknown.length) throw new Error(`--protocol-configs: no row ${unknown.join(', ')} (the rows: ${all.map((c) => c.name).join(', ')})`);
  const configs = o.configs?.length ? all.filter((c) => o.configs!.includes(c.name)) : all;
  const timed = async (url: string, protocol: Protocol, mode: string) => {
    const r = request(protocol, mode);
    const t0 = performance.now();
    const res = await fetch(`${url}${r.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...r.headers }, body: JSON.stringify(r.body) });
    if (res.status !== 200) throw new Error(`${url}${r.path} answered ${res.status}: ${await res.text()}`);
    return readTimed(res, t0);
  };
  /**
   * µs from the upstream writing the call's last argument delta to the client holding the call: through
   * the gateway, the event that carries the whole arguments (the call goes out once, complete and gated);
   * directly, the event with the last delta. Both texts are JSON strings inside the event's JSON.
   */
  const callArrival = async (url: string, protocol: Protocol, gated: boolean): Promise<number> => {
    const r = request(protocol, 'call');
    const res = await fetch(`${url}${r.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...r.headers }, body: JSON.stringify(r.body) });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const needle = JSON.stringify(gated ? CALL_ARGS : CALL_PIECES.at(-1)!);
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`${url}${r.path}: the stream ended without the call`);
      buffer += decoder.decode(value, { stream: true });
      if (buffer.includes(needle)) {
        const at = performance.now();
        await reader.cancel();
        return (at - lastArgAt) * 1000;
      }
    }
  };
  /** The gateway's URL for a client protocol (the /v1 prefix), the upstream's for the direct side. */
  const gatewayUrl = (g: { url: string }, client: Protocol) => (client === 'messages' || client === 'anthropic' ? g.url : `${g.url}/v1`);

  const figures: F[] = [];
  let id = 0;
  for (const c of configs) {
    const at = {
      gateway: { url: gatewayUrl(c.gateway, c.client), protocol: c.client },
      proxy: { url: `${c.gateway.url}/proxy`, protocol: c.direct },
      direct: { url: base, protocol: c.direct },
    };
    figures.push(await measure({ ...c, at, timed, callArrival, pacedMode: () => `paced:${++id}`, upstreamMs }));
  }
  // Each server exits on its own (its CPU profile, when asked for, is written as it does).
  const exited = (child: ChildProcess) =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.send({ type: 'exit' });
    });
  await Promise.all([exited(translated.child), exited(native.child)]);
  upstream.close();
  return figures;
}

/** A row's held call: --warmup calls a side, then --calls measured, the sides taking turns; each side's first COLD the cold figure. */
async function heldCall(row: Row, o: ProtocolOptions): Promise<HeldCallFigures> {
  const { measured: held, cold } = await servedWarm(SIDES, { warmup: o.warmup, measured: o.calls }, (side) =>
    row.callArrival(row.at[side].url, row.at[side].protocol, side === 'gateway'),
  );
  const p50 = (xs: number[]) => percentile(xs, 50);
  return {
    config: row.name,
    proxyUpstream: row.direct,
    heldCallGatewayUsP50: round(p50(held.gateway), 0),
    heldCallDirectUsP50: round(p50(held.direct), 0),
    heldCallOverheadUsP50: round(p50(held.gateway) - p50(held.direct), 0),
    heldCallProxyUsP50: round(p50(held.proxy), 0),
    heldCallOverheadToProxyUsP50: round(p50(held.gateway) - p50(held.proxy), 0),
    coldHeldCallGatewayUsP50: round(p50(cold.gateway), 0),
    coldHeldCallProxyUsP50: round(p50(cold.proxy), 0),
    coldHeldCallDirectUsP50: round(p50(cold.direct), 0),
    coldHeldCallOverheadUsP50: round(p50(cold.gateway) - p50(cold.direct), 0),
  };
}

/** Each row's held call alone (--calls-only): the quick figure while working on it. */
export const protocolHeldCalls = (o: ProtocolOptions): Promise<HeldCallFigures[]> => eachRow(o, (row) => heldCall(row, o));

/** Each row's figures: first byte, paced answer, CPU per token, held call. */
export function protocolFigures(o: ProtocolOptions): Promise<ProtocolFigures[]> {
  return eachRow(o, async (row) => {
    const { at, timed } = row;
    // --warmup first bytes a side, then --requests measured: each side's first COLD (the cold figure) and the measured ones.
    const { measured: ttfb, cold: coldTtfb } = await servedWarm(SIDES, { warmup: o.warmup, measured: o.requests }, async (side) => {
      return (await timed(at[side].url, at[side].protocol, 'short')).ttfb;
    });
    const paced = { gateway: [] as number[], direct: [] as number[] };
    for (let r = 0; r < o.pacedRounds; r++) {
      for (const side of r % 2 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const)) {
        const mode = row.pacedMode();
        const { total } = await timed(at[side].url, at[side].protocol, mode);
        paced[side].push(total / row.upstreamMs.get(mode)!);
      }
    }
    // The server's CPU of each unpaced answer, the gateway's and its proxy's taking turns, after CPU_WARMUP unmeasured.
    const cpu = { gateway: [] as number[], proxy: [] as number[] };
    const gcMs = { gateway: [] as number[], proxy: [] as number[] };
    for (let w = 0; w < CPU_WARMUP; w++) {
      await timed(at.gateway.url, at.gateway.protocol, 'long');
      await timed(at.proxy.url, at.proxy.protocol, 'long');
    }
    for (let r = 0; r < o.rounds; r++) {
      for (const side of r % 2 ? (['proxy', 'gateway'] as const) : (['gateway', 'proxy'] as const)) {
        const used = await serverCpu(row.gateway.child, () => timed(at[side].url, at[side].protocol, 'long'));
        cpu[side].push(used.cpuMs);
        gcMs[side].push(used.gcMs);
      }
    }
    // The same for the held call.
    const held = await heldCall(row, o);
    const g50 = percentile(ttfb.gateway, 50);
    const d50 = percentile(ttfb.direct, 50);
    const p50 = percentile(ttfb.proxy, 50);
    const cpuPerToken = (xs: number[]) => (percentile(xs, 50) * 1000) / o.tokens;
    return {
      ...held,
      ttfbGatewayP50: round(g50),
      ttfbDirectP50: round(d50),
      ttfbOverheadP50: round(g50 - d50),
      pacedRatio: round(percentile(paced.gateway, 50) / percentile(paced.direct, 50), 4),
      cpuUsPerToken: round(cpuPerToken(cpu.gateway)),
      ttfbProxyP50: round(p50),
      ttfbOverheadToProxyP50: round(g50 - p50),
      proxyCpuUsPerToken: round(cpuPerToken(cpu.proxy)),
      cpuRatioToProxy: round(cpuPerToken(cpu.gateway) / cpuPerToken(cpu.proxy)),
      gcMsPerAnswer: round(percentile(gcMs.gateway, 50)),
      proxyGcMsPerAnswer: round(percentile(gcMs.proxy, 50)),
      coldTtfbGatewayP50: round(percentile(coldTtfb.gateway, 50)),
      coldTtfbProxyP50: round(percentile(coldTtfb.proxy, 50)),
      coldTtfbDirectP50: round(percentile(coldTtfb.direct, 50)),
      coldTtfbOverheadP50: round(percentile(coldTtfb.gateway, 50) - percentile(coldTtfb.direct, 50)),
    };
  });
}

/** The figures as bench:gateway prints them. */
export function printProtocolFigures(figures: ProtocolFigures[], o: ProtocolOptions): void {
  console.log(
    `protocols and upstream modes, gateway vs the upstream directly (${o.requests} short answers and ${o.calls} calls after ${o.warmup} of each a side, ${o.pacedRounds} paced and ${o.rounds} unpaced of ${o.tokens} tokens; interleaved)`,
  );
  console.log('  config               ttfb p50 gateway  direct  overhead   paced ratio (≤ 1.05)   CPU per token   held call p50 gateway  direct  overhead');
  for (const f of figures) {
    console.log(
      `  ${f.config.padEnd(20)} ${`${f.ttfbGatewayP50} ms`.padStart(16)} ${`${f.ttfbDirectP50} ms`.padStart(8)} ${`${f.ttfbOverheadP50} ms`.padStart(9)}   ${`${f.pacedRatio}x`.padStart(20)}   ${`${f.cpuUsPerToken} µs`.padStart(13)}   ${`${f.heldCallGatewayUsP50} µs`.padStart(21)} ${`${f.heldCallDirectUsP50} µs`.padStart(7)} ${`${f.heldCallOverheadUsP50} µs`.padStart(9)}`,
    );
  }
  console.log("  … against each row's bare proxy (a fetch pass-through of the upstream it reads, in the gateway's process; the translated rows read chat)");
  console.log(
    '  config               proxy of    CPU per token proxy   gateway ÷ proxy (≤ 1.5)   ttfb p50 proxy  gateway over it   held call p50 proxy  gateway over it   GC per answer gateway  proxy',
  );
  for (const f of figures) {
    console.log(
      `  ${f.config.padEnd(20)} ${f.proxyUpstream.padEnd(10)} ${`${f.proxyCpuUsPerToken} µs`.padStart(21)}   ${`${f.cpuRatioToProxy}x`.padStart(23)}   ${`${f.ttfbProxyP50} ms`.padStart(14)} ${`${f.ttfbOverheadToProxyP50} ms`.padStart(16)}   ${`${f.heldCallProxyUsP50} µs`.padStart(19)} ${`${f.heldCallOverheadToProxyUsP50} µs`.padStart(16)}   ${`${f.gcMsPerAnswer} ms`.padStart(21)} ${`${f.proxyGcMsPerAnswer} ms`.padStart(6)}`,
    );
  }
  console.log(`  … cold: the p50 of each side's first ${COLD} (a row's server has served the rows before it)`);
  console.log('  config               ttfb p50 gateway   proxy  direct  overhead   held call p50 gateway   proxy  direct  overhead');
  for (const f of figures) {
    console.log(
      `  ${f.config.padEnd(20)} ${`${f.coldTtfbGatewayP50} ms`.padStart(16)} ${`${f.coldTtfbProxyP50} ms`.padStart(7)} ${`${f.coldTtfbDirectP50} ms`.padStart(7)} ${`${f.coldTtfbOverheadP50} ms`.padStart(9)}   ${`${f.coldHeldCallGatewayUsP50} µs`.padStart(21)} ${`${f.coldHeldCallProxyUsP50} µs`.padStart(7)} ${`${f.coldHeldCallDirectUsP50} µs`.padStart(7)} ${`${f.coldHeldCallOverheadUsP50} µs`.padStart(9)}`,
    );
  }
}

/** The held calls alone (--calls-only) as bench:gateway prints them. */
export function printHeldCallFigures(figures: HeldCallFigures[], o: ProtocolOptions): void {
  console.log(`protocols and upstream modes, the held call alone (${o.calls} calls after ${o.warmup} a side; cold: each side's first ${COLD}; interleaved)`);
  console.log('  config               held call p50 gateway   proxy  direct  overhead (over the proxy)   cold gateway  overhead');
  for (const f of figures) {
    console.log(
      `  ${f.config.padEnd(20)} ${`${f.heldCallGatewayUsP50} µs`.padStart(21)} ${`${f.heldCallProxyUsP50} µs`.padStart(7)} ${`${f.heldCallDirectUsP50} µs`.padStart(7)} ${`${f.heldCallOverheadUsP50} µs`.padStart(9)} ${`(${f.heldCallOverheadToProxyUsP50} µs)`.padStart(17)}   ${`${f.coldHeldCallGatewayUsP50} µs`.padStart(12)} ${`${f.coldHeldCallOverheadUsP50} µs`.padStart(9)}`,
    );
  }
}
