// kill -9 in the middle of a turn, then a restart on the same data folder: the real Node server
// (src/entries/node.ts as `npm start` runs it, embedded PGlite), fed by the scripted upstream. What was committed
// before the crash is intact; the turn the crash cut short is closed as `interrupted` at start-up (no
// zombie stays `running`); its session shows the user's message and the interruption note; the
// dashboard counts it; and the session goes on, the model reading the note.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { INTERRUPTED_NOTE } from '../../src/store/interrupted.ts';
import { openPglite } from '../../src/store/pglite.ts';
import { startNode, type RuntimeServer } from '../runtimes/servers.ts';
import { startScriptedOpenAI, type ChatRequest, type Reply, type ScriptedServer } from '../support/scripted-openai.ts';
import { chat, parseBlock, type SseEvent } from '../support/sse-client.ts';

const lastUser = (req: ChatRequest) => [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
const toolResultsSinceUser = (req: ChatRequest) => {
  const i = req.messages.map((m) => m.role).lastIndexOf('user');
  return req.messages.slice(i).filter((m) => m.role === 'tool').length;
};

function script(req: ChatRequest): Reply {
  const text = lastUser(req);
  if (text.startsWith('STALL')) {
    // One word, then silence far beyond the test: the turn is mid-stream when the server dies.
    return { text: 'Thinking it over carefully', stallMs: 0, delayMs: 600_000 };
  }
  if (text.startsWith('FIRST') && toolResultsSinceUser(req) === 0) {
    return { toolCalls: [{ id: 'call_list', name: 'list_files', arguments: '{}' }] };
  }
  return { text: text.startsWith('FIRST') ? 'I listed the files.' : 'Back again, after the interruption.' };
}

const VARS = {
  OPENAI_API_KEY: 'sk-scripted',
  MODEL: 'scripted-model',
  MODEL_RETRIES: '0',
  KEEPALIVE_MS: '1000',
};

let model: ScriptedServer;
let dataDir: string;
const servers: RuntimeServer[] = [];
/** The local token's header: every server here runs in local mode on one data folder, so one token throughout. */
let auth: Record<string, string> = {};

beforeAll(async () => {
  model = await startScriptedOpenAI(script);
  dataDir = mkdtempSync(join(tmpdir(), 'rebound-kill9-'));
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await model?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function start() {
  const server = await startNode({ ...VARS, OPENAI_BASE_URL: model.url }, { dataDir: join(dataDir, 'pglite') });
  servers.push(server);
  auth = server.localAuth;
  return server;
}

/** POSTs /v1/chat and reads the stream only until `until` is seen; the response is left open. */
async function chatUntil(baseUrl: string, body: unknown, until: (e: SseEvent) => boolean): Promise<SseEvent[]> {
  const res = await fetch(`${baseUrl}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before the awaited event; got ${events.map((e) => e.event).join(',')}`);
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const { event } = parseBlock(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (!event) continue;
      events.push(event);
      if (until(event)) {
        // The server is about to die under this response; its end is of no interest.
        reader.closed.catch(() => {});
        return events;
      }
    }
  }
}

const range = () => {
  const now = Date.now();
  return `from=${new Date(now - 3_600_000).toISOString()}&to=${new Date(now + 3_600_000).toISOString()}&bucket=hour`;
};
async function dashboard(baseUrl: string): Promise<{ totals: Record<string, number>; categories: Array<{ category: string; count: number }> }> {
  const res = await fetch(`${baseUrl}/v1/dashboard?${range()}`, { headers: auth });
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}
async function history(baseUrl: string, sessionId: string): Promise<Array<{ role: string; content: string | null; tool_calls?: unknown[] }>> {
  const res = await fetch(`${baseUrl}/v1/sessions/${sessionId}/messages`, { headers: auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: never }).messages;
}

describe('kill -9 mid-turn, then a restart on the same data', () => {
  it('keeps what was committed, closes the zombie as interrupted, and the session goes on', { timeout: 240_000 }, async () => {
    // 1. One complete turn (a tool call, then an answer): committed data.
    let server = await start();
    const first = await chat(server.baseUrl, { message: 'FIRST: list the files' }, { headers: auth });
    expect(first.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    const sessionId = first.events[0]!.data.sessionId as string;
    // The activity flush runs after `done`; the crash must come after it has landed.
    await expect.poll(async () => (await dashboard(server.baseUrl)).totals, { timeout: 10_000 }).toMatchObject({ turns: 1, calls: 1 });
    const committed = await history(server.baseUrl, sessionId);
    expect(committed.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    // 2. A second turn, killed with SIGKILL while the model is mid-stream.
    const seen = await chatUntil(server.baseUrl, { message: 'STALL: think about it', sessionId }, (e) => e.event === 'text_delta');
    expect(seen.map((e) => e.event)).toEqual(['turn_start', 'text_delta']);
    const zombieId = seen[0]!.data.turnId as string;
    await (server as RuntimeServer & { kill(): Promise<void> }).kill();

    // 3. The restart closes it before serving.
    server = await start();
    expect(server.log()).toMatch(/closed 1 turn\(s\) left running by an earlier process as interrupted/);

    // The committed turn is intact; the cut-short one shows the user's message and the note.
    const after = await history(server.baseUrl, sessionId);
    expect(after.slice(0, committed.length)).toEqual(committed);
    expect(after.slice(committed.length)).toEqual([
      { role: 'user', content: 'STALL: think about it' },
      { role: 'assistant', content: INTERRUPTED_NOTE },
    ]);

    // The dashboard counts it, next to the first turn and its call.
    const totals = (await dashboard(server.baseUrl)).totals;
    expect(totals).toMatchObject({ turns: 2, calls: 1, interrupted: 1, interruptedRate: 0.5 });

    // 4. The session goes on, and the model reads what happened.
    const next = await chat(server.baseUrl, { message: 'AFTER: where were we?', sessionId }, { headers: auth });
    expect(next.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'completed' } });
    const sent = model.requests.at(-1)!.messages.map((m) => [m.role, m.content]);
    expect(sent).toContainEqual(['user', 'STALL: think about it']);
    expect(sent).toContainEqual(['assistant', INTERRUPTED_NOTE]);
    expect((await history(server.baseUrl, sessionId)).slice(-2)).toEqual([
      { role: 'user', content: 'AFTER: where were we?' },
      { role: 'assistant', content: 'Back again, after the interruption.' },
    ]);
    await expect.poll(async () => (await dashboard(server.baseUrl)).totals, { timeout: 10_000 }).toMatchObject({ turns: 3, interrupted: 1 });

    // 5. On disk, after a clean stop: every row as it should be, no turn left running.
    await server.stop();
    const db = await openPglite(join(dataDir, 'pglite'), readMigrations());
    try {
      const turns = await db.query<{ id: string; status: string; outcome: string; message: string }>(
        'select id, status, outcome, message from agent_turns where session_id = $1 order by created_at',
        [sessionId],
      );
      expect(turns.rows.map((t) => [t.status, t.outcome])).toEqual([
        ['finished', 'completed'],
        ['finished', 'interrupted'],
        ['finished', 'completed'],
      ]);
      expect(turns.rows[1]!.id).toBe(zombieId);
      const calls = await db.query<{ turn_id: string; tool_requested: string; verdict: string }>('select turn_id, tool_requested, verdict from agent_activity');
      expect(calls.rows).toEqual([{ turn_id: turns.rows[0]!.id, tool_requested: 'list_files', verdict: 'pass' }]);
      expect((await db.query('select id from agent_turns where status = $1', ['running'])).rows).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
