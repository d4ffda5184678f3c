// One scenario, three runtimes: the app under workerd (`wrangler dev`, the turns in the Durable
// Object), under Deno (the Supabase entry) and under Node (the Node entry), each fed by the same
// scripted OpenAI-compatible server and authenticated with a real Supabase-style JWT. The normalised
// SSE transcripts must be identical. Then durable turns on each: resume after a drop with
// Last-Event-ID, completion with no reader, stop, two readers, and what a disconnect does by default
// and with ON_DISCONNECT=abort (a second server per runtime). A runtime that does not start fails the
// suite with its log; nothing is skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { startScriptedOpenAI, type ChatRequest, type Reply, type ScriptedServer } from '../support/scripted-openai.ts';
import { starters, type RuntimeName, type RuntimeServer } from './servers.ts';
import { readSse, type SseEvent, type SseTranscript } from './sse-client.ts';

const RUNTIMES: RuntimeName[] = ['node', 'workerd', 'deno'];
const JWT_SECRET = 'runtime-suite-jwt-secret-at-least-32-characters';
const ISSUER = 'http://127.0.0.1:54321/auth/v1';
const KEEPALIVE_MS = 100;
const TIME_BUDGET_MS = 4_000;

const STORY_ANSWER = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
/** The turn's message: the first user message (each turn here has a session of its own; the loop's nudges come later). */
const userText = (req: ChatRequest) => req.messages.find((m) => m.role === 'user')?.content ?? '';
const iteration = (req: ChatRequest) => req.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;

/** Stateless, keyed on the conversation, so that the three runtimes can share the server concurrently. */
function script(req: ChatRequest): Reply {
  const text = userText(req);
  if (req.tool_choice === 'none') {
    // Silent for a while before answering: keepalives must flow meanwhile.
    return {
      stallMs: 4 * KEEPALIVE_MS,
      text: 'Summary: wrote src/app.ts. fetch_url does not exist. src/ap.ts was a typo for src/app.ts. Next: read src/app.ts.',
    };
  }
  if (text.startsWith('SLOW')) {
    // Silent far beyond the time budget: only the budget can end this turn.
    return { stallMs: 4 * TIME_BUDGET_MS, text: 'Too late.' };
  }
  if (text.startsWith('STORY')) {
    // Text, a tool call, then a long answer: a turn that can be cut at any of its ~50 events.
    return iteration(req) === 0
      ? { text: 'Let me look. ', toolCalls: [{ id: 'call_story', name: 'list_files', arguments: '{}' }], delayMs: 15 }
      : { text: STORY_ANSWER, delayMs: 15 };
  }
  if (text.startsWith('STUBBORN')) {
    // Repeats one phantom call whatever it is told (issue 24).
    return { toolCalls: [{ id: `call_stubborn_${iteration(req)}`, name: 'update_customer_profile', arguments: '{"customer":"Ada","plan":"pro"}' }] };
  }
  if (text.startsWith('TALK')) {
    // Slow enough that only a stop ends it early.
    return { text: STORY_ANSWER, delayMs: 250 };
  }
  if (text.startsWith('DISCONNECT')) {
    // A slow model that keeps calling tools: only a disconnect or the budgets end it.
    return { text: 'Working through the files now. ', toolCalls: [{ id: `call_list_${iteration(req)}`, name: 'list_files', arguments: '{}' }], delayMs: 150 };
  }
  switch (iteration(req)) {
    case 0:
      return { toolCalls: [{ id: 'call_phantom', name: 'fetch_url', arguments: '{"url":"https://example.com"}' }] };
    case 1:
      return {
        text: 'Writing the file. ',
        toolCalls: [{ id: 'call_write', name: 'write_file', arguments: '{"path":"src/app.ts","content":"export const answer = 42;\\n"}' }],
      };
    case 2:
      return { toolCalls: [{ id: 'call_read', name: 'read_file', arguments: '{"path":"src/ap.ts"}' }] };
    default:
      return { text: 'Unexpected extra iteration.' };
  }
}

