// Human approval of tool calls through HTTP (docs/approval.md): the app on @hono/node-server against the
// scripted upstream, the turn read as a stream while it pauses. The gate goes first, the batch's other
// calls run, the turn pauses with no model request open and the stream kept alive, and a decision (or
// the clock) lets it go on in the same log; every decision that is not the turn user's one pending
// call before its expiry is refused.
import { describe, expect, it } from 'vitest';
import { headerAuth } from '../support/app-server.ts';
import { lastToolResult, type Script } from '../support/scripted-openai.ts';
import { scriptedApps, type ScriptedApp } from '../support/scripted-app.ts';
import { openStream, shape, type LiveStream, type SseEvent } from '../support/sse-client.ts';
import { newApprovalId } from '../../src/tools/approval.ts';
import type { AppDeps } from '../../src/http/deps.ts';
import type { TurnService } from '../../src/turns/service.ts';
import { createMemoryStorage } from '../../src/store/memory.ts';
import type { TurnEventRow } from '../../src/store/turn-events.ts';

const start = scriptedApps({ APPROVAL_TOOLS: 'write_file', KEEPALIVE_MS: '100' });
const setup = (script: Script, env: Record<string, string> = {}, deps: Partial<AppDeps> = {}) => start(script, { env, deps: { auth: headerAuth, ...deps } });

const WRITE = { name: 'write_file', arguments: '{"path":"notes.txt","content":"hello\\n"}' };
/** One batch: a read that runs at once and a write that waits; then an answer. */
const writeThenAnswer: Script = (req) =>
  req.messages.some((m) => m.role === 'tool') ? { text: 'Done.' } : { toolCalls: [{ name: 'list_files', arguments: '{}' }, WRITE] };

const user = (id: string) => ({ 'content-type': 'application/json', 'x-test-user': id });

async function startTurn(app: ScriptedApp['app'], as = 'alice'): Promise<{ turnId: string; sessionId: string; stream: LiveStream }> {
  const res = await fetch(`${app.url}/v1/turns`, { method: 'POST', headers: user(as), body: JSON.stringify({ message: 'write my notes' }) });
  expect(res.status).toBe(201);
  const { turnId, sessionId, streamUrl } = (await res.json()) as { turnId: string; sessionId: string; streamUrl: string };
  return { turnId, sessionId, stream: await openStream(`${app.url}${streamUrl}`) };
}

function decide(app: ScriptedApp['app'], turnId: string, approvalId: string, body: unknown, as = 'alice') {
  return fetch(`${app.url}/v1/turns/${turnId}/approvals/${approvalId}`, { method: 'POST', headers: user(as), body: JSON.stringify(body) });
}

const isEvent = (name: string) => (e: SseEvent) => e.event === name;

