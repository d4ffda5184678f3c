// MCP tools under Node, workerd (`wrangler dev`) and Deno: the official SDK client inside each runtime,
// a real @modelcontextprotocol/server-everything per runtime (streamableHttp, on loopback, behind a
// recording proxy so that what reached it is observed), and one scripted model. Each runtime must
// repair everything__get_sum and get 5 from the server, block everything__add with get-sum suggested,
// block everything__echo without message without calling the server, and list its tools on GET /v1/tools.
// Beside it, per runtime, two 2026-07-28 servers built with the v2 SDK (test/support/mcp-v2-servers.ts:
// the default posture and legacy: 'reject'): get_sum repaired on both without an initialize, and
// confirm_order's question paused on, answered, and sent back with inputResponses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { startEverything, type RunningMcp } from '../support/mcp-servers.ts';
import { lastToolResult, startScriptedOpenAI, type ChatRequest, type Reply, type ScriptedServer } from '../support/scripted-openai.ts';
import { everythingStep } from '../mcp/everything-script.ts';
import { ORDER_SCHEMA, ORDER_STATE, type RunningV2, startV2Server } from '../support/mcp-v2-servers.ts';
import { starters, type RuntimeName, type RuntimeServer } from './servers.ts';
import { readSse } from './sse-client.ts';
import { openStream } from '../support/sse-client.ts';

const RUNTIMES: RuntimeName[] = ['node', 'workerd', 'deno'];
const JWT_SECRET = 'runtime-mcp-suite-jwt-secret-at-least-32-characters';
const ISSUER = 'http://127.0.0.1:54321/auth/v1';

/** The turn's own message (the loop's nudges come after it). */
const asked = (req: ChatRequest, message: string) => req.messages.some((m) => m.role === 'user' && m.content === message);
const iteration = (req: ChatRequest) => req.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;

const userMessage = (req: ChatRequest) => req.messages.find((m) => m.role === 'user')?.content ?? '';

/** Stateless, keyed on the conversation, so that the three runtimes share it. */
const script = (req: ChatRequest): Reply => {
  const message = String(userMessage(req));
  if (message.startsWith('v2 sums')) {
    return iteration(req) === 0
      ? {
          toolCalls: [
            { id: 's1', name: 'shop__get_sum', arguments: '{"a":"2","b":3}' },
            { id: 's2', name: 'strict__get_sum', arguments: '{"a":"2","b":3}' },
          ],
        }
      : { text: 'Both say 5.' };
  }
  if (message.startsWith('order')) {
    return iteration(req) === 0 ? { toolCalls: [{ id: 'o1', name: 'strict__confirm_order', arguments: '{"item":"mug"}' }] } : { text: 'Ordered.' };
  }
  return everythingStep(iteration(req));
};

let model: ScriptedServer;
let jwt: string;
/** Another user's token: their answer to this user's question is refused. */
let otherJwt: string;
const servers = new Map<RuntimeName, RuntimeServer>();
const mcp = new Map<RuntimeName, RunningMcp>();
/** Per runtime: a v2 server in the SDK's default posture and one that rejects 2025 clients. */
const v2 = new Map<RuntimeName, { shop: RunningV2; strict: RunningV2 }>();

/** A Supabase user's access token, as the edge checks it. */
const tokenFor = (subject: string) =>
  new SignJWT({ role: 'authenticated' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setAudience('authenticated')
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(JWT_SECRET));

beforeAll(async () => {
  model = await startScriptedOpenAI(script);
  jwt = await tokenFor('5d1e9d44-0000-4000-8000-000000000012');
  otherJwt = await tokenFor('5d1e9d44-0000-4000-8000-000000000099');
  for (const name of RUNTIMES) {
    mcp.set(name, await startEverything());
    v2.set(name, { shop: await startV2Server({ name: 'shop' }), strict: await startV2Server({ name: 'strict-shop', legacy: 'reject' }) });
  }
  const started = await Promise.allSettled(
    RUNTIMES.map((name) =>
      starters[name]({
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: 'sk-scripted',
        MODEL: 'scripted-model',
        MODEL_RETRIES: '0',
        TOOL_TIMEOUT_MS: '10000',
        TURN_TOKEN_SECRET: 'runtime-mcp-suite-turn-token-secret',
        SUPABASE_JWT_SECRET: JWT_SECRET,
        SUPABASE_JWT_ISSUER: ISSUER,
        STORAGE: 'memory', // auth on, no Supabase: the edges refuse the turn routes unless memory is asked for
        MCP_SERVERS: JSON.stringify([
          { name: 'everything', url: mcp.get(name)!.url, headers: { 'x-runtime': name } },
          { name: 'shop', url: v2.get(name)!.shop.url },
          { name: 'strict', url: v2.get(name)!.strict.url },
        ]),
      }),
    ),
  );
  const failures: string[] = [];
  started.forEach((r, i) => {
    if (r.status === 'fulfilled') servers.set(RUNTIMES[i]!, r.value);
    else failures.push(`${RUNTIMES[i]}: ${(r.reason as Error).message}`);
  });
  if (failures.length) throw new Error(`runtime(s) failed to start:\n${failures.join('\n\n')}`);
}, 240_000);

afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.stop()));
  await Promise.all([...mcp.values()].map((s) => s.stop()));
  await Promise.all([...v2.values()].flatMap((s) => [s.shop.stop(), s.strict.stop()]));
  await model?.close();
});

const auth = () => ({ authorization: `Bearer ${jwt}`, 'content-type': 'application/json' });

