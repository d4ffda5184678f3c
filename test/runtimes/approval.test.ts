// Human approval on the real runtimes (docs/approval.md § Expiry on each runtime, § What a waiting turn costs): workerd (`wrangler dev`, each turn in its
// Durable Object) and Deno (the Supabase entry) over PostgreSQL 17 + PostgREST behind the Supabase
// gateway stand-in, Node (`npm start`'s entry) over PGlite. On each, a call denied with a reason: the model
// is told the reason, and the tool never ran (the model's next call, read_file, finds no file). On workerd
// and Deno, a decision after the server process was killed (-9) while the call waited: the next process
// takes it and the turn completes in the same log (Node's is test/durability/approval-restart.test.ts);
// on Deno, a decision taken by another instance than the one whose reader waits on the pause. The same
// across a restart for a v2 MCP server's question (confirm_order's "Order mug?", issue 33).
// And each edge runtime's clock for a wait that runs out: on workerd the turn's object's alarm, with no
// request at all; on Deno (no timer outlives a request) the next request that touches the turn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { signingKeys } from '../support/jwt.ts';
import { migrate, startPostgres, type PostgresCluster } from '../support/postgres.ts';
import { startPostgrest, type PostgrestServer } from '../support/postgrest.ts';
import { lastToolResult, startScriptedOpenAI, type ChatRequest, type ScriptedServer } from '../support/scripted-openai.ts';
import { openStream, type SseEvent } from '../support/sse-client.ts';
import { startSupabaseGateway, TEST_PUBLISHABLE_KEY, TEST_SECRET_KEY, type SupabaseGateway } from '../support/supabase-gateway.ts';
import { ORDER_STATE, type RunningV2, startV2Server } from '../support/mcp-v2-servers.ts';
import { startDeno, startNode, startWorkerd, type RuntimeName, type RuntimeServer } from './servers.ts';

const ALICE = 'a11ce000-0000-4000-8000-00000000a991';
const CONTENT = '# plan\n';

let pg: PostgresCluster;
let rest: PostgrestServer;
let gateway: SupabaseGateway;
let model: ScriptedServer;
let shop: RunningV2;
let token: string;
let jwks: string;
const servers: RuntimeServer[] = [];

/** The file a turn's message names: each turn writes its own. */
const fileOf = (req: ChatRequest) => /the file (\S+)/.exec(req.messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? 'x.md';
/** The requests of the turn that writes `file`. */
const requestsFor = (file: string) => model.requests.filter((r) => fileOf(r) === file);

beforeAll(async () => {
  // A write that waits for a person; then a read of the same file (what it finds says whether the write ran); then an answer.
  [pg, model] = await Promise.all([
    startPostgres(),
    startScriptedOpenAI((req) => {
      const path = fileOf(req);
      const results = req.messages.filter((m) => m.role === 'tool').length;
      // A turn that orders a mug from a v2 MCP server, whose confirm_order asks the person first.
      if (/^order a mug/.test(String(req.messages.find((m) => m.role === 'user')?.content ?? ''))) {
        return results === 0 ? { toolCalls: [{ name: 'shop__confirm_order', arguments: '{"item":"mug"}' }] } : { text: 'Ordered.' };
      }
      if (results === 0) return { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path, content: CONTENT }) }] };
      if (results === 1) return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path }) }] };
      return { text: 'Done.' };
    }),
  ]);
  shop = await startV2Server({ legacy: 'reject' });
  await migrate(pg.url, readMigrations());
  const keys = await signingKeys();
  rest = await startPostgrest({ dbUri: pg.authenticatorUrl, jwtSecret: keys.postgrestJwks });
  gateway = await startSupabaseGateway({ restUrl: rest.url, secretKey: TEST_SECRET_KEY, publishableKey: TEST_PUBLISHABLE_KEY, jwks: keys.jwks });
  token = await keys.userToken(ALICE, `${gateway.url}/auth/v1`);
  jwks = JSON.stringify(keys.jwks);
}, 120_000);

afterAll(async () => {
  for (const s of servers) await s.stop();
  await gateway?.close();
  await model?.close();
  await shop?.stop();
  await rest?.stop();
  await pg?.stop();
});