describe('a call that needs approval', () => {
  it('runs the batch, pauses with no model request open and the stream alive, and goes on in the same log once approved', async () => {
    const { app, upstream } = await setup(writeThenAnswer);
    const { turnId, stream } = await startTurn(app);
    const asked = await stream.until(isEvent('approval_required'));
    // The gate went first and the other call ran; the person sees the call as it will run and the diff it would make.
    expect(shape(stream.events)).toEqual(['turn_start', 'tool_call', 'tool_result', 'tool_call', 'approval_required']);
    expect(stream.events[2]!.data).toMatchObject({ name: 'list_files', ok: true });
    const call = stream.events[3]!.data;
    expect(asked.data).toMatchObject({ toolCallId: call.id, name: 'write_file', arguments: { path: 'notes.txt', content: 'hello\n' } });
    expect(asked.data.approvalId).toMatch(/^apr_[0-9a-f]{32}$/);
    expect(asked.data.diffs).toEqual([{ path: 'notes.txt', change: 'created', added: 1, removed: 0, hunks: '@@ -0,0 +1 @@\n+hello' }]);
    const expiresIn = Date.parse(asked.data.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
    // Paused: stored state, one model request made, the file not written, keepalives while the reader waits.
    const turn = await app.deps.storage.sessions.getTurn(turnId);
    expect(turn?.status).toBe('awaiting_approval');
    expect(await app.deps.storage.workspace({ userId: 'alice', sessionId: turn!.sessionId, turnId }).read('notes.txt')).toBeNull();
    const keepalives = stream.comments.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(stream.comments.length).toBeGreaterThan(keepalives);
    expect(upstream.requests).toHaveLength(1);
    expect(stream.events.some(isEvent('done'))).toBe(false);

    const res = await decide(app, turnId, asked.data.approvalId, { approved: true });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as { turnId: string; approvalId: string; status: string; streamUrl: string };
    expect(accepted).toMatchObject({ turnId, approvalId: asked.data.approvalId, status: 'approved' });
    expect(accepted.streamUrl).toMatch(new RegExp(`^/v1/turns/${turnId}/stream\\?token=`));

    await stream.until(isEvent('done'));
    expect(shape(stream.events)).toEqual(['turn_start', 'tool_call', 'tool_result', 'tool_call', 'approval_required', 'tool_result', 'text_delta', 'done']);
    expect(stream.events.map((e) => Number(e.id))).toEqual(stream.events.map((_, i) => i + 1));
    const result = stream.events.find((e, i) => e.event === 'tool_result' && i > 4)!.data;
    expect(result).toMatchObject({ id: call.id, name: 'write_file', verdict: 'pass', ok: true, approval: 'approved' });
    expect(stream.events.filter(isEvent('done'))).toHaveLength(1);
    expect(stream.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 2 });
    // The model got both results after its assistant message, and the file was written.
    const toolMessages = upstream.requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual([stream.events[1]!.data.id, call.id]);
    expect(lastToolResult(upstream.requests[1]!)).toMatchObject({ ok: true, result: { path: 'notes.txt', action: 'created' } });
    expect((await app.deps.storage.workspace({ userId: 'alice', sessionId: turn!.sessionId, turnId }).read('notes.txt'))?.content).toBe('hello\n');
    // The record: approval is its own column; the history holds the whole turn.
    expect(app.activity.calls.map((r) => [r.tool_resolved, r.approval ?? null])).toEqual([
      ['list_files', null],
      ['write_file', 'approved'],
    ]);
    expect(app.activity.turns.at(-1)).toMatchObject({ outcome: 'completed', iterations: 2 });
    // Running time: the 400 ms wait (and the decision's) is not counted.
    const row = app.activity.turns.at(-1)!;
    expect(row.duration_ms).toBeLessThan(Date.parse(row.finished_at) - Date.parse(row.started_at) - 350);
    const history = await app.deps.storage.sessions.history(turn!.sessionId);
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect((await app.deps.storage.sessions.getTurn(turnId))?.status).toBe('finished');
    // A reader that comes later replays the same log.
    const replay = await openStream(`${app.url}${accepted.streamUrl}`);
    await replay.ended;
    expect(replay.events.map((e) => [e.id, e.event])).toEqual(stream.events.map((e) => [e.id, e.event]));
  });

  it('denied with a reason: the model is told, with the reason, and goes on; nothing is written', async () => {
    const { app, upstream } = await setup(writeThenAnswer);
    const { turnId, stream } = await startTurn(app);
    const asked = await stream.until(isEvent('approval_required'));
    const res = await decide(app, turnId, asked.data.approvalId, { approved: false, reason: 'not now, the notes are fine' });
    expect(res.status).toBe(202);
    expect(((await res.json()) as { status: string }).status).toBe('denied');
    await stream.until(isEvent('done'));
    const result = stream.events.filter(isEvent('tool_result')).at(-1)!.data;
    expect(result).toMatchObject({ name: 'write_file', verdict: 'pass', category: 'valid', ok: false, approval: 'denied' });
    expect(result.error).toMatch(/denied by the user/);
    expect(result.reason, "the person's reason, for the page's card").toBe('not now, the notes are fine');
    const told = lastToolResult(upstream.requests[1]!) as { ok: boolean; error: string; reason: string };
    expect(told).toMatchObject({ ok: false, reason: 'not now, the notes are fine' });
    expect(told.error).toMatch(/"write_file" was not executed: it was denied by the user/);
    const turn = (await app.deps.storage.sessions.getTurn(turnId))!;
    expect(await app.deps.storage.workspace({ userId: 'alice', sessionId: turn.sessionId, turnId }).read('notes.txt')).toBeNull();
    expect(app.activity.calls.find((r) => r.tool_resolved === 'write_file')).toMatchObject({ approval: 'denied', category: 'valid', verdict: 'pass' });
    expect(stream.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
  });

  it('approved with edited arguments: they pass the gate again (repaired, or refused with nothing decided)', async () => {
    const { app } = await setup(writeThenAnswer);
    const { turnId, sessionId, stream } = await startTurn(app);
    const asked = await stream.until(isEvent('approval_required'));
    const bad = await decide(app, turnId, asked.data.approvalId, { approved: true, arguments: { path: 'other.txt' } });
    expect(bad.status).toBe(400);
    const error = ((await bad.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toMatch(/do not pass the gate[\s\S]*content[\s\S]*Nothing was decided/);
    expect((await app.deps.storage.approvals.get(asked.data.approvalId))?.status).toBe('pending');
    // A renamed parameter is repaired as the gate repairs the model's calls, and the call runs with it.
    const good = await decide(app, turnId, asked.data.approvalId, { approved: true, arguments: { file_path: 'other.txt', content: 'edited' } });
    expect(good.status).toBe(202);
    await stream.until(isEvent('done'));
    const ws = app.deps.storage.workspace({ userId: 'alice', sessionId, turnId });
    expect((await ws.read('other.txt'))?.content).toBe('edited');
    expect(await ws.read('notes.txt')).toBeNull();
    expect(await app.deps.storage.approvals.get(asked.data.approvalId)).toMatchObject({
      status: 'approved',
      arguments: { path: 'other.txt', content: 'edited' },
    });
  });

  it("edited arguments naming a file are checked against the turn's workspace, as the model's are", async () => {
    const patch = { name: 'patch_file', arguments: '{"path":"notes.txt","search":"hello","replace":"bye"}' };
    const { app } = await setup((req) => (req.messages.some((m) => m.role === 'tool') ? { text: 'Done.' } : { toolCalls: [WRITE, patch] }), {
      APPROVAL_TOOLS: 'patch_file',
    });
    const { turnId, sessionId, stream } = await startTurn(app);
    const asked = await stream.until(isEvent('approval_required'));
    expect(asked.data.name).toBe('patch_file');
    // The preview is of the workspace as the batch left it: the write ran first.
    expect(asked.data.diffs).toMatchObject([{ path: 'notes.txt', change: 'modified', added: 1, removed: 1 }]);
    // A path the workspace does not have: refused with the gate's suggestion, as a model's call is.
    const missing = await decide(app, turnId, asked.data.approvalId, { approved: true, arguments: { path: 'notes.tx', search: 'hello', replace: 'x' } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(
      /do not pass the gate[\s\S]*"notes\.tx" does not exist[\s\S]*Did you mean: "notes\.txt"/,
    );
    const near = await decide(app, turnId, asked.data.approvalId, { approved: true, arguments: { path: 'notes.txt', search: 'hello', replace: 'hi' } });
    expect(near.status).toBe(202);
    await stream.until(isEvent('done'));
    expect((await app.deps.storage.workspace({ userId: 'alice', sessionId, turnId }).read('notes.txt'))?.content).toBe('hi\n');
  });

  it('a blocked call never reaches a person: the gate answers the model, no approval is asked', async () => {
    const { app, upstream } = await setup((_req, i) => (i === 0 ? { toolCalls: [{ name: 'write_file', arguments: '{"path":"a.txt"}' }] } : { text: 'Sorry.' }));
    const { stream } = await startTurn(app);
    await stream.until(isEvent('done'));
    expect(shape(stream.events)).toEqual(['turn_start', 'tool_call', 'tool_result', 'text_delta', 'done']);
    expect(stream.events[2]!.data).toMatchObject({ verdict: 'blocked', category: 'missing_required' });
    expect(upstream.requests).toHaveLength(2);
    expect(app.activity.calls[0]!.approval ?? null).toBeNull();
  });
});

describe('decisions that are refused', () => {
  it("forged, malformed, another turn's, another user's, double, and after the turn ended", async () => {
    const { app } = await setup(writeThenAnswer);
    const first = await startTurn(app);
    const asked = await first.stream.until(isEvent('approval_required'));
    const second = await startTurn(app);
    const other = await second.stream.until(isEvent('approval_required'));
    const bob = await startTurn(app, 'bob');
    const bobs = await bob.stream.until(isEvent('approval_required'));
    const status = async (res: Response) => [res.status, ((await res.json()) as { error?: { code: string } }).error?.code];

    expect(await status(await decide(app, first.turnId, newApprovalId(), { approved: true }))).toEqual([404, 'not_found']);
    expect(await status(await decide(app, first.turnId, 'apr_not-an-id', { approved: true }))).toEqual([404, 'not_found']);
    // Replayed on another turn (its own user's, or another user's approval on this user's turn): unknown there.
    expect(await status(await decide(app, first.turnId, other.data.approvalId, { approved: true }))).toEqual([404, 'not_found']);
    expect(await status(await decide(app, first.turnId, bobs.data.approvalId, { approved: true }))).toEqual([404, 'not_found']);
    // Another user's turn: forbidden, whatever the id.
    expect(await status(await decide(app, first.turnId, asked.data.approvalId, { approved: true }, 'bob'))).toEqual([403, 'forbidden']);
    expect(await status(await decide(app, bob.turnId, bobs.data.approvalId, { approved: true }, 'alice'))).toEqual([403, 'forbidden']);
    expect((await app.deps.storage.approvals.get(bobs.data.approvalId))?.status).toBe('pending');

    // Once: the second decision on the same call, either way, is refused.
    const [a, b] = await Promise.all([
      decide(app, first.turnId, asked.data.approvalId, { approved: false }),
      decide(app, first.turnId, asked.data.approvalId, { approved: true }),
    ]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    await first.stream.until(isEvent('done'));
    expect(first.stream.events.filter(isEvent('tool_result')).at(-1)!.data.approval).toBe(
      (await app.deps.storage.approvals.get(asked.data.approvalId))?.status,
    );
    const again = await decide(app, first.turnId, asked.data.approvalId, { approved: true });
    expect(again.status).toBe(409);

    // Stopped while it waits: the turn ends aborted, the call was asked and never answered; a late decision finds it ended.
    const stop = await fetch(`${app.url}/v1/turns/${second.turnId}/stop`, { method: 'POST', headers: user('alice') });
    expect(stop.status).toBe(202);
    await second.stream.until(isEvent('done'));
    expect(second.stream.events.at(-1)!.data).toMatchObject({ reason: 'aborted' });
    expect(second.stream.events.filter(isEvent('tool_result')).at(-1)!.data).toMatchObject({ ok: false });
    expect(app.activity.calls.filter((r) => r.turn_id === second.turnId && r.tool_resolved === 'write_file').map((r) => r.approval)).toEqual(['requested']);
    expect(await status(await decide(app, second.turnId, other.data.approvalId, { approved: true }))).toEqual([409, 'conflict']);
    expect((await app.deps.storage.sessions.history(second.sessionId)).filter((m) => m.role === 'tool')).toHaveLength(2);
    bob.stream.close();
  });

  it('expired: by the timer the model is told, as for a denial; a decision after the turn ended gets 410 (expired, not a conflict)', async () => {
    const { app, upstream } = await setup(writeThenAnswer, { APPROVAL_TIMEOUT_MS: '1000' }, { singleInstance: true });
    const { turnId, stream } = await startTurn(app);
    const asked = await stream.until(isEvent('approval_required'));
    await stream.until(isEvent('done'), 5_000);
    const result = stream.events.filter(isEvent('tool_result')).at(-1)!.data;
    expect(result).toMatchObject({ name: 'write_file', ok: false, approval: 'expired' });
    expect((lastToolResult(upstream.requests[1]!) as { error: string }).error).toMatch(/nobody approved it in time, so it counts as denied by the user/);
    const late = await decide(app, turnId, asked.data.approvalId, { approved: true });
    expect(late.status).toBe(410); // expired, though the turn has ended since
    expect(((await late.json()) as { error: { message: string } }).error.message).toMatch(/expired at .*APPROVAL_TIMEOUT_MS/);
    expect(app.activity.calls.find((r) => r.tool_resolved === 'write_file')?.approval).toBe('expired');
  });

  it('expired without a timer (another runtime): the decision itself finds it, answers 410, and the turn goes on', async () => {
    const { app } = await setup(writeThenAnswer, { APPROVAL_TIMEOUT_MS: '1000' });
    const { turnId, stream } = await startTurn(app);
    const asked = await stream.until(isEvent('approval_required'));
    await new Promise((r) => setTimeout(r, 1_200));
    expect(stream.events.some(isEvent('done'))).toBe(false);
    const late = await decide(app, turnId, asked.data.approvalId, { approved: true });
    expect(late.status).toBe(410);
    expect(((await late.json()) as { error: { message: string } }).error.message).toMatch(/expired at .*APPROVAL_TIMEOUT_MS/);
    await stream.until(isEvent('done'));
    expect(stream.events.filter(isEvent('tool_result')).at(-1)!.data.approval).toBe('expired');
  });
});

describe('a batch with two calls that wait', () => {
  it('goes on only when both have a decision, each result in the order proposed; a decision sent the moment it is asked is taken', async () => {
    const second = { name: 'write_file', arguments: '{"path":"b.txt","content":"b"}' };
    const { app, upstream } = await setup((req) => (req.messages.some((m) => m.role === 'tool') ? { text: 'Done.' } : { toolCalls: [WRITE, second] }));
    const { turnId, sessionId, stream } = await startTurn(app);
    const first = await stream.until(isEvent('approval_required'));
    // Decided at once, while the turn may still be finishing its pause.
    const one = await decide(app, turnId, first.data.approvalId, { approved: true });
    expect(one.status).toBe(202);
    const other = await stream.until((e) => e.event === 'approval_required' && e.data.approvalId !== first.data.approvalId);
    expect(other.data.arguments).toEqual({ path: 'b.txt', content: 'b' });
    await new Promise((r) => setTimeout(r, 200));
    expect(stream.events.filter(isEvent('tool_result'))).toHaveLength(0); // still waiting for the second
    expect(upstream.requests).toHaveLength(1);
    expect(await app.deps.storage.approvals.pendingForSession(sessionId)).toMatchObject([{ id: other.data.approvalId, toolName: 'write_file' }]);
    const two = await decide(app, turnId, other.data.approvalId, { approved: false, reason: 'one file is enough' });
    expect(two.status).toBe(202);
    await stream.until(isEvent('done'));
    const results = stream.events.filter(isEvent('tool_result')).map((e) => [e.data.id, e.data.approval, e.data.ok]);
    expect(results).toEqual([
      [first.data.toolCallId, 'approved', true],
      [other.data.toolCallId, 'denied', false],
    ]);
    expect(upstream.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([first.data.toolCallId, other.data.toolCallId]);
    // The batch's two rows share the model call's cost once (the scripted upstream reports 100 prompt tokens): not wasted, one call ran.
    const rows = app.activity.calls.filter((r) => r.turn_id === turnId);
    expect(rows.map((r) => [r.approval, r.wasted])).toEqual([
      ['approved', false],
      ['denied', false],
    ]);
    expect(rows.map((r) => r.prompt_tokens)).toEqual([50, 50]);
  });
});

describe('readers and a paused turn', () => {
  it('with ON_DISCONNECT=abort, the last reader leaving a paused turn does not stop it; the decision still runs it to its end', async () => {
    const { app } = await setup(writeThenAnswer, { ON_DISCONNECT: 'abort' });
    const { turnId, stream } = await startTurn(app);
    const asked = await stream.until(isEvent('approval_required'));
    stream.close();
    await new Promise((r) => setTimeout(r, 300));
    expect((await app.deps.storage.sessions.getTurn(turnId))?.status).toBe('awaiting_approval');
    const res = await decide(app, turnId, asked.data.approvalId, { approved: true });
    expect(res.status).toBe(202);
    const { streamUrl } = (await res.json()) as { streamUrl: string };
    const rest = await openStream(`${app.url}${streamUrl}&lastEventId=${asked.id}`);
    await rest.until(isEvent('done'));
    expect(rest.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
  });

  it('with ON_DISCONNECT=abort, a reader from before the pause leaving while the turn goes on stops the continuation', async () => {
    const slow: Script = (req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: 'a long answer that takes its time to arrive word by word', delayMs: 150 }
        : { toolCalls: [{ name: 'list_files', arguments: '{}' }, WRITE] };
    const { app } = await setup(slow, { ON_DISCONNECT: 'abort' });
    const { turnId, stream } = await startTurn(app);
    const asked = await stream.until(isEvent('approval_required'));
    const res = await decide(app, turnId, asked.data.approvalId, { approved: true });
    const { streamUrl } = (await res.json()) as { streamUrl: string };
    await stream.until(isEvent('text_delta'));
    stream.close();
    // No other reader meanwhile (one would keep the turn going): wait for it to end, then read its log.
    for (let i = 0; i < 100 && (await app.deps.storage.sessions.getTurn(turnId))?.status !== 'finished'; i++) await new Promise((r) => setTimeout(r, 50));
    const after = await openStream(`${app.url}${streamUrl}`);
    await after.until(isEvent('done'));
    expect(after.events.at(-1)!.data).toMatchObject({ reason: 'aborted' });
  });
});

describe('a turn that paused on another instance', () => {
  it('goes on where the decision lands; a log its first process did not finish writing goes on after its last stored event', async () => {
    const storage = createMemoryStorage();
    // The first instance dies, as it were, before its approval_required reaches the stored log.
    const lossy = {
      ...storage,
      turnEvents: {
        ...storage.turnEvents,
        appendEvents: (rows: TurnEventRow[]) => storage.turnEvents.appendEvents(rows.filter((r) => r.event !== 'approval_required')),
        // Its readers follow the stored log once the turn has paused (another instance may go on with it).
        eventsAfter: storage.turnEvents.eventsAfter.bind(storage.turnEvents),
      },
    };
    const first = await setup(writeThenAnswer, {}, { storage: lossy });
    const second = await setup(writeThenAnswer, {}, { storage });
    const { turnId, sessionId, stream } = await startTurn(first.app);
    const asked = await stream.until(isEvent('approval_required'));
    stream.close();
    const res = await decide(second.app, turnId, asked.data.approvalId, { approved: true });
    expect(res.status).toBe(202);
    const { streamUrl } = (await res.json()) as { streamUrl: string };
    const read = await openStream(second.app.url + streamUrl);
    await read.until(isEvent('done'));
    expect(shape(read.events)).toEqual(['turn_start', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'text_delta', 'done']);
    expect(read.events.map((e) => Number(e.id))).toEqual(read.events.map((_, i) => i + 1));
    expect(read.events[4]!.data).toMatchObject({ name: 'write_file', approval: 'approved', ok: true });
    expect(second.upstream.requests).toHaveLength(1); // the continuation's model call, on the second instance
    expect((await storage.workspace({ userId: 'alice', sessionId, turnId }).read('notes.txt'))?.content).toBe('hello\n');
  });
});

describe('a turn left paused with nothing waiting (its process died after the decision, before going on)', () => {
  it('the expiry hooks of two instances racing go on with it once, in the same log', async () => {
    const storage = createMemoryStorage();
    const services: TurnService[] = [];
    // Each instance's expiry hook (a Durable Object alarm's, here called by hand): the TurnService it would call.
    const hook = (): Partial<AppDeps> => ({ storage, approvalExpiry: { kind: 'alarm', paused: () => {}, service: (t) => void services.push(t) } });
    const first = await setup(writeThenAnswer, {}, hook());
    const second = await setup(writeThenAnswer, {}, hook());
    const { turnId, sessionId, stream } = await startTurn(first.app);
    const asked = await stream.until(isEvent('approval_required'));
    // The decision is stored, and nothing goes on with the turn: what a crash between the two leaves.
    expect(await storage.approvals.decide({ id: asked.data.approvalId, status: 'approved', reason: null })).toMatchObject({ status: 'approved' });
    expect(await storage.approvals.stranded()).toEqual([turnId]);
    // A decision now is refused: it was decided (that is the hole the hooks close).
    expect((await decide(second.app, turnId, asked.data.approvalId, { approved: false })).status).toBe(409);
    const [a, b] = services;
    await Promise.all([
      a!.approvals.expire(),
      b!.approvals.expire(),
      a!.approvals.expire({ turnId }),
      b!.approvals.expire({ sessionId }),
      b!.approvals.expire(),
    ]);
    await stream.until(isEvent('done'));
    expect(shape(stream.events)).toEqual(['turn_start', 'tool_call', 'tool_result', 'tool_call', 'approval_required', 'tool_result', 'text_delta', 'done']);
    expect(stream.events.map((e) => Number(e.id))).toEqual(stream.events.map((_, i) => i + 1));
    expect(stream.events[5]!.data).toMatchObject({ name: 'write_file', approval: 'approved', ok: true });
    // Once: one model request for the continuation across both instances, one write.
    expect(first.upstream.requests.length + second.upstream.requests.length).toBe(2);
    expect(await storage.approvals.stranded()).toEqual([]);
    expect((await storage.workspace({ userId: 'alice', sessionId, turnId }).read('notes.txt'))?.content).toBe('hello\n');
  });
});
