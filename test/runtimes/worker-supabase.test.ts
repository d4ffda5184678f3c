// The Worker as deployed with Supabase, under workerd (`wrangler dev`): storage in PostgreSQL 17 through
// PostgREST, so each turn runs in a Durable Object of its own (src/entries/turn-routing.ts) while the
// Worker creates turns and serves everything else. POST /v1/chat is created by the Worker and streamed
// by the turn's object, and so is useChat's POST /v1/ui/chat (its resume GET found by the Worker, served
// by the object); resume, completion with no reader, stop and two readers go through the object;
// the log, the history and the activity rows land in Postgres; stream tokens issued by the Worker verify
// in the object without TURN_TOKEN_SECRET (both key them from the secret key). Configured as a deployer
// on Supabase's new API keys does it: SUPABASE_URL, one sb_secret_… SUPABASE_SECRET_KEY and the
// project's SUPABASE_JWKS, nothing legacy; the URL is the key-exchanging gateway stand-in
// (test/support/supabase-gateway.ts), which refuses a key sent as a bearer token.
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { signingKeys } from '../support/jwt.ts';
import { migrate, startPostgres, type PostgresCluster } from '../support/postgres.ts';
import { startPostgrest, type PostgrestServer } from '../support/postgrest.ts';
import { startSupabaseGateway, TEST_PUBLISHABLE_KEY, TEST_SECRET_KEY, type SupabaseGateway } from '../support/supabase-gateway.ts';
import { startScriptedOpenAI, type ChatRequest, type ScriptedServer } from '../support/scripted-openai.ts';
import { startWorkerd, type RuntimeServer } from './servers.ts';
import { readSse, type SseEvent, type SseTranscript } from './sse-client.ts';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { NodeChat, partsOf, readReply, textOf, toolParts, transport, userMessage } from '../ui-chat/client.ts';
import { awayFromWindowEdge } from '../data/storage-contract.ts';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const MALLORY = 'ba11ad00-0000-4000-8000-000000000002';
const ANSWER = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
/** A continuation still running well after its client has gone (about 9 s). */
const SLOW_ANSWER = Array.from({ length: 30 }, (_, i) => `slow${i}`).join(' ');
const turnMessage = (req: ChatRequest) => req.messages.find((m) => m.role === 'user')?.content ?? '';

let pg: PostgresCluster;
let rest: PostgrestServer;
let gateway: SupabaseGateway;
let model: ScriptedServer;
let worker: RuntimeServer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  [pg, model] = await Promise.all([
    startPostgres(),
    startScriptedOpenAI((req) => {
      const message = turnMessage(req);
      if (message.startsWith('TALK')) return { text: ANSWER, delayMs: 250 };
      if (message.startsWith('APPROVE'))
        return req.messages.some((m) => m.role === 'tool')
          ? { text: SLOW_ANSWER, delayMs: 300 }
          : { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: '{"path":"plan.md","content":"# plan\\n"}' }] };
      return req.messages.some((m) => m.role === 'tool')
        ? { text: ANSWER, delayMs: 15 }
        : { text: 'Let me look. ', toolCalls: [{ id: 'call_look', name: 'list_files', arguments: '{}' }], delayMs: 15 };
    }),
  ]);
  await migrate(pg.url, readMigrations());
  const keys = await signingKeys();
  rest = await startPostgrest({ dbUri: pg.authenticatorUrl, jwtSecret: keys.postgrestJwks });
  gateway = await startSupabaseGateway({ restUrl: rest.url, secretKey: TEST_SECRET_KEY, publishableKey: TEST_PUBLISHABLE_KEY, jwks: keys.jwks });
  tokens.alice = await keys.userToken(ALICE, `${gateway.url}/auth/v1`);
  tokens.mallory = await keys.userToken(MALLORY, `${gateway.url}/auth/v1`);
  tokens.anonymous = await keys.userToken(crypto.randomUUID(), `${gateway.url}/auth/v1`, { is_anonymous: true });
  worker = await startWorkerd(
    {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-scripted',
      MODEL: 'scripted-model',
      MAX_ITERATIONS: '3',
      KEEPALIVE_MS: '200',
      MODEL_RETRIES: '0',
      APPROVAL_TOOLS: 'write_file',
      // The gateway serves signed-in users, not anonymous sign-ins, one request a minute each.
      GATEWAY_USERS: 'authenticated',
      GATEWAY_RPM: '1',
      // Only the new-style settings; no TURN_TOKEN_SECRET: the Worker and the turn objects must still
      // accept each other's tokens, keyed from the secret key.
      SUPABASE_URL: gateway.url,
      SUPABASE_SECRET_KEY: TEST_SECRET_KEY,
      SUPABASE_JWKS: JSON.stringify(keys.jwks),
    },
    { logLevel: 'log' },
  );
}, 150_000);