/** Starts the runtime as a deployer configures it; workerd and Deno on the Supabase project, Node on PGlite. */
async function start(name: RuntimeName, vars: Record<string, string> = {}): Promise<RuntimeServer> {
  const common = {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-scripted',
    MODEL: 'scripted-model',
    MODEL_RETRIES: '0',
    KEEPALIVE_MS: '1000',
    APPROVAL_TOOLS: 'write_file',
    ...vars,
  };
  const server =
    name === 'node'
      ? await startNode(common)
      : name === 'workerd'
        ? await startWorkerd({ ...common, SUPABASE_URL: gateway.url, SUPABASE_SECRET_KEY: TEST_SECRET_KEY, SUPABASE_JWKS: jwks })
        : await startDeno({ ...common, SUPABASE_URL: gateway.url, SUPABASE_SECRET_KEYS: JSON.stringify({ default: TEST_SECRET_KEY }), SUPABASE_JWKS: jwks });
  servers.push(server);
  return server;
}

const headers = (server: RuntimeServer): Record<string, string> => ({
  'content-type': 'application/json',
  ...(server.name === 'node' ? server.localAuth : { authorization: `Bearer ${token}` }),
});
/** A path the app returned (a streamUrl, relative to where the app is mounted: /rebound on Deno) on the server's origin. */
const at = (server: RuntimeServer, path: string) => new URL(server.baseUrl).origin + path;

