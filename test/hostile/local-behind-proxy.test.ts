// Local mode behind a reverse proxy (issue 35, finding 1): `npm start` and plain Deno with only the
// owner's OPENAI_API_KEY, behind a proxy that forwards as nginx's proxy_pass does by default (from
// loopback, Host rewritten to the upstream's address; with and without X-Forwarded-For). A stranger with
// no credential, a wrong one, or the owner's upstream key gets 401 from the gateway, /v1/chat,
// /v1/turns and the other /v1 routes, and the scripted upstream sees no call; the holder of the local
// token (Node: from the data folder's local-token; Deno: from the chat URL it printed) gets the same
// routes working, the upstream called with the owner's key. /health and the page shell stay open.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeno, startNode, type RuntimeName, type RuntimeServer } from '../runtimes/servers.ts';
import { startHostRewritingProxy, type HostRewritingProxy } from '../support/host-rewriting-proxy.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { parseSse } from '../support/sse-client.ts';

const OWNER_KEY = 'sk-owner-key-never-for-strangers';
const RUNTIMES: RuntimeName[] = ['node', 'deno'];

let upstream: ScriptedServer;
let dataDir: string;
const started = new Map<RuntimeName, { server: RuntimeServer; token: string }>();

beforeAll(async () => {
  upstream = await startScriptedOpenAI(() => ({ text: 'Answer from the owner’s model.' }), { models: ['scripted-model', 'o1-pro'] });
  dataDir = mkdtempSync(join(tmpdir(), 'rebound-proxy-'));
  const vars = { OPENAI_API_KEY: OWNER_KEY, OPENAI_BASE_URL: upstream.url, MODEL: 'scripted-model', MODEL_RETRIES: '0', GATEWAY_RETRIES: '0' };
  const [node, deno] = await Promise.all([startNode(vars, { dataDir: join(dataDir, 'pglite') }), startDeno(vars)]);
  // Node: the token its user finds in the data folder, the one its banner's chat URL carries.
  const nodeToken = readFileSync(join(dataDir, 'pglite', 'local-token'), 'utf8').trim();
  expect(node.log()).toContain(`chat: ${node.baseUrl}/?token=${nodeToken}`);
  // Deno keeps nothing: the token is the one in the chat URL it printed.
  const printed = /chat: (\S+)/.exec(deno.log())?.[1];
  expect(printed, deno.log()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/rebound\?token=[0-9a-f]{64}$/);
  started.set('node', { server: node, token: nodeToken });
  started.set('deno', { server: deno, token: new URL(printed!).searchParams.get('token')! });
}, 240_000);

afterAll(async () => {
  await Promise.all([...started.values()].map(({ server }) => server.stop()));
  await upstream?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };
/** What a stranger (or the token holder) asks for: each reaches the model, the tools or the store. */
const ROUTES: Array<{ name: string; method: 'GET' | 'POST'; path: string; body?: unknown }> = [
  { name: 'the gateway, any model', method: 'POST', path: '/v1/chat/completions', body: { model: 'o1-pro', messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'the gateway model list', method: 'GET', path: '/v1/models' },
  { name: 'a turn, streamed', method: 'POST', path: '/v1/chat', body: { message: 'hi' } },
  { name: 'a turn, created', method: 'POST', path: '/v1/turns', body: { message: 'hi' } },
  {
    name: 'a useChat turn',
    method: 'POST',
    path: '/v1/ui/chat',
    body: { id: 'c1', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] },
  },
  { name: 'the tools', method: 'GET', path: '/v1/tools' },
  { name: 'the dashboard', method: 'GET', path: '/v1/dashboard' },
  { name: 'a session', method: 'GET', path: '/v1/sessions/5d1e9d44-0000-4000-8000-000000000001/messages' },
];

describe.each(
  RUNTIMES.flatMap((name) => [
    { name, forwardedFor: undefined },
    { name, forwardedFor: '203.0.113.7' },
  ]),
)('$name behind a Host-rewriting proxy (X-Forwarded-For: $forwardedFor)', ({ name, forwardedFor }) => {
  let proxy: HostRewritingProxy;
  /** The app's base through the proxy: its origin, and the app's own prefix (/rebound on Deno). */
  let base: string;
  const runtime = () => started.get(name)!;

  beforeAll(async () => {
    const app = new URL(runtime().server.baseUrl);
    proxy = await startHostRewritingProxy(app.origin, { forwardedFor });
    base = proxy.url + app.pathname.replace(/\/$/, '');
  });
  afterAll(() => proxy?.close());

  const send = (route: (typeof ROUTES)[number], authorization?: string) =>
    fetch(base + route.path, {
      method: route.method,
      headers: { ...json, ...(authorization ? { authorization } : {}) },
      body: route.body === undefined ? undefined : JSON.stringify(route.body),
    });

  it('refuses a stranger on every route that reaches the model, the tools or the store, and the upstream sees no call', async () => {
    const calls = upstream.requests.length;
    const listings = upstream.modelListAuthorizations.length;
    for (const route of ROUTES) {
      for (const authorization of [undefined, 'Bearer not-the-token-but-long-enough-to-look-like-one', `Bearer ${OWNER_KEY}`, `Bearer ${runtime().token}x`]) {
        const res = await send(route, authorization);
        const body = await res.text();
        expect(res.status, `${route.name} with ${authorization ?? 'no credential'}: ${body}`).toBe(401);
        expect(body).toMatch(/local access token/);
        expect(body).not.toContain(runtime().token);
      }
    }
    expect(upstream.requests.length).toBe(calls);
    expect(upstream.modelListAuthorizations.length).toBe(listings);
    // Through the proxy the app saw its own loopback address as Host: that was the whole of the old check.
    expect(proxy.forwardedHosts.every((host) => /^127\.0\.0\.1:\d+$/.test(host))).toBe(true);
  });

  it('leaves /health and the page shell open', async () => {
    expect((await fetch(`${base}/health`)).status).toBe(200);
    // The chat page where the banner's URL points: / on Node, the function's own path on Deno.
    const page = await fetch(proxy.url + new URL(runtime().server.baseUrl).pathname);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
  });

  it('serves the holder of the local token: the gateway, /v1/chat and /v1/turns, the upstream called with the owner’s key', async () => {
    const bearer = `Bearer ${runtime().token}`;
    const calls = upstream.requests.length;

    const completion = await send(
      { name: 'gateway', method: 'POST', path: '/v1/chat/completions', body: { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] } },
      bearer,
    );
    expect(completion.status, await completion.clone().text()).toBe(200);
    expect(((await completion.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(
      'Answer from the owner’s model.',
    );
    expect(upstream.authorizations.at(-1)).toBe(`Bearer ${OWNER_KEY}`);

    const chat = await send(ROUTES[2]!, bearer);
    expect(chat.status).toBe(200);
    const streamed = parseSse(await chat.text()).events;
    expect(streamed.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    expect(
      streamed
        .filter((e) => e.event === 'text_delta')
        .map((e) => e.data.text)
        .join(''),
    ).toBe('Answer from the owner’s model.');

    const created = await send(ROUTES[3]!, bearer);
    expect(created.status).toBe(201);
    const { streamUrl } = (await created.json()) as { streamUrl: string };
    // The stream GET is authorised by its own token (EventSource sends no header), through the proxy too.
    const turn = await fetch(proxy.url + streamUrl);
    expect(turn.status).toBe(200);
    expect(parseSse(await turn.text()).events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });

    const tools = await send(ROUTES[5]!, bearer);
    expect(tools.status).toBe(200);
    expect(upstream.requests.length).toBe(calls + 3);
  });
});