let model: ScriptedServer;
const servers = new Map<RuntimeName, RuntimeServer>();
/** The same runtimes with ON_DISCONNECT=abort: a reader leaving aborts the turn, as before durable turns. */
const abortServers = new Map<RuntimeName, RuntimeServer>();
let jwt: string;

beforeAll(async () => {
  model = await startScriptedOpenAI(script);
  jwt = await new SignJWT({ role: 'authenticated' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('5d1e9d44-0000-4000-8000-000000000001')
    .setAudience('authenticated')
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(JWT_SECRET));
  const vars = {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-scripted',
    MODEL: 'scripted-model',
    MAX_ITERATIONS: '3',
    TIME_BUDGET_MS: String(TIME_BUDGET_MS),
    KEEPALIVE_MS: String(KEEPALIVE_MS),
    TOOL_TIMEOUT_MS: '5000',
    MODEL_RETRIES: '0',
    TURN_TOKEN_SECRET: 'runtime-suite-turn-token-secret',
    // Auth is on and Supabase is not: the edges refuse the session routes unless memory is asked for (Node keeps PGlite).
    STORAGE: 'memory',
    SUPABASE_JWT_SECRET: JWT_SECRET,
    SUPABASE_JWT_ISSUER: ISSUER,
  };
  // In parallel: startup dominates the suite. allSettled so that every failure is reported, then throw.
  const wanted = [
    ...RUNTIMES.map((name) => ({ name, into: servers, vars })),
    ...RUNTIMES.map((name) => ({ name, into: abortServers, vars: { ...vars, ON_DISCONNECT: 'abort' } })),
  ];
  const started = await Promise.allSettled(wanted.map((w) => starters[w.name](w.vars)));
  const failures: string[] = [];
  started.forEach((r, i) => {
    const w = wanted[i]!;
    if (r.status === 'fulfilled') w.into.set(w.name, r.value);
    else failures.push(`${w.name}${w.into === abortServers ? ' (ON_DISCONNECT=abort)' : ''}: ${(r.reason as Error).message}`);
  });
  if (failures.length) throw new Error(`runtime(s) failed to start:\n${failures.join('\n\n')}`);
}, 180_000);

afterAll(async () => {
  await Promise.all([...servers.values(), ...abortServers.values()].map((s) => s.stop()));
  await model?.close();
});

const server = (name: RuntimeName) => {
  const s = servers.get(name);
  if (!s) throw new Error(`${name} is not running`);
  return s;
};

const auth = () => ({ authorization: `Bearer ${jwt}`, 'content-type': 'application/json' });

/** What must match across runtimes: event names and their deterministic fields, text joined. */
function normalise(events: SseEvent[]): unknown[] {
  const out: unknown[] = [];
  for (const e of events) {
    const d = e.data as Record<string, unknown>;
    switch (e.event) {
      case 'turn_start':
        out.push({ event: e.event, model: d.model, demo: d.demo });
        break;
      case 'text_delta': {
        const last = out.at(-1) as { event: string; text: string } | undefined;
        if (last?.event === 'text') last.text += d.text as string;
        else out.push({ event: 'text', text: d.text });
        break;
      }
      case 'tool_call':
        out.push({ event: e.event, id: d.id, name: d.name, arguments: d.arguments, iteration: d.iteration });
        break;
      case 'tool_result':
        out.push({ event: e.event, id: d.id, name: d.name, verdict: d.verdict, category: d.category, ok: d.ok, suggestions: d.suggestions });
        break;
      case 'done':
        out.push({ event: e.event, reason: d.reason, iterations: d.iterations, usage: d.usage });
        break;
      default:
        out.push({ event: e.event, ...d });
    }
  }
  return out;
}

const transcripts = new Map<RuntimeName, SseTranscript>();
const budgetTranscripts = new Map<RuntimeName, SseTranscript>();

async function runScenario(name: RuntimeName): Promise<SseTranscript> {
  const { baseUrl } = server(name);
  const created = await fetch(`${baseUrl}/v1/turns`, { method: 'POST', headers: auth(), body: JSON.stringify({ message: `Fix the app (${name})` }) });
  expect(created.status, await created.clone().text()).toBe(201);
  const { streamUrl } = (await created.json()) as { streamUrl: string };
  // streamUrl is relative to the host; under Deno it must keep the /rebound prefix.
  const origin = new URL(baseUrl).origin;
  const transcript = await readSse(`${origin}${streamUrl}`, { headers: { accept: 'text/event-stream' } }, { timeoutMs: 20_000 });
  // EventSource reconnects on its own with the last id it saw: a finished turn it has seen to the end
  // answers 204, which stops it for good.
  const again = await fetch(`${origin}${streamUrl}`, { headers: { 'last-event-id': transcript.events.at(-1)?.id ?? '' } });
  expect(again.status).toBe(204);
  // Without an id (a new page) the finished turn is replayed whole, and the stream closes.
  const replay = await readSse(`${origin}${streamUrl}`, {}, { timeoutMs: 10_000 });
  expect(replay.events.map((e) => [e.id, e.event, e.data])).toEqual(transcript.events.map((e) => [e.id, e.event, e.data]));
  return transcript;
}

interface CreatedTurn {
  turnId: string;
  sessionId: string;
  /** Absolute. */
  streamUrl: string;
}

async function createTurn(name: RuntimeName, message: string): Promise<CreatedTurn> {
  const { baseUrl } = server(name);
  const res = await fetch(`${baseUrl}/v1/turns`, { method: 'POST', headers: auth(), body: JSON.stringify({ message }) });
  expect(res.status, await res.clone().text()).toBe(201);
  const created = (await res.json()) as CreatedTurn;
  return { ...created, streamUrl: `${new URL(baseUrl).origin}${created.streamUrl}` };
}

/** Reads a turn's stream after `lastEventId`; with `keep`, drops the connection once it has that many events. */
function readTurn(url: string, options: { lastEventId?: string; keep?: number } = {}): Promise<SseTranscript> {
  const headers: Record<string, string> = options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId };
  const keep = options.keep;
  return readSse(url, { headers }, { timeoutMs: 20_000, ...(keep === undefined ? {} : { stopWhen: (_e, t) => t.events.length >= keep }) });
}

