// The server side of bench:stream, in its own process so that its CPU and memory are measured
// apart from the clients and the upstream: the real app (POST /v1/chat) and, beside it, a bare
// pass-through proxy of the same upstream (the baseline). It answers IPC requests for its
// cpuUsage and memoryUsage.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/http/app.ts';
import { noAuth } from '../src/http/deps.ts';
import { createModel } from '../src/model/index.ts';
import { createMemoryStorage } from '../src/store/memory.ts';
import { defaultTools } from '../functions/index.ts';
import type { ActivityWriter } from '../src/activity/types.ts';

const upstream = process.env.UPSTREAM_URL!;
const config = loadConfig({ OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: upstream, MODEL: 'bench', KEEPALIVE_MS: process.env.KEEPALIVE_MS ?? '10000', TIME_BUDGET_MS: '600000' });
// Rows are counted and dropped: the bench measures the stream, not the sink.
let rows = 0;
const activity: ActivityWriter = { recordCall: () => void rows++, recordTurn: () => void rows++, flush: async () => ({ written: rows, dropped: 0 }) };
const app = createApp({ config, model: createModel(config), storage: createMemoryStorage(), activity, tools: defaultTools, auth: noAuth });

// The baseline: what a bare proxy does with the same upstream stream, byte for byte.
const outer = new Hono();
outer.post('/proxy', async (c) => {
  const res = await fetch(`${upstream}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' }, body: await c.req.text(), signal: c.req.raw.signal });
  return new Response(res.body, { headers: { 'content-type': 'text/event-stream' } });
});
outer.route('/', app);

const server = serve({ fetch: outer.fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port });
});

process.on('message', (msg: { type: string }) => {
  if (msg.type === 'cpu') process.send!({ type: 'cpu', usage: process.cpuUsage() });
  if (msg.type === 'mem') {
    globalThis.gc?.();
    globalThis.gc?.();
    process.send!({ type: 'mem', usage: process.memoryUsage() });
  }
  if (msg.type === 'exit') process.exit(0);
});