describe.concurrent.each(RUNTIMES)('%s', (name) => {
  it('calls server-everything through the gate: repaired, blocked with a suggestion, blocked before the server', async () => {
    const { baseUrl, log } = servers.get(name)!;
    const server = mcp.get(name)!;
    const message = `add 2 and 3 (${name})`;
    const t = await readSse(`${baseUrl}/v1/chat`, { method: 'POST', headers: auth(), body: JSON.stringify({ message }) }, { timeoutMs: 60_000 });
    const results = t.events.filter((e) => e.event === 'tool_result').map((e) => e.data as Record<string, any>);
    expect(results.length, log()).toBe(3);
    const [sum, add, echo] = results;
    expect(sum).toMatchObject({ name: 'everything__get-sum', verdict: 'repaired', ok: true, result: 'The sum of 2 and 3 is 5.' });
    expect(add).toMatchObject({ name: 'everything__add', verdict: 'blocked', category: 'phantom_tool' });
    expect(add!.suggestions).toContain('everything__get-sum');
    expect(echo).toMatchObject({ name: 'everything__echo', verdict: 'blocked', category: 'missing_required' });
    expect(t.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed', iterations: 4 } });
    // The answer reached the model; the server saw one call only, get-sum with the repaired numbers.
    const second = model.requests.find((r) => asked(r, message) && iteration(r) === 1)!;
    expect(JSON.stringify(lastToolResult(second))).toContain('The sum of 2 and 3 is 5.');
    expect(server.toolCalls()).toEqual([{ method: 'tools/call', tool: 'get-sum', arguments: { a: 2, b: 3 } }]);
  });

  it('GET /v1/tools (authenticated) lists the MCP tools and where they come from', async () => {
    const { baseUrl } = servers.get(name)!;
    expect((await fetch(`${baseUrl}/v1/tools`)).status).toBe(401);
    const res = await fetch(`${baseUrl}/v1/tools`, { headers: auth() });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: Array<Record<string, unknown>>; servers: Array<Record<string, unknown>> };
    expect(body.tools.find((t) => t.name === 'everything__get-sum')).toMatchObject({
      source: 'mcp',
      server: 'everything',
      serverTool: 'get-sum',
      annotations: { readOnlyHint: true, destructiveHint: false },
      destructive: false,
    });
    expect(body.tools.find((t) => t.name === 'delete_file')).toMatchObject({ source: 'functions', destructive: true });
    expect(body.tools.find((t) => t.name === 'write_file')).toMatchObject({ source: 'functions' });
    expect(body.servers).toEqual([
      expect.objectContaining({ server: 'everything', ok: true, protocolVersion: '2025-11-25' }),
      expect.objectContaining({ server: 'shop', ok: true, protocolVersion: '2026-07-28' }),
      expect.objectContaining({ server: 'strict', ok: true, protocolVersion: '2026-07-28' }),
    ]);
  });

  it('2026-07-28 servers (v2 SDK, default and legacy-rejecting): get_sum repaired to 5 on both, no initialize', async () => {
    const { baseUrl, log } = servers.get(name)!;
    const { shop, strict } = v2.get(name)!;
    const t = await readSse(
      `${baseUrl}/v1/chat`,
      { method: 'POST', headers: auth(), body: JSON.stringify({ message: `v2 sums (${name})` }) },
      { timeoutMs: 60_000 },
    );
    const results = t.events.filter((e) => e.event === 'tool_result').map((e) => e.data as Record<string, any>);
    expect(results, log()).toEqual([
      expect.objectContaining({ name: 'shop__get_sum', verdict: 'repaired', ok: true, result: { sum: 5 } }),
      expect.objectContaining({ name: 'strict__get_sum', verdict: 'repaired', ok: true, result: { sum: 5 } }),
    ]);
    for (const server of [shop, strict]) {
      expect(server.toolCalls('get_sum')).toEqual([expect.objectContaining({ arguments: { a: 2, b: 3 }, protocolVersion: '2026-07-28' })]);
      expect(server.received.map((m) => m.method)).not.toContain('initialize');
    }
  });

  it('confirm_order pauses the turn with the server’s question; {confirm: true} goes back in inputResponses and "ordered mug" reaches the model', async () => {
    const { baseUrl, log } = servers.get(name)!;
    const { strict } = v2.get(name)!;
    const created = await fetch(`${baseUrl}/v1/turns`, { method: 'POST', headers: auth(), body: JSON.stringify({ message: `order a mug (${name})` }) });
    expect(created.status, log()).toBe(201);
    const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
    const at = (path: string) => new URL(baseUrl).origin + path;
    const stream = await openStream(at(streamUrl), { headers: auth() });
    const question = await stream.until((e) => e.event === 'input_required', 60_000);
    expect(question.data, log()).toMatchObject({ server: 'strict', tool: 'confirm_order', message: 'Order mug?', requestedSchema: ORDER_SCHEMA });
    const other = await fetch(`${baseUrl}/v1/turns/${turnId}/inputs/${question.data.inputId}`, {
      method: 'POST',
      headers: { ...auth(), authorization: `Bearer ${otherJwt}` },
      body: JSON.stringify({ action: 'accept', content: { confirm: true } }),
    });
    expect(other.status, log()).toBe(403);
    const res = await fetch(`${baseUrl}/v1/turns/${turnId}/inputs/${question.data.inputId}`, {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify({ action: 'accept', content: { confirm: true } }),
    });
    expect(res.status, log()).toBe(202);
    await stream.until((e) => e.event === 'done', 60_000);
    expect(stream.events.find((e) => e.event === 'tool_result')?.data, log()).toMatchObject({ id: 'o1', ok: true, result: 'ordered mug' });
    expect(strict.toolCalls('confirm_order').at(-1)).toMatchObject({
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      requestState: ORDER_STATE,
    });
    const told = model.requests.find((r) => asked(r, `order a mug (${name})`) && iteration(r) === 1)!;
    expect(JSON.stringify(lastToolResult(told))).toContain('ordered mug');
  });
});