async function messages(name: RuntimeName, sessionId: string): Promise<Array<{ role: string; content?: string | null }>> {
  const res = await fetch(`${server(name).baseUrl}/v1/sessions/${sessionId}/messages`, { headers: auth() });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Array<{ role: string; content?: string | null }> }).messages;
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const requestsFor = (message: string) => model.requests.filter((r) => userText(r) === message);

// Each runtime's tests, and the runtimes, run side by side (a few at a time): every turn has a session
// of its own, the script answers from the conversation alone, and the scripted server says which
// request went away.
describe.concurrent.each(RUNTIMES)('%s', (name) => {
  it('serves /health and rejects POSTs without a valid JWT (401 JSON)', async () => {
    const { baseUrl } = server(name);
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    const missing = await fetch(`${baseUrl}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"hi"}' });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/Authorization/);
    const forged = await fetch(`${baseUrl}/v1/chat`, {
      method: 'POST',
      headers: { ...auth(), authorization: `Bearer ${jwt.slice(0, -4)}AAAA` },
      body: '{"message":"hi"}',
    });
    expect(forged.status).toBe(401);
  });

  it('streams the scenario: phantom tool, blocked path, forced summary, keepalives', async () => {
    const t = await runScenario(name);
    transcripts.set(name, t);
    expect(t.status).toBe(200);
    expect(t.headers.get('cache-control')).toContain('no-transform');
    const events = normalise(t.events);
    expect(events).toMatchObject([
      { event: 'turn_start', model: 'scripted-model', demo: false },
      { event: 'tool_call', id: 'call_phantom', name: 'fetch_url', iteration: 1 },
      { event: 'tool_result', id: 'call_phantom', verdict: 'blocked', category: 'phantom_tool', ok: false },
      { event: 'text', text: 'Writing the file. ' },
      { event: 'tool_call', id: 'call_write', name: 'write_file', iteration: 2 },
      { event: 'tool_result', id: 'call_write', verdict: 'pass', category: 'valid', ok: true },
      { event: 'tool_call', id: 'call_read', name: 'read_file', iteration: 3 },
      { event: 'tool_result', id: 'call_read', verdict: 'blocked', category: 'invalid_path', ok: false },
      { event: 'forced_summary', reason: 'iteration_limit' },
      { event: 'text', text: expect.stringContaining('Summary:') },
      { event: 'done', reason: 'iteration_limit', iterations: 3 },
    ]);
    expect((events[7] as { suggestions?: string[] }).suggestions).toContain('src/app.ts');
    // Sequence ids count up from 1 within the turn.
    expect(t.events.map((e) => Number(e.id))).toEqual(t.events.map((_, i) => i + 1));
    // Keepalive comments while the model was silent before the summary.
    expect(t.comments.filter((c) => c.text === 'keepalive').length).toBeGreaterThanOrEqual(2);
  });

  it('stops a stubborn model with no_progress in 4 model calls, never suggesting delete_file', async () => {
    const message = `STUBBORN: update the profile of Ada (${name})`;
    const turn = await createTurn(name, message);
    const events = normalise((await readTurn(turn.streamUrl)).events);
    const results = events.filter((e) => (e as { event: string }).event === 'tool_result') as Array<{ name: string; verdict: string; suggestions?: string[] }>;
    expect(results.map((r) => [r.name, r.verdict])).toEqual(Array(3).fill(['update_customer_profile', 'blocked']));
    for (const r of results) expect(r.suggestions ?? []).not.toContain('delete_file');
    expect(events.slice(-3)).toMatchObject([
      { event: 'forced_summary', reason: 'no_progress' },
      { event: 'text', text: expect.stringContaining('Summary:') },
      { event: 'done', reason: 'no_progress', iterations: 3 },
    ]);
    const requests = requestsFor(message);
    expect(requests).toHaveLength(4);
    expect(requests[3]!.tool_choice).toBe('none');
    expect(JSON.stringify(requests[3]!.messages.at(-1))).toContain('update_customer_profile');
  });

  it('ends a turn on its time budget with a forced summary while the model is silent', async () => {
    const started = Date.now();
    const t = await readSse(
      `${server(name).baseUrl}/v1/chat`,
      { method: 'POST', headers: auth(), body: JSON.stringify({ message: `SLOW ${name}` }) },
      { timeoutMs: 3 * TIME_BUDGET_MS },
    );
    const elapsed = Date.now() - started;
    budgetTranscripts.set(name, t);
    expect(normalise(t.events)).toMatchObject([
      { event: 'turn_start' },
      { event: 'forced_summary', reason: 'time_budget' },
      { event: 'text', text: expect.stringContaining('Summary:') },
      { event: 'done', reason: 'time_budget' },
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(TIME_BUDGET_MS - 100);
    expect(elapsed).toBeLessThan(TIME_BUDGET_MS + 3_000);
    // Keepalives kept the silent stream alive the whole time.
    expect(t.comments.filter((c) => c.text === 'keepalive').length).toBeGreaterThanOrEqual(TIME_BUDGET_MS / KEEPALIVE_MS / 2);
  }, 20_000);

  it('resumes after a drop at a random event: the joined events equal an uninterrupted run, ids contiguous', async () => {
    const reference = await readTurn((await createTurn(name, `STORY ${name}`)).streamUrl);
    expect(reference.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    const total = reference.events.length;
    expect(total).toBeGreaterThan(10); // ~50, fewer when deltas arrive together
    // Early (surely mid-turn) and anywhere. Deltas that reach the app together become one event, so
    // another run may have fewer events than the reference: a cut past its end reads it whole.
    const cuts = [2, 1 + Math.floor(Math.random() * (total - 1))];
    await Promise.all(
      cuts.map(async (cut) => {
        const turn = await createTurn(name, `STORY ${name}`);
        const whole = readTurn(turn.streamUrl); // an uninterrupted reader of the same turn
        const first = await readTurn(turn.streamUrl, { keep: cut });
        if (cut === 2) expect(first.abandoned).toBe(true);
        await new Promise((r) => setTimeout(r, 150)); // the turn runs on meanwhile
        const rest = first.abandoned ? (await readTurn(turn.streamUrl, { lastEventId: first.events.at(-1)!.id! })).events : [];
        const joined = [...first.events, ...rest];
        const why = `cut after ${cut} of ${total}`;
        expect(
          joined.map((e) => Number(e.id)),
          why,
        ).toEqual(joined.map((_, i) => i + 1));
        expect(
          joined.map((e) => [e.id, e.event, e.data]),
          why,
        ).toEqual((await whole).events.map((e) => [e.id, e.event, e.data]));
        // And the same as another run of the script, text joined.
        expect(normalise(joined), why).toEqual(normalise(reference.events));
      }),
    );
  }, 30_000);

  it('completes a turn while no reader is connected: done completed on replay, the answer in the history', async () => {
    const turn = await createTurn(name, `STORY unattended ${name}`);
    const left = await readTurn(turn.streamUrl, { keep: 2 });
    expect(left.abandoned).toBe(true);
    const history = await until('the answer in the history', async () => {
      const m = await messages(name, turn.sessionId);
      return m.at(-1)?.content === STORY_ANSWER ? m : undefined;
    });
    expect(history[0]).toMatchObject({ role: 'user', content: `STORY unattended ${name}` });
    const replay = await readTurn(turn.streamUrl);
    expect(replay.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    expect(replay.events.map((e) => Number(e.id))).toEqual(replay.events.map((_, i) => i + 1));
  }, 30_000);

  it('gives two readers the same events, the second joining mid-turn', async () => {
    const turn = await createTurn(name, `STORY two readers ${name}`);
    const early = readTurn(turn.streamUrl);
    await until('the turn under way', () => requestsFor(`STORY two readers ${name}`).length > 0 || undefined);
    const late = await readTurn(turn.streamUrl);
    expect(late.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    expect(late.events.map((e) => [e.id, e.event, e.data])).toEqual((await early).events.map((e) => [e.id, e.event, e.data]));
  }, 30_000);

  it('stop ends the turn as aborted for every reader and aborts the upstream request; a second stop is a 409', async () => {
    const message = `TALK ${name}`;
    const turn = await createTurn(name, message);
    const readers = [readTurn(turn.streamUrl), readTurn(turn.streamUrl)];
    await until('the model request', () => requestsFor(message).length > 0 || undefined);
    const upstreamRequest = model.requests.findIndex((r) => userText(r) === message);
    const stop = () => fetch(`${server(name).baseUrl}/v1/turns/${turn.turnId}/stop`, { method: 'POST', headers: auth() });
    const first = await stop();
    expect(first.status, await first.clone().text()).toBe(202);
    const [a, b] = await Promise.all(readers);
    expect(a!.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'aborted' } });
    expect(b!.events.map((e) => [e.id, e.event, e.data])).toEqual(a!.events.map((e) => [e.id, e.event, e.data]));
    await until('the scripted server seeing its request aborted', () => model.abortedRequests.includes(upstreamRequest) || undefined, 5_000);
    expect(requestsFor(message)).toHaveLength(1);
    const again = await stop();
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { message: string } }).error.message).toMatch(/already finished/);
  }, 30_000);
});

describe('across runtimes', () => {
  it('every runtime produced the same normalised SSE transcript', () => {
    const node = normalise(transcripts.get('node')?.events ?? []);
    expect(node.length).toBeGreaterThan(5);
    for (const name of RUNTIMES) expect(normalise(transcripts.get(name)?.events ?? []), name).toEqual(node);
    const budget = normalise(budgetTranscripts.get('node')?.events ?? []);
    for (const name of RUNTIMES) expect(normalise(budgetTranscripts.get(name)?.events ?? []), `${name} (time budget)`).toEqual(budget);
  });

  // By default a reader leaving ends only that reader: the turn runs on to its own end, on every runtime.
  it('a client disconnect no longer aborts: the turn runs on to its budget and is saved', async () => {
    await Promise.all(
      RUNTIMES.map(async (name) => {
        const message = `DISCONNECT ${name}`;
        const t = await readSse(
          `${server(name).baseUrl}/v1/chat`,
          { method: 'POST', headers: auth(), body: JSON.stringify({ message }) },
          { stopWhen: (e) => e.event === 'text_delta', timeoutMs: 15_000 },
        );
        expect(t.abandoned, name).toBe(true);
        const { sessionId } = t.events[0]!.data as { sessionId: string };
        // The forced summary after MAX_ITERATIONS model calls: the turn outlived its only reader.
        await until(`${name}: the forced summary`, () => requestsFor(message).some((r) => r.tool_choice === 'none') || undefined);
        const history = await until(`${name}: the summary in the history`, async () => {
          const m = await messages(name, sessionId);
          return m.at(-1)?.content?.startsWith('Summary:') ? m : undefined;
        });
        expect(history[0], name).toMatchObject({ role: 'user', content: message });
        expect(requestsFor(message), name).toHaveLength(4);
        expect(
          model.requests.some((r, i) => userText(r) === message && model.abortedRequests.includes(i)),
          `${name}: an upstream request aborted`,
        ).toBe(false);
      }),
    );
  }, 60_000);

  // ON_DISCONNECT=abort: which runtime tells the app that its client went away, observed on the
  // scripted model server, whose in-flight completion is aborted when the app passes the disconnect
  // on. Where the runtime does not, the loop must still end by itself on its iteration/time budget.
  it('with ON_DISCONNECT=abort a client disconnect either aborts the upstream request or the turn ends on its own budgets', async () => {
    const findings: Record<string, string> = {};
    const aborted = (message: string) => model.requests.some((r, i) => userText(r) === message && model.abortedRequests.includes(i));
    await Promise.all(
      RUNTIMES.map(async (name) => {
        const message = `DISCONNECT abort ${name}`;
        const t = await readSse(
          `${abortServers.get(name)!.baseUrl}/v1/chat`,
          { method: 'POST', headers: auth(), body: JSON.stringify({ message }) },
          { stopWhen: (e) => e.event === 'text_delta', timeoutMs: 15_000 },
        );
        const disconnectedAt = Date.now();
        expect(t.abandoned).toBe(true);
        let outcome: string | undefined;
        while (!outcome && Date.now() - disconnectedAt < 15_000) {
          if (aborted(message)) outcome = `signals disconnect: upstream request aborted ${Date.now() - disconnectedAt} ms after the client left`;
          else if (requestsFor(message).some((r) => r.tool_choice === 'none'))
            outcome = `no disconnect signal: the turn ran on to its budget (forced summary after ${requestsFor(message).length - 1} model calls)`;
          else await new Promise((r) => setTimeout(r, 50));
        }
        findings[name] = outcome ?? `neither an abort nor the budget end within 15 s (${requestsFor(message).length} model calls)`;
      }),
    );
    console.log(
      `client disconnect with ON_DISCONNECT=abort, per runtime:\n${Object.entries(findings)
        .map(([k, v]) => `  ${k}: ${v}`)
        .join('\n')}`,
    );
    for (const name of RUNTIMES) expect(findings[name], name).not.toMatch(/^neither/);
    // Node passes the disconnect on: the lead's loop relies on it there.
    expect(findings.node).toMatch(/^signals/);
  }, 60_000);
});
