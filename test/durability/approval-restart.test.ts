// A turn paused for approval survives its process (docs/approval.md § The pause is stored state): the real Node server
// (src/entries/node.ts as `npm start` runs it, embedded PGlite) is killed with -9 while a call waits, and a new one on
// the same data folder takes the decision and completes the turn in the same log; a wait that ran out
// while no server was up is expired at start-up, and the turn ends with the model told; a decision the
// dead process recorded but never went on with is gone on with at start-up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { createPgliteStorage, openPglite } from '../../src/store/pglite.ts';
import { startNode, type RuntimeServer } from '../runtimes/servers.ts';
import { lastToolResult, startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { openStream, type SseEvent } from '../support/sse-client.ts';

let model: ScriptedServer;
let root: string;
const servers: Array<RuntimeServer & { kill(): Promise<void> }> = [];

beforeAll(async () => {
  // A write that waits for a person, then an answer once the model has its result.
  model = await startScriptedOpenAI((req) =>
    req.messages.some((m) => m.role === 'tool')
      ? { text: 'Written.' }
      : { toolCalls: [{ name: 'write_file', arguments: '{"path":"plan.md","content":"# plan\\n"}' }] },
  );
  root = mkdtempSync(join(tmpdir(), 'rebound-approval-restart-'));
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function start(dataDir: string, vars: Record<string, string> = {}) {
  const server = await startNode(
    { OPENAI_API_KEY: 'sk-scripted', OPENAI_BASE_URL: model.url, MODEL_RETRIES: '0', KEEPALIVE_MS: '1000', APPROVAL_TOOLS: 'write_file', ...vars },
    { dataDir },
  );
  servers.push(server);
  return server;
}

/** Starts a turn and reads its stream until the approval is asked; the stream is left to die with the server. */
async function pausedTurn(server: RuntimeServer): Promise<{ turnId: string; streamUrl: string; asked: SseEvent }> {
  const created = await fetch(`${server.baseUrl}/v1/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...server.localAuth },
    body: JSON.stringify({ message: 'write the plan' }),
  });
  expect(created.status).toBe(201);
  const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
  const stream = await openStream(server.baseUrl + streamUrl);
  const asked = await stream.until((e) => e.event === 'approval_required', 60_000);
  return { turnId, streamUrl, asked };
}

describe('approval across a restart', () => {
  it('kill -9 while a call waits; the next process takes the decision and the turn completes in the same log', { timeout: 300_000 }, async () => {
    const dataDir = join(root, 'approve');
    let server = await start(dataDir);
    const { turnId, streamUrl, asked } = await pausedTurn(server);
    await server.kill();

    server = await start(dataDir);
    const decided = await fetch(`${server.baseUrl}/v1/turns/${turnId}/approvals/${asked.data.approvalId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.localAuth },
      body: JSON.stringify({ approved: true }),
    });
    expect(decided.status).toBe(202);
    const { streamUrl: fresh } = (await decided.json()) as { streamUrl: string };
    // The reader that lost its server comes back after the last event it had.
    const rest = await openStream(`${server.baseUrl}${fresh}&lastEventId=${asked.id}`);
    await rest.until((e) => e.event === 'done', 60_000);
    expect(rest.events.map((e) => e.event)).toEqual(['tool_result', 'text_delta', 'done']);
    expect(rest.events.map((e) => Number(e.id))).toEqual([Number(asked.id) + 1, Number(asked.id) + 2, Number(asked.id) + 3]);
    expect(rest.events[0]!.data).toMatchObject({
      id: asked.data.toolCallId,
      name: 'write_file',
      ok: true,
      approval: 'approved',
      result: { path: 'plan.md', action: 'created' },
    });
    expect(rest.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 2 });
    expect(lastToolResult(model.requests.at(-1)!)).toMatchObject({ ok: true, result: { path: 'plan.md' } });
    // The whole turn, replayed: one log from turn_start to done, numbered without a gap.
    const whole = await openStream(server.baseUrl + fresh);
    await whole.ended;
    expect(whole.events.map((e) => e.event)).toEqual(['turn_start', 'tool_call', 'approval_required', 'tool_result', 'text_delta', 'done']);
    expect(whole.events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5, 6]);
    // The old stream URL still opens too (its token outlives a short wait).
    expect((await fetch(server.baseUrl + streamUrl, { method: 'HEAD' })).status).toBe(200);
  });

  it('a wait that ran out while no server was up is expired at start-up; the turn ends with the model told', { timeout: 300_000 }, async () => {
    const dataDir = join(root, 'expire');
    let server = await start(dataDir, { APPROVAL_TIMEOUT_MS: '1000' });
    const { streamUrl, asked } = await pausedTurn(server);
    await server.kill();
    await new Promise((r) => setTimeout(r, 1_500));
    server = await start(dataDir, { APPROVAL_TIMEOUT_MS: '1000' });
    // Start-up goes on with the turn, no request needed: a reader finds it ended.
    const whole = await openStream(server.baseUrl + streamUrl);
    await whole.until((e) => e.event === 'done', 60_000);
    expect(whole.events.map((e) => e.event)).toEqual(['turn_start', 'tool_call', 'approval_required', 'tool_result', 'text_delta', 'done']);
    expect(whole.events[3]!.data).toMatchObject({ id: asked.data.toolCallId, ok: false, approval: 'expired' });
    const told = lastToolResult(model.requests.at(-1)!) as { ok: boolean; error: string };
    expect(told.ok).toBe(false);
    expect(told.error).toMatch(/counts as denied by the user/);
  });

  it('a decision recorded but never gone on with (the process died between the two) is gone on with at start-up, once', { timeout: 300_000 }, async () => {
    const dataDir = join(root, 'stranded');
    let server = await start(dataDir);
    const { turnId, streamUrl, asked } = await pausedTurn(server);
    await server.kill();
    // What the dead process got to store: the decision, with the turn still paused (the crash came before continueTurn).
    const db = await openPglite(join(dataDir), readMigrations());
    const storage = createPgliteStorage(db);
    expect(await storage.approvals.decide({ id: asked.data.approvalId, status: 'approved', reason: null })).toMatchObject({ status: 'approved' });
    expect((await storage.sessions.getTurn(turnId))?.status).toBe('awaiting_approval');
    expect(await storage.approvals.stranded()).toEqual([turnId]);
    await db.close();
    const before = model.requests.length;

    server = await start(dataDir);
    // No request needed: start-up goes on with it; a reader finds it ended, in the same log, without a gap.
    const whole = await openStream(server.baseUrl + streamUrl);
    await whole.until((e) => e.event === 'done', 60_000);
    expect(whole.events.map((e) => e.event)).toEqual(['turn_start', 'tool_call', 'approval_required', 'tool_result', 'text_delta', 'done']);
    expect(whole.events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(whole.events[3]!.data).toMatchObject({ id: asked.data.toolCallId, ok: true, approval: 'approved', result: { path: 'plan.md' } });
    expect(whole.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 2 });
    // Gone on with once: one model request since, and a late decision is refused as the turn has ended.
    expect(model.requests.length - before).toBe(1);
    const late = await fetch(`${server.baseUrl}/v1/turns/${turnId}/approvals/${asked.data.approvalId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.localAuth },
      body: JSON.stringify({ approved: true }),
    });
    expect(late.status).toBe(409);
  });
});
