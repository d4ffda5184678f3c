// The server side of bench:gateway, in its own process so that the clients and the upstream in the
// bench process do not share its event loop and its CPU is measured apart: the real app
// (POST /v1/chat/completions, and /v1/messages and /v1/responses in the upstream modes the env names)
// in front of UPSTREAM_URL, no auth (loopback), activity rows counted and dropped, GATEWAY_RETRIES from
// the env; beside it two bare pass-through proxies of the same upstream: /proxy/chat/completions on
// the same Hono server over `fetch` (the baseline issue 34's goals are set against; /proxy/v1/messages
// and /proxy/responses are the same for the native upstreams' protocols), and one on a
// node:http server of its own over undici's request(), Node streams end to end (the hop's physical
// limit in Node: what any proxy in this process pays for a second HTTP exchange). It answers IPC
// requests for its cpuUsage and the ms its garbage collector took since the last such request; started
// with --expose-gc, it runs minor GCs around a measured answer when the request asks, so that each side
// pays for its own garbage (bench/gateway-protocols.ts's serverCpu; docs/benchmarks.md § The streaming
// paths at the physical limit (issue 34), H5 of the fourth session).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GCProfiler } from 'node:v8';
import { request } from 'undici';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/http/app.ts';
import { noAuth } from '../src/http/deps.ts';
import { createModel } from '../src/model/index.ts';
import { nodeFetch } from '../src/entries/node-fetch.ts';
import { nodeSseSink } from '../src/entries/node-sse.ts';
import { createMemoryStorage } from '../src/store/memory.ts';
import { defaultTools } from '../functions/index.ts';
import type { ActivityWriter } from '../src/activity/types.ts';

// The protocols' upstream modes (bench/gateway-protocols.ts) from the env as the server reads them.
const passed = Object.fromEntries(
  ['MESSAGES_UPSTREAM', 'RESPONSES_UPSTREAM', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
);
const config = loadConfig({
  OPENAI_API_KEY: 'sk-bench',
  OPENAI_BASE_URL: process.env.UPSTREAM_URL!,
  GATEWAY_RETRIES: process.env.GATEWAY_RETRIES ?? '0',
  KEEPALIVE_MS: '10000',
  ...passed,
});
let rows = 0;
const activity: ActivityWriter = { recordCall: () => void rows++, recordTurn: () => void rows++, flush: async () => ({ written: rows, dropped: 0 }) };
// Node's own HTTP client for the upstreams and the SSE writer on Node's response, as npm start (src/entries/local.ts) gives them.
const app = createApp({
  config,
  model: createModel(config, { fetch: nodeFetch }),
  upstreamFetch: nodeFetch,
  sseSink: nodeSseSink,
  storage: createMemoryStorage(),
  activity,
  tools: defaultTools,
  auth: noAuth,
});

const outer = new Hono();
/** A bare pass-through proxy over `fetch` at `path`: the client's body to `url` with `headers`, the upstream's stream back as it comes. */
const fetchProxy = (path: string, url: string, headers: Record<string, string>) =>
  outer.post(path, async (c) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: await c.req.text(),
      signal: c.req.raw.signal,
    });
    return new Response(res.body, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'text/event-stream' } });
  });
const upstream = process.env.UPSTREAM_URL!;
fetchProxy('/proxy/chat/completions', `${upstream}/chat/completions`, { authorization: 'Bearer sk-bench' });
// The native upstreams' own, as bench/gateway-protocols.ts's baselines: Anthropic's Messages API and the Responses API.
fetchProxy('/proxy/v1/messages', `${process.env.ANTHROPIC_BASE_URL ?? upstream}/v1/messages`, { 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01' });
fetchProxy('/proxy/responses', `${upstream}/responses`, { authorization: 'Bearer sk-bench' });
// The app is served as npm start serves it (its own fetch), not mounted in `outer`: a mounted app's
// handlers each get a layer of the outer app's error handling, which npm start does not pay.
const serveFetch = (req: Request, env: unknown) => (req.url.includes('/proxy/') ? outer.fetch(req, env) : app.fetch(req, env as never));

// The node:http one: the body read as Buffers and sent on by undici, the answer's Node stream written to the client.
const upstreamChat = `${upstream}/chat/completions`;
const nodeProxy = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  try {
    const answer = await request(upstreamChat, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
      signal: abort.signal,
    });
    res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'text/event-stream') });
    // What one socket read of the upstream brought (all its HTTP chunks, parsed in one go) is one write
    // to the client: read() takes all the stream holds, as nodeFetch's body does.
    const body = answer.body;
    const forward = () => {
      for (let chunk = body.read() as Buffer | null; chunk !== null; chunk = body.read() as Buffer | null) {
        if (!res.write(chunk)) return void res.once('drain', forward);
      }
    };
    body.on('readable', forward);
    body.on('end', () => res.end());
    body.on('error', () => res.destroy());
  } catch {
    res.destroy();
  }
});

const server = serve({ fetch: serveFetch, port: 0, hostname: '127.0.0.1' }, () => {
  nodeProxy.listen(0, '127.0.0.1', () => {
    process.send!({ type: 'ready', port: (server.address() as AddressInfo).port, nodeProxyPort: (nodeProxy.address() as AddressInfo).port });
  });
});
// The GC's time between two 'cpu' requests: V8's own record of each collection, read synchronously
// (performance's 'gc' entries arrive a turn of the loop late, after the request that should count them).
let gcProfiler = new GCProfiler();
gcProfiler.start();
/** ms of GC since the last call. */
const gcMsSince = () => {
  const stats = gcProfiler.stop()?.statistics ?? [];
  gcProfiler = new GCProfiler();
  gcProfiler.start();
  return stats.reduce((ms, s) => ms + s.cost / 1000, 0);
};
const collect = (globalThis as { gc?: (o: { type: 'minor' }) => void }).gc;
/** A minor GC (bench/gateway-protocols.ts's serverCpu asks for one around each measured answer). */
const scavenge = () => {
  if (!collect) throw new Error('gateway-server: asked for a GC without --expose-gc');
  collect({ type: 'minor' });
};
process.on('message', (msg: { type: string; gc?: 'start' | 'end' }) => {
  if (msg.type === 'cpu') {
    // 'start': the young generation emptied, then the CPU and GC pause of a minor GC with nothing to
    // collect (its fixed cost, which the window's end pays once more and the bench takes off);
    // 'end': a minor GC, so the answer pays for the scavenge of what it left.
    let emptyGc = { cpuMs: 0, gcMs: 0 };
    if (msg.gc) scavenge();
    if (msg.gc === 'start') {
      const before = process.cpuUsage();
      gcMsSince();
      scavenge();
      const used = process.cpuUsage(before);
      emptyGc = { cpuMs: (used.user + used.system) / 1000, gcMs: gcMsSince() };
    }
    process.send!({ type: 'cpu', usage: process.cpuUsage(), gcMs: gcMsSince(), emptyGc });
  }
  if (msg.type === 'exit') process.exit(0);
});