/** Starts a turn writing `file` and reads its stream until the call waits; the stream is left open. */
async function pausedTurn(server: RuntimeServer, file: string) {
  const created = await fetch(`${server.baseUrl}/v1/turns`, {
    method: 'POST',
    headers: headers(server),
    body: JSON.stringify({ message: `write the file ${file}` }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
  const stream = await openStream(at(server, streamUrl), { headers: headers(server) });
  const asked = await stream.until((e) => e.event === 'approval_required', 60_000);
  expect(asked.data).toMatchObject({ name: 'write_file', arguments: { path: file, content: CONTENT } });
  return { turnId, streamUrl, asked, stream };
}

function decide(server: RuntimeServer, turnId: string, approvalId: string, decision: Record<string, unknown>) {
  return fetch(`${server.baseUrl}/v1/turns/${turnId}/approvals/${approvalId}`, { method: 'POST', headers: headers(server), body: JSON.stringify(decision) });
}

/** The rest of the turn after `asked`, read through a fresh stream URL (a reader that reconnects with Last-Event-ID). */
async function rest_(server: RuntimeServer, streamUrl: string, asked: SseEvent): Promise<SseEvent[]> {
  const stream = await openStream(at(server, streamUrl), { headers: { ...headers(server), 'last-event-id': String(asked.id) } });
  await stream.until((e) => e.event === 'done', 60_000);
  stream.close();
  return stream.events;
}

/** The whole log, replayed from the start: one numbering from turn_start to done. */
async function wholeLog(server: RuntimeServer, streamUrl: string): Promise<SseEvent[]> {
  const stream = await openStream(at(server, streamUrl), { headers: headers(server) });
  await stream.until((e) => e.event === 'done', 60_000);
  stream.close();
  expect(stream.events.map((e) => Number(e.id))).toEqual(stream.events.map((_, i) => i + 1));
  return stream.events;
}

const TURN = ['turn_start', 'tool_call', 'approval_required', 'tool_result', 'tool_call', 'tool_result', 'text_delta', 'done'];

async function pgWhere<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${servers.at(-1)?.log().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(['node', 'workerd', 'deno'] as const)('approval on %s', (runtime) => {
  it('denied with a reason: the model gets the reason, the tool never ran, the turn completes', { timeout: 240_000 }, async () => {
    const server = await start(runtime);
    const file = `denied-${runtime}.md`;
    const { turnId, streamUrl, asked, stream } = await pausedTurn(server, file);
    const res = await decide(server, turnId, asked.data.approvalId, { approved: false, reason: 'Not this file.' });
    expect(res.status, await res.clone().text()).toBe(202);
    expect(await res.json()).toMatchObject({ turnId, approvalId: asked.data.approvalId, status: 'denied' });
    await stream.until((e) => e.event === 'done', 60_000);
    stream.close();
    const results = stream.events.filter((e) => e.event === 'tool_result');
    expect(results[0]!.data).toMatchObject({ id: asked.data.toolCallId, name: 'write_file', ok: false, approval: 'denied' });
    // The model's next request carries the reason; its read of the file finds nothing: the write never ran.
    const [, told, read] = requestsFor(file);
    expect(lastToolResult(told!)).toMatchObject({ ok: false, error: expect.stringMatching(/denied by the user/), reason: 'Not this file.' });
    expect(results[1]!.data).toMatchObject({ name: 'read_file', ok: false });
    expect(lastToolResult(read!)).toMatchObject({ ok: false, error: expect.stringContaining(file) });
    expect(stream.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 3 });
    expect((await wholeLog(server, streamUrl)).map((e) => e.event)).toEqual(TURN);
    await server.stop();
  });
});

describe.each(['workerd', 'deno'] as const)('approval across a restart on %s', (runtime) => {
  it('approved after a restart (kill -9 while the call waits): the next process takes it and completes the turn in the same log', {
    timeout: 300_000,
  }, async () => {
    let server = await start(runtime);
    const file = `restart-${runtime}.md`;
    const { turnId, asked } = await pausedTurn(server, file);
    await server.kill();
    server = await start(runtime);
    const res = await decide(server, turnId, asked.data.approvalId, { approved: true });
    expect(res.status, await res.clone().text()).toBe(202);
    const { streamUrl: fresh } = (await res.json()) as { streamUrl: string };
    const rest = await rest_(server, fresh, asked);
    expect(rest.map((e) => Number(e.id))).toEqual(rest.map((_, i) => Number(asked.id) + 1 + i));
    expect(rest[0]!.data).toMatchObject({
      id: asked.data.toolCallId,
      name: 'write_file',
      ok: true,
      approval: 'approved',
      result: { path: file, action: 'created' },
    });
    // The model's read finds what the approved write wrote.
    expect(lastToolResult(requestsFor(file).at(-1)!)).toMatchObject({ ok: true, result: { path: file } });
    expect(JSON.stringify(lastToolResult(requestsFor(file).at(-1)!))).toContain('# plan');
    expect(rest.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 3 });
    expect((await wholeLog(server, fresh)).map((e) => e.event)).toEqual(TURN);
    await server.stop();
  });
});

describe.each(['workerd', 'deno'] as const)('a server’s question across a restart on %s', (runtime) => {
  it('kill -9 while "Order mug?" waits; the next process takes {confirm: true} and sends the call again from its own connection', {
    timeout: 300_000,
  }, async () => {
    const vars = { MCP_SERVERS: JSON.stringify([{ name: 'shop', url: shop.url }]) };
    let server = await start(runtime, vars);
    const created = await fetch(`${server.baseUrl}/v1/turns`, {
      method: 'POST',
      headers: headers(server),
      body: JSON.stringify({ message: `order a mug (${runtime})` }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
    const stream = await openStream(at(server, streamUrl), { headers: headers(server) });
    const asked = await stream.until((e) => e.event === 'input_required', 60_000);
    expect(asked.data).toMatchObject({ server: 'shop', tool: 'confirm_order', message: 'Order mug?' });
    stream.close();
    await server.kill();
    server = await start(runtime, vars);
    const res = await fetch(`${server.baseUrl}/v1/turns/${turnId}/inputs/${asked.data.inputId}`, {
      method: 'POST',
      headers: headers(server),
      body: JSON.stringify({ action: 'accept', content: { confirm: true } }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { streamUrl: fresh } = (await res.json()) as { streamUrl: string };
    const rest = await rest_(server, fresh, asked);
    expect(rest[0]!.data).toMatchObject({ id: asked.data.toolCallId, name: 'shop__confirm_order', ok: true, result: 'ordered mug' });
    expect(rest.at(-1)!.data).toMatchObject({ reason: 'completed' });
    expect(shop.toolCalls('confirm_order').at(-1)).toMatchObject({
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      requestState: ORDER_STATE,
      protocolVersion: '2026-07-28',
    });
    const [row] = await pg.sql`select status, arguments from agent_approvals where id = ${asked.data.inputId}`;
    expect(row).toEqual({ status: 'approved', arguments: { action: 'accept', content: { confirm: true } } });
    await server.stop();
  });
});

describe('a decision taken by another isolate (Supabase: each request may land on any)', () => {
  it('Deno: paused on one instance, approved on another; the reader on the first gets the rest of the turn', { timeout: 240_000 }, async () => {
    const [first, second] = await Promise.all([start('deno'), start('deno')]);
    const file = 'two-isolates.md';
    const { turnId, streamUrl, asked, stream } = await pausedTurn(first, file);
    const res = await decide(second, turnId, asked.data.approvalId, { approved: true });
    expect(res.status, await res.clone().text()).toBe(202);
    await stream.until((e) => e.event === 'done', 30_000);
    stream.close();
    expect(stream.events.map((e) => e.event)).toEqual(TURN);
    // A reader that comes later, on either instance, reads the same log.
    for (const server of [first, second]) expect((await wholeLog(server, streamUrl)).map((e) => e.event)).toEqual(TURN);
    await Promise.all([first.stop(), second.stop()]);
  });
});

describe('a wait that runs out on the edge', () => {
  it("workerd: the turn object's alarm expires it with no request, and the turn goes on in its object", { timeout: 240_000 }, async () => {
    const server = await start('workerd', { APPROVAL_TIMEOUT_MS: '1500' });
    const file = 'alarm.md';
    const { streamUrl, asked, stream } = await pausedTurn(server, file);
    stream.close(); // nobody reads, nobody asks: only the alarm is left
    const turnId = /turns\/([^/]+)\/stream/.exec(streamUrl)![1]!;
    await pgWhere('the turn finished by the alarm', async () => {
      const [row] = await pg.sql`select status from agent_turns where id = ${turnId}`;
      return row?.status === 'finished' ? row : undefined;
    });
    const [approval] = await pg.sql`select status from agent_approvals where id = ${asked.data.approvalId}`;
    expect(approval).toEqual({ status: 'expired' });
    const log = await wholeLog(server, streamUrl);
    expect(log.map((e) => e.event)).toEqual(TURN);
    expect(log[3]!.data).toMatchObject({ id: asked.data.toolCallId, ok: false, approval: 'expired' });
    expect(lastToolResult(requestsFor(file)[1]!)).toMatchObject({ ok: false, error: expect.stringMatching(/counts as denied by the user/) });
    await server.stop();
  });

  it('Deno: nothing expires it until a request touches the turn; that request finds the turn gone on', { timeout: 240_000 }, async () => {
    const server = await start('deno', { APPROVAL_TIMEOUT_MS: '1000' });
    const file = 'next-request.md';
    const { streamUrl, asked, stream } = await pausedTurn(server, file);
    stream.close();
    await new Promise((r) => setTimeout(r, 2_000));
    // Past its expiry, still pending: no timer runs on Supabase.
    expect(await pg.sql`select status from agent_approvals where id = ${asked.data.approvalId}`).toEqual([{ status: 'pending' }]);
    expect(requestsFor(file)).toHaveLength(1);
    const log = await wholeLog(server, streamUrl);
    expect(log.map((e) => e.event)).toEqual(TURN);
    expect(log[3]!.data).toMatchObject({ id: asked.data.toolCallId, ok: false, approval: 'expired' });
    expect(await pg.sql`select status from agent_approvals where id = ${asked.data.approvalId}`).toEqual([{ status: 'expired' }]);
    await server.stop();
  });
});

describe('a decision stored but never gone on with (its process died between the two), on the edge', () => {
  /** What the dead process got to store: the decision (as agent_decide_approval writes it), the turn still paused. */
  const decideInPostgres = (approvalId: string) => pg.sql`update public.agent_approvals set status = 'approved', decided_at = now() where id = ${approvalId}`;

  it("workerd: the turn object's alarm goes on with it, with no request", { timeout: 240_000 }, async () => {
    const server = await start('workerd', { APPROVAL_TIMEOUT_MS: '3000' });
    const file = 'stranded-alarm.md';
    const { streamUrl, asked, stream } = await pausedTurn(server, file);
    stream.close();
    // Decided a moment after the pause, once the object has set its alarm for the call's expiry (as a real decision comes).
    await new Promise((r) => setTimeout(r, 1_000));
    await decideInPostgres(asked.data.approvalId);
    const turnId = /turns\/([^/]+)\/stream/.exec(streamUrl)![1]!;
    await pgWhere('the turn gone on with by the alarm', async () => {
      const [row] = await pg.sql`select status from agent_turns where id = ${turnId}`;
      return row?.status === 'finished' ? row : undefined;
    });
    const log = await wholeLog(server, streamUrl);
    expect(log.map((e) => e.event)).toEqual(TURN);
    expect(log.map((e) => Number(e.id))).toEqual(TURN.map((_, i) => i + 1));
    expect(log[3]!.data).toMatchObject({ id: asked.data.toolCallId, ok: true, approval: 'approved' });
    expect(requestsFor(file)).toHaveLength(3); // the pause's, then the continuation's two, once
    await server.stop();
  });

  it('Deno: the next request that touches the turn goes on with it', { timeout: 240_000 }, async () => {
    const server = await start('deno');
    const file = 'stranded-request.md';
    const { streamUrl, asked, stream } = await pausedTurn(server, file);
    stream.close();
    await decideInPostgres(asked.data.approvalId);
    expect(requestsFor(file)).toHaveLength(1);
    const log = await wholeLog(server, streamUrl);
    expect(log.map((e) => e.event)).toEqual(TURN);
    expect(log.map((e) => Number(e.id))).toEqual(TURN.map((_, i) => i + 1));
    expect(log[3]!.data).toMatchObject({ id: asked.data.toolCallId, ok: true, approval: 'approved' });
    expect(requestsFor(file)).toHaveLength(3); // the pause's, then the continuation's two, once
    await server.stop();
  });
});