afterAll(async () => {
  await worker?.stop();
  await gateway?.close();
  await model?.close();
  await rest?.stop();
  await pg?.stop();
});

const as = (user: 'alice' | 'mallory') => ({ authorization: `Bearer ${tokens[user]}`, 'content-type': 'application/json' });

async function createTurn(message: string, user: 'alice' | 'mallory' = 'alice') {
  const res = await fetch(`${worker.baseUrl}/v1/turns`, { method: 'POST', headers: as(user), body: JSON.stringify({ message }) });
  expect(res.status, await res.clone().text()).toBe(201);
  const created = (await res.json()) as { turnId: string; sessionId: string; streamUrl: string };
  return { ...created, streamUrl: `${worker.baseUrl}${created.streamUrl}` };
}

describe('the gateway on the Worker', () => {
  it("refuses an anonymous sign-in's token unless GATEWAY_USERS names it; a user past GATEWAY_RPM gets 429 with Retry-After, counted in Postgres", async () => {
    const ask = (bearer: string) =>
      fetch(`${worker.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'scripted-model', messages: [{ role: 'user', content: 'GATEWAY hi' }] }),
      });
    const asked = () => model.requests.filter((r) => turnMessage(r) === 'GATEWAY hi').length;
    const anonymous = await ask(tokens.anonymous!);
    expect(anonymous.status).toBe(403);
    expect(((await anonymous.json()) as { error: { message: string } }).error.message).toMatch(/GATEWAY_USERS=authenticated,anonymous/);
    expect(asked()).toBe(0);
    await awayFromWindowEdge();
    const served = await ask(tokens.mallory!);
    expect(served.status, await served.clone().text()).toBe(200);
    const limited = await ask(tokens.mallory!);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(asked()).toBe(1);
    const rows = await pg.sql`select amount from agent_gateway_usage where subject = ${`user:${MALLORY}`} and kind = 'requests'`;
    expect(rows.map((r) => Number(r.amount))).toEqual([1]);
  }, 20_000);
});

function readTurn(url: string, options: { lastEventId?: string; keep?: number } = {}): Promise<SseTranscript> {
  const keep = options.keep;
  return readSse(
    url,
    { headers: options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId } },
    { timeoutMs: 20_000, ...(keep === undefined ? {} : { stopWhen: (_e, t) => t.events.length >= keep }) },
  );
}

/** A run as the script defines it: what differs between runs (ids of the turn and session, timings) left out, and text joined, since deltas that reach the app together become one event. */
function comparable(events: SseEvent[]): unknown[] {
  const out: Array<{ event: string; data: unknown }> = [];
  for (const e of events) {
    const last = out.at(-1);
    if (e.event === 'text_delta' && last?.event === 'text_delta') (last.data as { text: string }).text += (e.data as { text: string }).text;
    else
      out.push({
        event: e.event,
        data: JSON.parse(JSON.stringify(e.data, (k, v) => (['turnId', 'sessionId', 'durationMs'].includes(k) ? undefined : v))) as unknown,
      });
  }
  return out;
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${worker.log().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const turnRow = async (id: string) =>
  (await pg.sql`select status, outcome from agent_turns where id = ${id}`)[0] as { status: string; outcome: string | null } | undefined;
/** The turn objects that built their app so far: each logs one startup line. */
const objectStarts = () =>
  worker
    .log()
    .split('\n')
    .filter((l) => l.includes('rebound on Cloudflare Workers (turn object)')).length;

describe('workerd with Supabase storage: each turn in its own Durable Object', () => {
  it('reaches Postgres only through the gateway with its sb_secret_ key in apikey, never refused; /health names the storage', async () => {
    await createTurn('look around');
    expect(gateway.requests.length).toBeGreaterThan(0);
    expect(gateway.requests.filter((r) => r.status === 401)).toEqual([]);
    expect(new Set(gateway.requests.map((r) => `${r.key}${r.userToken ? ' + user token' : ''}`))).toEqual(new Set(['secret']));
    expect(await (await fetch(`${worker.baseUrl}/health`)).json()).toMatchObject({ ok: true, storage: 'supabase' });
  }, 30_000);

  it('POST /v1/chat: created by the Worker, streamed by a new turn object; log, history and activity in Postgres', async () => {
    const objectsBefore = objectStarts();
    const t = await readSse(
      `${worker.baseUrl}/v1/chat`,
      { method: 'POST', headers: as('alice'), body: JSON.stringify({ message: 'look around' }) },
      { timeoutMs: 20_000 },
    );
    expect(t.status).toBe(200);
    expect(t.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    expect(t.events.map((e) => Number(e.id))).toEqual(t.events.map((_, i) => i + 1));
    const { turnId, sessionId } = t.events[0]!.data as { turnId: string; sessionId: string };
    await until('one more turn object', () => objectStarts() > objectsBefore || undefined);
    expect(objectStarts() - objectsBefore).toBe(1);
    // The outcome comes with the activity flush, the log's last rows with the writer's: both just after done.
    await until('the outcome', async () => (await turnRow(turnId))?.outcome === 'completed' || undefined);
    expect(await turnRow(turnId)).toEqual({ status: 'finished', outcome: 'completed' });
    const rows = await until('the whole log in Postgres', async () => {
      const r = await pg.sql`select seq, last_seq from agent_turn_events where turn_id = ${turnId} order by seq`;
      return r.at(-1)?.last_seq === t.events.length ? r : undefined;
    });
    expect(rows.map((r) => r.seq)).toEqual([1, ...rows.slice(0, -1).map((r) => r.last_seq + 1)]);
    // Text deltas are batched into few rows.
    expect(rows.length).toBeLessThan(t.events.length / 2);
    const history = await (await fetch(`${worker.baseUrl}/v1/sessions/${sessionId}/messages`, { headers: as('alice') })).json();
    expect(history.messages.at(-1)).toEqual({ role: 'assistant', content: ANSWER });
    await until('the activity row of the call', async () => (await pg.sql`select 1 from agent_activity where turn_id = ${turnId}`).length === 1 || undefined);
  }, 30_000);

  it('resumes after a drop at a random event: the joined events equal an uninterrupted run, ids contiguous', async () => {
    const objectsBefore = objectStarts();
    const reference = await readTurn((await createTurn('look around')).streamUrl);
    const total = reference.events.length;
    expect(reference.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    // Another run may have fewer events than the reference (deltas arriving together are one event): never cut at its end.
    const cut = 1 + Math.floor(Math.random() * (total / 2));
    const turn = await createTurn('look around');
    const whole = readTurn(turn.streamUrl); // an uninterrupted reader of the same turn
    const first = await readTurn(turn.streamUrl, { keep: cut });
    expect(first.abandoned, `cut after ${cut} of ${total}`).toBe(true);
    await new Promise((r) => setTimeout(r, 150));
    const rest = await readTurn(turn.streamUrl, { lastEventId: first.events.at(-1)!.id! });
    const joined = [...first.events, ...rest.events];
    expect(
      joined.map((e) => Number(e.id)),
      `cut after ${cut} of ${total}`,
    ).toEqual(joined.map((_, i) => i + 1));
    expect(
      joined.map((e) => [e.id, e.event, e.data]),
      `cut after ${cut} of ${total}`,
    ).toEqual((await whole).events.map((e) => [e.id, e.event, e.data]));
    expect(comparable(joined), `cut after ${cut} of ${total}`).toEqual(comparable(reference.events));
    expect((await fetch(turn.streamUrl, { headers: { 'last-event-id': String(joined.length) } })).status).toBe(204);
    // Five requests for two turns, each turn's served by its one object.
    expect(objectStarts() - objectsBefore).toBe(2);
  }, 30_000);

  it('completes a turn while no reader is connected: finished in Postgres, activity written, done completed on replay', async () => {
    const turn = await createTurn('look around unattended');
    expect((await readTurn(turn.streamUrl, { keep: 2 })).abandoned).toBe(true);
    await until('the turn finished', async () => (await turnRow(turn.turnId))?.outcome === 'completed' || undefined);
    expect(await turnRow(turn.turnId)).toEqual({ status: 'finished', outcome: 'completed' });
    await until(
      'the activity row of the call',
      async () => (await pg.sql`select 1 from agent_activity where turn_id = ${turn.turnId}`).length === 1 || undefined,
    );
    const replay = await readTurn(turn.streamUrl);
    expect(replay.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
  }, 30_000);

  it('stop by its owner ends the turn as aborted for both readers and aborts the upstream request; others get 403, no token 401', async () => {
    const turn = await createTurn('TALK slowly');
    const stopAs = (user?: 'alice' | 'mallory') => fetch(`${worker.baseUrl}/v1/turns/${turn.turnId}/stop`, { method: 'POST', headers: user ? as(user) : {} });
    const readers = [readTurn(turn.streamUrl), readTurn(turn.streamUrl)];
    await until('the model request', () => model.requests.some((r) => turnMessage(r) === 'TALK slowly') || undefined);
    // Stream tokens are bound to their turn and user: none is a 401, another turn's is a 403.
    expect((await fetch(`${worker.baseUrl}/v1/turns/${turn.turnId}/stream`)).status).toBe(401);
    const theirs = await createTurn('not yours', 'mallory');
    const token = new URL(theirs.streamUrl).searchParams.get('token')!;
    expect((await fetch(`${worker.baseUrl}/v1/turns/${turn.turnId}/stream?token=${encodeURIComponent(token)}`)).status).toBe(403);
    expect((await stopAs()).status).toBe(401);
    expect((await stopAs('mallory')).status).toBe(403);
    const abortedBefore = model.aborted;
    expect((await stopAs('alice')).status).toBe(202);
    const [a, b] = await Promise.all(readers);
    expect(a!.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'aborted' } });
    expect(b!.events.map((e) => [e.id, e.event, e.data])).toEqual(a!.events.map((e) => [e.id, e.event, e.data]));
    await until('the upstream request aborted', () => model.aborted > abortedBefore || undefined, 5_000);
    await until('the outcome', async () => (await turnRow(turn.turnId))?.outcome === 'aborted' || undefined);
    expect(await turnRow(turn.turnId)).toEqual({ status: 'finished', outcome: 'aborted' });
    expect((await stopAs('alice')).status).toBe(409);
  }, 30_000);
});

/** Sends a message as useChat does (DefaultChatTransport) and leaves after the first text, as its stop() does. */
async function sendAndLeave(chatId: string, text: string) {
  const leave = new AbortController();
  const stream = await transport(worker.baseUrl, { authorization: as('alice').authorization }).sendMessages({
    chatId,
    messages: [userMessage(text)],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: leave.signal,
  });
  const reader = stream.getReader();
  const seen: UIMessageChunk[] = [];
  while (!seen.some((c) => c.type === 'text-delta')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream of ${chatId} ended before any text`);
    seen.push(value);
  }
  leave.abort();
  await reader.cancel().catch(() => {});
  const start = seen[0] as Extract<UIMessageChunk, { type: 'start' }>;
  return { turnId: start.messageId!, sessionId: (start.messageMetadata as { sessionId: string }).sessionId };
}

/** GET /v1/ui/chat/:id/stream as useChat({resume: true}) calls it on mount. */
async function resumeChat(chatId: string) {
  const seen: Response[] = [];
  const stream = await transport(worker.baseUrl, { authorization: as('alice').authorization }, seen).reconnectToStream({ chatId });
  return { stream, response: seen[0]! };
}

describe('workerd with Supabase storage: useChat turns in their Durable Object', () => {
  it('a POST /v1/ui/chat turn runs in a turn object: after its reader left it completes unattended, and resume replays it whole', async () => {
    const objectsBefore = objectStarts();
    const abortedBefore = model.abortedRequests.length;
    const [unattended, resumed] = await Promise.all([sendAndLeave('ui-unattended', 'TALK to nobody'), sendAndLeave('ui-resumed', 'TALK to a reload')]);
    // One object per turn: the Worker created each turn, the turn's object streams it.
    await until('two more turn objects', () => objectStarts() - objectsBefore >= 2 || undefined);
    expect(objectStarts() - objectsBefore).toBe(2);

    // useChat({resume: true}) after a reload: the chat's running turn from its first chunk, followed to the end.
    const back = await resumeChat('ui-resumed');
    expect(back.response.status).toBe(200);
    expect(back.response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const reply = await readReply(back.stream!, back.response);
    expect(reply.errors).toEqual([]);
    expect(reply.message.id).toBe(resumed.turnId);
    expect(textOf(reply.message)).toBe(ANSWER);
    expect(reply.message.metadata).toMatchObject({ turnId: resumed.turnId, reason: 'completed' });
    expect(objectStarts() - objectsBefore).toBe(2);

    // The other turn had no reader from its first words to its end.
    await until('the unattended turn finished', async () => (await turnRow(unattended.turnId))?.outcome === 'completed' || undefined);
    expect(await turnRow(unattended.turnId)).toEqual({ status: 'finished', outcome: 'completed' });
    const history = await (await fetch(`${worker.baseUrl}/v1/sessions/${unattended.sessionId}/messages`, { headers: as('alice') })).json();
    expect(history.messages.at(-1)).toEqual({ role: 'assistant', content: ANSWER });
    // Neither reader leaving aborted its upstream request.
    expect(model.abortedRequests.slice(abortedBefore).map((i) => turnMessage(model.requests[i]!))).toEqual([]);
    // Both have ended: nothing to resume.
    for (const chatId of ['ui-unattended', 'ui-resumed']) expect((await resumeChat(chatId)).response.status, chatId).toBe(204);
  }, 30_000);

  // Local workerd does not cut a Worker request's waitUntil 30 s after its client left as Cloudflare does, so
  // where the decision is taken is asserted by test/ui-chat/approval.test.ts (dispatch with a recording
  // namespace); here the whole path runs on workerd: the Worker's check, the body sent on to the object.
  it("useChat's approval response goes to the turn's object: decided there, its continuation finishes after its client left", {
    timeout: 120_000,
  }, async () => {
    const chat = new NodeChat({ id: 'ui-approve', baseUrl: worker.baseUrl, headers: { authorization: as('alice').authorization } });
    await chat.sendMessage({ text: 'APPROVE the plan' });
    await chat.settled();
    const waiting = toolParts(chat.lastMessage!).find((t) => t.toolName === 'write_file')!;
    expect(waiting.state).toBe('approval-requested');
    const turnId = chat.lastMessage!.id;
    expect((await turnRow(turnId))?.status).toBe('awaiting_approval');
    // What addToolApprovalResponse posts (lastAssistantMessageIsCompleteWithApprovalResponses holds for it), sent by the transport, left after the first words.
    const messages = chat.messages.map((m) =>
      m.role !== 'assistant'
        ? m
        : {
            ...m,
            parts: partsOf(m).map((p) =>
              p.state === 'approval-requested' ? { ...p, state: 'approval-responded', approval: { ...p.approval, approved: true } } : p,
            ),
          },
    ) as UIMessage[];
    expect(lastAssistantMessageIsCompleteWithApprovalResponses({ messages })).toBe(true);
    const abortedBefore = model.abortedRequests.length;
    const leave = new AbortController();
    const stream = await transport(worker.baseUrl, { authorization: as('alice').authorization }).sendMessages({
      chatId: 'ui-approve',
      messages,
      trigger: 'submit-message',
      messageId: messages.at(-1)!.id,
      abortSignal: leave.signal,
    });
    const reader = stream.getReader();
    const seen: UIMessageChunk[] = [];
    while (!seen.some((c) => c.type === 'text-delta')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the continuation ended before any text: ${JSON.stringify(seen)}`);
      seen.push(value);
    }
    expect(seen.find((c) => c.type === 'tool-output-available')).toMatchObject({ toolCallId: waiting.toolCallId });
    leave.abort();
    await reader.cancel().catch(() => {});
    // Nobody reads it from its first words to its end.
    await until('the continuation finished', async () => (await turnRow(turnId))?.outcome === 'completed' || undefined, 60_000);
    expect(await turnRow(turnId)).toEqual({ status: 'finished', outcome: 'completed' });
    const [{ session_id: sessionId }] = (await pg.sql`select session_id from agent_turns where id = ${turnId}`) as unknown as [{ session_id: string }];
    const history = await (await fetch(`${worker.baseUrl}/v1/sessions/${sessionId}/messages`, { headers: as('alice') })).json();
    expect(history.messages.at(-1)).toEqual({ role: 'assistant', content: SLOW_ANSWER });
    expect(model.abortedRequests.slice(abortedBefore)).toEqual([]);
  });
});
