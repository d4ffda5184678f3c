// The semantics every Storage must share with src/store/memory.ts, run against each SQL implementation.
import { expect } from 'vitest';
import { SessionForbiddenError, type NewApproval, type Storage } from '../../src/store/types.ts';
import { ESCAPE } from '../../src/store/text-codec.ts';
import { INTERRUPTED_NOTE } from '../../src/store/interrupted.ts';
import { MAX_ROW_TEXT, packEvents, unpackEvents, type TurnEventRow } from '../../src/store/turn-events.ts';
import type { ChatMessage, LoggedEvent, TurnEvent } from '../../src/vocabulary.ts';

export async function checkStorageContract(storage: Storage, users: { a: string | null; b: string }): Promise<void> {
  const { sessions } = storage;

  // Ownership: a new session for A; B may not use it; A may; an unknown id is created as given.
  const s1 = await sessions.ensureSession(users.a);
  expect(await sessions.ensureSession(users.a, s1)).toBe(s1);
  await expect(sessions.ensureSession(users.b, s1)).rejects.toBeInstanceOf(SessionForbiddenError);
  const stranger = users.a === null ? 'someone' : null;
  await expect(sessions.ensureSession(stranger, s1)).rejects.toBeInstanceOf(SessionForbiddenError);
  const given = `given-${crypto.randomUUID()}`;
  expect(await sessions.ensureSession(users.b, given)).toBe(given);
  // The read-only lookup names the owner and creates nothing.
  expect(await sessions.getSession(s1)).toEqual({ id: s1, userId: users.a });
  const unknown = `unknown-${crypto.randomUUID()}`;
  expect(await sessions.getSession(unknown)).toBeNull();
  expect(await sessions.getSession(unknown)).toBeNull();

  // Claim-once: of many concurrent claims exactly one wins; a claimed turn cannot be claimed again.
  const turnId = crypto.randomUUID();
  const created = await sessions.createTurn({ id: turnId, sessionId: s1, userId: users.a, message: 'hello' });
  expect(created).toMatchObject({ id: turnId, sessionId: s1, userId: users.a, message: 'hello', status: 'pending' });
  expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false);
  const claims = await Promise.all(Array.from({ length: 8 }, () => sessions.claimTurn(turnId)));
  expect(claims.filter((c) => c !== null)).toHaveLength(1);
  expect(claims.find((c) => c !== null)?.status).toBe('running');
  expect(await sessions.claimTurn(turnId)).toBeNull();
  expect(await sessions.claimTurn('no-such-turn')).toBeNull();
  await sessions.finishTurn(turnId);
  expect((await sessions.getTurn(turnId))?.status).toBe('finished');
  expect(await sessions.claimTurn(turnId)).toBeNull();
  expect(await sessions.getTurn('no-such-turn')).toBeNull();

  // History keeps order and the tool-call shape across two appends.
  const first: ChatMessage[] = [
    { role: 'user', content: 'list the files' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_files', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '["a.txt"]' },
  ];
  const second: ChatMessage[] = [{ role: 'assistant', content: 'There is a.txt.' }];
  await sessions.appendMessages(s1, turnId, first);
  await sessions.appendMessages(s1, turnId, second);
  await sessions.appendMessages(s1, turnId, []);
  expect(await sessions.history(s1)).toEqual([...first, ...second]);
  expect(await sessions.history(given)).toEqual([]);

  // Workspaces are per user and session.
  const scopeA = { userId: users.a, sessionId: s1, turnId };
  const ws = storage.workspace(scopeA);
  await ws.write('src/b.ts', 'export {};\n');
  await ws.write('a.txt', 'one');
  await ws.write('a.txt', 'two');
  await ws.write('bin.dat', 'AAEC', 'base64');
  expect((await ws.list()).map((f) => [f.path, f.size])).toEqual([
    ['a.txt', 3],
    ['bin.dat', 4],
    ['src/b.ts', 11],
  ]);
  expect(await ws.read('a.txt')).toMatchObject({ path: 'a.txt', content: 'two', encoding: 'utf-8' });
  expect((await ws.read('bin.dat'))?.encoding).toBe('base64');
  expect(await ws.read('missing.txt')).toBeNull();
  expect(await storage.workspace({ userId: users.b, sessionId: s1, turnId }).list()).toEqual([]);
  expect(await ws.delete('a.txt')).toBe(true);
  expect(await ws.delete('a.txt')).toBe(false);

  // Memories are per user, newest first, filtered by type and substring (no wildcard surprises).
  const mem = storage.memory(scopeA);
  await mem.save('preference', 'Uses 2-space indent');
  await mem.save('fact', 'Project is called Rebound');
  await mem.save('preference', 'Likes 100% coverage');
  expect((await mem.recall()).map((m) => m.content)).toEqual(['Likes 100% coverage', 'Project is called Rebound', 'Uses 2-space indent']);
  expect((await mem.recall(undefined, 'preference', 1)).map((m) => m.content)).toEqual(['Likes 100% coverage']);
  expect((await mem.recall('REBOUND')).map((m) => m.memoryType)).toEqual(['fact']);
  expect((await mem.recall('100%')).map((m) => m.content)).toEqual(['Likes 100% coverage']);
  expect(await mem.recall('%')).toHaveLength(1);
  expect(await storage.memory({ userId: users.b, sessionId: s1, turnId }).recall()).toEqual([]);

  await checkRunningTurn(storage, users.a);
}

/**
 * A session's running turn (what a useChat resume reattaches to): none while its turns are pending or
 * finished; the running one; the newest claimed of two; never another session's.
 */
export async function checkRunningTurn(storage: Storage, userId: string | null): Promise<void> {
  const { sessions } = storage;
  const sessionId = await sessions.ensureSession(userId);
  const other = await sessions.ensureSession(userId);
  const turn = async (session = sessionId) => (await sessions.createTurn({ id: crypto.randomUUID(), sessionId: session, userId, message: 'run' })).id;
  expect(await sessions.runningTurn(sessionId)).toBeNull();
  const first = await turn();
  expect(await sessions.runningTurn(sessionId)).toBeNull();
  await sessions.claimTurn(first);
  expect(await sessions.runningTurn(sessionId)).toMatchObject({ id: first, sessionId, userId, message: 'run', status: 'running' });
  await new Promise((resolve) => setTimeout(resolve, 5)); // claimed later, whatever the clock's resolution
  const second = await turn();
  await sessions.claimTurn(second);
  expect((await sessions.runningTurn(sessionId))?.id).toBe(second);
  await sessions.finishTurn(second);
  expect((await sessions.runningTurn(sessionId))?.id).toBe(first);
  await sessions.finishTurn(first);
  expect(await sessions.runningTurn(sessionId)).toBeNull();
  const elsewhere = await turn(other);
  await sessions.claimTurn(elsewhere);
  expect(await sessions.runningTurn(sessionId)).toBeNull();
  expect((await sessions.runningTurn(other))?.id).toBe(elsewhere);
  await sessions.finishTurn(elsewhere);
  expect(await sessions.runningTurn(`no-such-session-${crypto.randomUUID()}`)).toBeNull();
}

/**
 * Strings PostgreSQL refuses or mangles as they are (NUL; unpaired surrogates, high, low, at either end,
 * reversed), the storage escape character itself and text that looks encoded, and astral characters.
 */
export const NASTY_STRINGS = [
  'nul \u0000 inside',
  '\u0000',
  'lone high \uD800 inside',
  'lone low \uDC00 inside',
  'ends on a high \uDBFF',
  '\uDFFF starts with a low',
  'reversed pair \uDC00\uD800',
  `the escape ${ESCAPE} itself`,
  `${ESCAPE}0000 looks encoded, ${ESCAPE}${ESCAPE}`,
  'emoji \u{1F600} and \u{1F9EA}',
  `all at once \u0000\uD800\u{1F600}${ESCAPE}\uDC00`,
];

/** Every text field a store keeps gives back exactly what it was given, whatever it contains. */
export async function checkLosslessText(storage: Storage, userId: string | null): Promise<void> {
  const { sessions } = storage;
  const sessionId = await sessions.ensureSession(userId);

  // The user's message, as the turn keeps it.
  for (const message of NASTY_STRINGS) {
    const turn = await sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId, message });
    expect(turn.message).toBe(message);
    expect((await sessions.getTurn(turn.id))?.message).toBe(message);
    expect((await sessions.claimTurn(turn.id))?.message).toBe(message);
  }

  // Every text of every message shape: content, tool call ids, names and arguments, tool_call_id.
  const messages: ChatMessage[] = NASTY_STRINGS.flatMap((s, i): ChatMessage[] => [
    { role: 'system', content: s },
    { role: 'user', content: s },
    { role: 'assistant', content: s },
    { role: 'assistant', content: null, tool_calls: [{ id: `call_${i}${s}`, type: 'function', function: { name: s, arguments: JSON.stringify({ [s]: s }) } }] },
    { role: 'assistant', content: s, tool_calls: [{ id: s, type: 'function', function: { name: 'write_file', arguments: `{"content": "${s}` } }] },
    { role: 'tool', tool_call_id: s, content: s },
  ]);
  await sessions.appendMessages(sessionId, 'lossless-turn', messages.slice(0, 5));
  await sessions.appendMessages(sessionId, 'lossless-turn', messages.slice(5));
  expect(await sessions.history(sessionId)).toEqual(messages);

  // A message longer than a row of the PGlite store holds (MAX_ROW_TEXT), comes back whole: a surrogate
  // pair where a row would end, NUL, a lone surrogate and the escape character, the tool call on it kept.
  const long = `${'x'.repeat(MAX_ROW_TEXT - 1)}😀\u0000${ESCAPE}\uD800${'y'.repeat(MAX_ROW_TEXT)}end`;
  const longMessages: ChatMessage[] = [
    { role: 'assistant', content: long, tool_calls: [{ id: 'call_long', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_long', content: long },
    { role: 'assistant', content: 'after' },
  ];
  await sessions.appendMessages(sessionId, 'lossless-turn', longMessages);
  expect(await sessions.history(sessionId)).toEqual([...messages, ...longMessages]);

  // Workspace paths and contents.
  const ws = storage.workspace({ userId, sessionId, turnId: 'lossless-turn' });
  const paths = NASTY_STRINGS.map((s, i) => `dir/${i} ${s}.txt`);
  for (const [i, path] of paths.entries()) await ws.write(path, NASTY_STRINGS[i]!);
  expect((await ws.list()).map((f) => f.path).sort()).toEqual([...paths].sort());
  for (const [i, path] of paths.entries()) expect(await ws.read(path)).toMatchObject({ path, content: NASTY_STRINGS[i], encoding: 'utf-8' });
  expect(await ws.delete(paths[0]!)).toBe(true);
  expect(await ws.read(paths[0]!)).toBeNull();

  // Memories: type and content, and found again by a query or type holding the same characters.
  const mem = storage.memory({ userId, sessionId, turnId: 'lossless-turn' });
  for (const s of NASTY_STRINGS) {
    const saved = await mem.save(`type ${s}`, `remember ${s} please`);
    expect(saved).toMatchObject({ memoryType: `type ${s}`, content: `remember ${s} please` });
    expect((await mem.recall(`${s} please`, `type ${s}`)).map((m) => [m.memoryType, m.content])).toEqual([[`type ${s}`, `remember ${s} please`]]);
  }
  expect((await mem.recall(undefined, undefined, 100)).map((m) => m.content).reverse()).toEqual(NASTY_STRINGS.map((s) => `remember ${s} please`));
}

/** A seeded storage starts every new session with the seed files. */
export async function checkSeed(storage: Storage, userId: string): Promise<void> {
  const sessionId = await storage.sessions.ensureSession(userId);
  const files = await storage.workspace({ userId, sessionId, turnId: 't' }).list();
  expect(files.map((f) => f.path)).toEqual(['README.md', 'src/main.ts']);
}

/** Every table the migrations create, by name: each SQL store has them all, each with RLS on. */
export const TABLES = [
  'agent_activity',
  'agent_approvals',
  'agent_gateway_usage',
  'agent_memories',
  'agent_messages',
  'agent_sessions',
  'agent_turn_events',
  'agent_turns',
  'workspace_files',
];

export const SEED = { 'README.md': '# demo\n', 'src/main.ts': 'console.log(1);\n' };

/**
 * Turns a killed process left running are closed by age: only turns claimed before the cutoff and still
 * running, the cutoff session's first; each gets the user's message and the note once, even when callers
 * race; closing again changes nothing. Returns the ids it saw closed, for the caller's outcome checks.
 */
export async function checkCloseInterrupted(storage: Storage, userId: string | null): Promise<{ closed: string[] }> {
  const { sessions } = storage;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const sessionId = await sessions.ensureSession(userId);
  const other = await sessions.ensureSession(userId);
  const turn = async (session: string, message: string, claim = true) => {
    const created = await sessions.createTurn({ id: crypto.randomUUID(), sessionId: session, userId, message });
    if (claim) expect(await sessions.claimTurn(created.id)).not.toBeNull();
    return created.id;
  };
  const earlier: ChatMessage[] = [
    { role: 'user', content: 'an earlier question' },
    { role: 'assistant', content: 'an earlier answer' },
  ];
  await sessions.appendMessages(sessionId, 'earlier-turn', earlier);
  const zombie = await turn(sessionId, 'the turn that was killed');
  const zombieElsewhere = await turn(other, 'killed in another session');
  const pending = await turn(sessionId, 'created, never claimed', false);
  const finished = await turn(sessionId, 'ran to the end');
  await sessions.finishTurn(finished);
  // The cutoff falls between the old turns' claims and the young one's (ordering only; no timing asserted).
  await sleep(25);
  const cutoff = new Date().toISOString();
  await sleep(25);
  const young = await turn(sessionId, 'still running');
  const mine = new Set([zombie, zombieElsewhere, pending, finished, young]);
  // The zombie had logged a start and two deltas (one row) before its process died.
  await storage.turnEvents.appendEvents([
    { turnId: zombie, seq: 1, lastSeq: 1, event: 'turn_start', data: { turnId: zombie, sessionId, model: 'm', demo: false } },
    { turnId: zombie, seq: 2, lastSeq: 3, event: 'text_delta', data: { texts: ['half ', 'an answer'] } },
  ]);
  const ids = (turns: Array<{ id: string }>) => turns.map((t) => t.id).filter((id) => mine.has(id));

  // Bounded, the given session first: with limit 1, the other session's zombie, whatever else qualifies.
  const first = await sessions.closeInterrupted({ claimedBefore: cutoff, sessionId: other, limit: 1 });
  expect(first.map((t) => t.id)).toEqual([zombieElsewhere]);
  expect(first[0]).toMatchObject({ sessionId: other, userId, message: 'killed in another session', status: 'finished' });

  // Racing callers: the zombie is closed exactly once, nothing younger or not running is touched.
  const racing = await Promise.all(Array.from({ length: 6 }, () => sessions.closeInterrupted({ claimedBefore: cutoff, sessionId })));
  expect(racing.flatMap(ids)).toEqual([zombie]);
  expect((await sessions.getTurn(zombie))?.status).toBe('finished');
  expect((await sessions.getTurn(zombieElsewhere))?.status).toBe('finished');
  expect((await sessions.getTurn(young))?.status).toBe('running');
  expect((await sessions.getTurn(pending))?.status).toBe('pending');
  expect(await sessions.claimTurn(zombie)).toBeNull();

  // The history shows what happened, once: the user's message, then the note.
  const note = (message: string): ChatMessage[] => [
    { role: 'user', content: message },
    { role: 'assistant', content: INTERRUPTED_NOTE },
  ];
  expect(await sessions.history(sessionId)).toEqual([...earlier, ...note('the turn that was killed')]);
  expect(await sessions.history(other)).toEqual(note('killed in another session'));

  // Its stored log ends with done{interrupted}, after the last event it had, once; so does a log that had none.
  const interruptedDone = { reason: 'interrupted', iterations: 0, usage: { promptTokens: 0, completionTokens: 0 } };
  expect((await storage.turnEvents.eventsAfter(zombie, 0)).map((r) => [r.seq, r.lastSeq, r.event])).toEqual([
    [1, 1, 'turn_start'],
    [2, 3, 'text_delta'],
    [4, 4, 'done'],
  ]);
  expect((await storage.turnEvents.eventsAfter(zombie, 3))[0]?.data).toEqual(interruptedDone);
  expect((await storage.turnEvents.eventsAfter(zombieElsewhere, 0)).map((r) => [r.seq, r.event, r.data])).toEqual([[1, 'done', interruptedDone]]);

  // Idempotent: the same cutoff again closes nothing of these and appends nothing.
  expect(ids(await sessions.closeInterrupted({ claimedBefore: cutoff, sessionId }))).toEqual([]);
  expect(await sessions.history(sessionId)).toEqual([...earlier, ...note('the turn that was killed')]);

  // A later cutoff catches the young turn too; the pending one is never a zombie.
  await sleep(25);
  expect(ids(await sessions.closeInterrupted({ claimedBefore: new Date().toISOString(), sessionId }))).toEqual([young]);
  expect(await sessions.history(sessionId)).toEqual([...earlier, ...note('the turn that was killed'), ...note('still running')]);
  expect((await sessions.getTurn(pending))?.status).toBe('pending');
  return { closed: [zombieElsewhere, zombie, young] };
}

/**
 * A turn's event log (agent_turn_events): rows come back as appended, a run of text deltas as one row;
 * a replay from every position gives exactly the events after it; a re-append (a retried write that
 * did land) changes nothing, even with other data; another turn's rows never show; any text survives;
 * more rows than one PostgREST response holds come back whole; a bad position is refused by name.
 */
export async function checkTurnEvents(storage: Storage, userId: string | null): Promise<void> {
  const { sessions, turnEvents } = storage;
  const sessionId = await sessions.ensureSession(userId);
  const newTurn = async () => (await sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId, message: 'log me' })).id;
  const turnId = await newTurn();
  const otherTurn = await newTurn();

  const text = (s: string): TurnEvent => ({ event: 'text_delta', data: { text: s } });
  const events: TurnEvent[] = [
    { event: 'turn_start', data: { turnId, sessionId, model: 'm', demo: false } },
    ...NASTY_STRINGS.slice(0, 6).map(text),
    {
      event: 'tool_call',
      data: { id: `call ${NASTY_STRINGS[0]}`, name: 'write_file', arguments: JSON.stringify({ content: NASTY_STRINGS.at(-1) }), iteration: 1 },
    },
    {
      event: 'tool_result',
      data: {
        id: `call ${NASTY_STRINGS[0]}`,
        name: 'write_file',
        verdict: 'blocked',
        category: 'placeholder_content',
        ok: false,
        result: Object.fromEntries(NASTY_STRINGS.map((s, i) => [s, [i, s, { nested: s }]])),
        error: NASTY_STRINGS.join(' | '),
        suggestions: NASTY_STRINGS,
        durationMs: 3,
      },
    },
    ...NASTY_STRINGS.slice(6).map(text),
    text(''),
    { event: 'forced_summary', data: { reason: 'iteration_limit' } },
    text('summary'),
    { event: 'agent_error', data: { message: `upstream said ${NASTY_STRINGS[2]}`, retryable: true } },
    { event: 'done', data: { reason: 'completed', iterations: 2, usage: { promptTokens: 10, completionTokens: 20 } } },
  ];
  const logged: LoggedEvent[] = events.map((event, i) => ({ seq: i + 1, event }));
  // Two writes, the second starting inside a run of text deltas (as the writer's timer cuts them).
  const cut = 4;
  const rows = [...packEvents(turnId, logged.slice(0, cut)), ...packEvents(turnId, logged.slice(cut))];
  expect(rows.length).toBeLessThan(events.length);
  expect(rows.filter((r) => r.event === 'text_delta').map((r) => [r.seq, r.lastSeq])).toEqual([
    [2, 4],
    [5, 7],
    [10, 15],
    [17, 17],
  ]);
  await turnEvents.appendEvents(rows.slice(0, 2));
  await turnEvents.appendEvents([]);
  await turnEvents.appendEvents(rows.slice(2));
  expect(await turnEvents.eventsAfter(turnId, 0)).toEqual(rows);

  // Replay from every position, as a reconnect with Last-Event-ID = seq: exactly the events after it.
  for (let seq = 0; seq <= events.length; seq++) {
    const after = await turnEvents.eventsAfter(turnId, seq);
    expect(after.every((r) => r.lastSeq > seq)).toBe(true);
    expect(unpackEvents(after, seq)).toEqual(logged.slice(seq));
  }
  expect(await turnEvents.eventsAfter(turnId, events.length + 100)).toEqual([]);
  expect(await turnEvents.eventsAfter(turnId, Number.MAX_SAFE_INTEGER)).toEqual([]);

  // Idempotent: the same rows again, or a row with the same (turn, seq) and other data, change nothing.
  await turnEvents.appendEvents(rows);
  await turnEvents.appendEvents([{ ...rows[1]!, lastSeq: rows[1]!.lastSeq + 5, data: { texts: ['rewritten'] } }, rows.at(-1)!]);
  expect(await turnEvents.eventsAfter(turnId, 0)).toEqual(rows);

  // Another turn's rows, at the same seqs, stay its own; an unknown turn has none; a turn must exist.
  const others = packEvents(otherTurn, [
    { seq: 1, event: text('other') },
    { seq: 2, event: { event: 'done', data: { reason: 'aborted', iterations: 0, usage: { promptTokens: 0, completionTokens: 0 } } } },
  ]);
  await turnEvents.appendEvents(others);
  expect(await turnEvents.eventsAfter(otherTurn, 0)).toEqual(others);
  expect(await turnEvents.eventsAfter(turnId, 0)).toEqual(rows);
  expect(await turnEvents.eventsAfter(`no-such-turn-${crypto.randomUUID()}`, 0)).toEqual([]);
  await expect(turnEvents.appendEvents(packEvents(`no-such-turn-${crypto.randomUUID()}`, logged.slice(0, 1)))).rejects.toThrow();

  // A bad position is a caller's bug, refused with what was wrong.
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    await expect(turnEvents.eventsAfter(turnId, bad)).rejects.toThrow(/afterSeq must be a whole number ≥ 0/);
  }

  // More rows than one response holds (PostgREST caps at 1000): all of them, in order, from any position.
  const longTurn = await newTurn();
  const many: TurnEventRow[] = Array.from({ length: 2345 }, (_, i) => ({
    turnId: longTurn,
    seq: 2 * i + 1,
    lastSeq: 2 * i + 2,
    event: 'text_delta',
    data: { texts: [`a${i}`, `b${i}`] },
  }));
  for (let i = 0; i < many.length; i += 500) await turnEvents.appendEvents(many.slice(i, i + 500));
  expect(await turnEvents.eventsAfter(longTurn, 0)).toEqual(many);
  expect(await turnEvents.eventsAfter(longTurn, 3001)).toEqual(many.slice(1500));
  expect(unpackEvents(await turnEvents.eventsAfter(longTurn, 3001), 3001).map((e) => e.seq)).toEqual(Array.from({ length: 4690 - 3001 }, (_, i) => 3002 + i));
  // A page: the first `limit` rows from any position, across PostgREST's pages too.
  expect(await turnEvents.eventsAfter(longTurn, 3001, { limit: 8 })).toEqual(many.slice(1500, 1508));
  expect(await turnEvents.eventsAfter(longTurn, 0, { limit: 1200 })).toEqual(many.slice(0, 1200));
  expect(await turnEvents.eventsAfter(longTurn, 4690, { limit: 8 })).toEqual([]);
}

/**
 * A stop asked for on one instance reaches the producer on another through the turn row: asked of a
 * running turn it sticks and says so; of a pending, finished or unknown turn it says not; it touches
 * no other turn; asking twice is harmless.
 */
export async function checkRequestStop(storage: Storage, userId: string | null): Promise<void> {
  const { sessions } = storage;
  const sessionId = await sessions.ensureSession(userId);
  const turn = async () => (await sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId, message: 'stop me' })).id;
  const running = await turn();
  const neighbour = await turn();
  const pending = await turn();
  const finished = await turn();
  for (const id of [running, neighbour, finished]) expect(await sessions.claimTurn(id)).not.toBeNull();
  await sessions.finishTurn(finished);

  expect(await sessions.stopRequested(running)).toBe(false);
  expect(await sessions.requestStop(running)).toBe(true);
  expect(await sessions.stopRequested(running)).toBe(true);
  expect(await sessions.requestStop(running)).toBe(true);
  expect(await sessions.stopRequested(running)).toBe(true);
  expect((await sessions.getTurn(running))?.status).toBe('running');
  expect(await sessions.stopRequested(neighbour)).toBe(false);

  expect(await sessions.requestStop(pending)).toBe(false);
  expect(await sessions.stopRequested(pending)).toBe(false);
  expect(await sessions.requestStop(finished)).toBe(false);
  expect(await sessions.stopRequested(finished)).toBe(false);
  const unknown = `no-such-turn-${crypto.randomUUID()}`;
  expect(await sessions.requestStop(unknown)).toBe(false);
  expect(await sessions.stopRequested(unknown)).toBe(false);

  // Once the turn has finished, the request stays on record; a new one is refused.
  await sessions.finishTurn(running);
  expect(await sessions.stopRequested(running)).toBe(true);
  expect(await sessions.requestStop(running)).toBe(false);
}

/**
 * Approvals and paused turns (docs/approval.md § What is stored): a running turn pauses once, with its state and its
 * approvals bound to it; a decision lands once and only before expiry; edited arguments replace the
 * call's with their hash; expiry is by the store's clock; a paused turn is never closed as interrupted,
 * is the session's running turn, and resumes once, only when nothing is pending unless forced; any
 * text survives.
 */
export async function checkApprovals(storage: Storage, users: { a: string | null; b: string }): Promise<void> {
  const { sessions, approvals } = storage;
  const sessionId = await sessions.ensureSession(users.a);
  const turn = async (claim = true) => {
    const created = await sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId: users.a, message: 'write it' });
    if (claim) expect(await sessions.claimTurn(created.id)).not.toBeNull();
    return created.id;
  };
  const id = () => `apr_${crypto.randomUUID().replace(/-/g, '')}`;
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const past = new Date(Date.now() - 60_000).toISOString();
  const nasty = Object.fromEntries(NASTY_STRINGS.map((s, i) => [`k${i}${s}`, [s, { nested: s }]]));
  const state = { messages: [{ role: 'tool', tool_call_id: 'c0', content: NASTY_STRINGS.join('|') }], iteration: 2, elapsedMs: 1234 };

  const turnId = await turn();
  const [write, remove, stale] = [id(), id(), id()];
  const asked: NewApproval[] = [
    { id: write, toolCallId: `call_1${NASTY_STRINGS[0]}`, toolName: 'write_file', arguments: nasty, argsHash: 'a'.repeat(64), expiresAt: later },
    { id: remove, toolCallId: 'call_2', toolName: 'delete_file', arguments: { path: 'a.txt' }, argsHash: 'b'.repeat(64), expiresAt: later },
    { id: stale, toolCallId: 'call_3', toolName: 'crm__add_note', arguments: {}, argsHash: 'c'.repeat(64), expiresAt: past },
  ];
  expect(await approvals.pause({ turnId, paused: { state, lastSeq: 17 }, approvals: asked })).toBe(true);
  expect((await sessions.getTurn(turnId))?.status).toBe('awaiting_approval');
  // Once: a paused turn is not running; a pending (unclaimed) turn cannot pause and gets no rows.
  expect(await approvals.pause({ turnId, paused: { state, lastSeq: 1 }, approvals: [{ ...asked[1]!, id: id(), toolCallId: 'call_9' }] })).toBe(false);
  const unclaimed = await turn(false);
  expect(await approvals.pause({ turnId: unclaimed, paused: { state, lastSeq: 1 }, approvals: [{ ...asked[0]!, id: id() }] })).toBe(false);
  expect(await approvals.forTurn(unclaimed)).toEqual([]);

  // Each row bound to its turn, session and user, its text exact; in the order asked.
  const rows = await approvals.forTurn(turnId);
  expect(rows.map((r) => r.id)).toEqual([write, remove, stale]);
  expect(rows[0]).toMatchObject({ turnId, sessionId, userId: users.a, toolCallId: asked[0]!.toolCallId, toolName: 'write_file', arguments: nasty });
  expect(rows[0]).toMatchObject({ argsHash: 'a'.repeat(64), status: 'pending', reason: null, decidedAt: null });
  expect(Date.parse(rows[0]!.expiresAt)).toBe(Date.parse(later));
  expect(Number.isNaN(Date.parse(rows[0]!.createdAt))).toBe(false);
  expect(await approvals.get(write)).toEqual(rows[0]);
  expect(await approvals.get(id())).toBeNull();
  expect((await approvals.pendingForSession(sessionId)).map((r) => r.id)).toEqual([write, remove, stale]);
  // The earliest pending expiry (other suites' rows may share the store: none is later than this one's).
  expect(Date.parse((await approvals.nextExpiry())!)).toBeLessThanOrEqual(Date.parse(past));

  // Paused: the session's running turn, never closed as interrupted, not resumable while anything is pending.
  expect((await sessions.runningTurn(sessionId))?.id).toBe(turnId);
  await sessions.closeInterrupted({ claimedBefore: new Date(Date.now() + 60_000).toISOString(), sessionId });
  expect((await sessions.getTurn(turnId))?.status).toBe('awaiting_approval');
  expect(await approvals.resume(turnId)).toBeNull();
  expect(await approvals.stranded({ limit: 10_000 })).not.toContain(turnId);

  // A decision lands once, whoever races; an edit replaces the arguments and their hash.
  const edited = { arguments: { path: `b${NASTY_STRINGS[1]}.txt`, content: 'x' }, argsHash: 'd'.repeat(64) };
  const racing = await Promise.all(Array.from({ length: 6 }, () => approvals.decide({ id: write, status: 'approved', reason: null, edit: edited })));
  expect(racing.filter((r) => r !== null)).toHaveLength(1);
  const approved = await approvals.get(write);
  expect(approved).toMatchObject({ status: 'approved', reason: null, ...edited });
  expect(Number.isNaN(Date.parse(approved!.decidedAt!))).toBe(false);
  expect(await approvals.decide({ id: write, status: 'denied', reason: 'changed my mind' })).toBeNull();
  const reason = `not that file ${NASTY_STRINGS[2]}`;
  expect(await approvals.decide({ id: remove, status: 'denied', reason })).toMatchObject({
    id: remove,
    status: 'denied',
    reason,
    arguments: { path: 'a.txt' },
  });
  expect(await approvals.decide({ id: id(), status: 'approved', reason: null })).toBeNull();

  // Past its expiry a pending approval takes no decision; the sweep expires it once (by turn, session or any).
  expect(await approvals.decide({ id: stale, status: 'approved', reason: null })).toBeNull();
  expect((await approvals.get(stale))?.status).toBe('pending');
  expect(await approvals.expire({ turnId: unclaimed })).toEqual([]);
  const expired = await approvals.expire({ sessionId });
  expect(expired.map((r) => [r.id, r.status])).toEqual([[stale, 'expired']]);
  expect(await approvals.expire({ turnId })).toEqual([]);
  expect(await approvals.pendingForSession(sessionId)).toEqual([]);

  // Nothing pending but still paused (a process died before going on): stranded, until it resumes.
  expect(await approvals.stranded({ limit: 10_000 })).toContain(turnId);
  // Nothing pending: it resumes once, running again, with its state and seq; the state is not kept.
  const resumed = await approvals.resume(turnId);
  expect(resumed?.turn).toMatchObject({ id: turnId, sessionId, userId: users.a, status: 'running' });
  expect(resumed?.paused).toEqual({ state, lastSeq: 17 });
  expect(await approvals.resume(turnId)).toBeNull();
  expect((await sessions.getTurn(turnId))?.status).toBe('running');
  expect(await approvals.stranded({ limit: 10_000 })).not.toContain(turnId);

  // A stop resumes a turn that still waits (force); the pending approval stays as it was; another user's
  // turn is theirs (the rows carry the turn's user, whoever asks).
  const waiting = await turn();
  const open = id();
  expect(await approvals.pause({ turnId: waiting, paused: { state: null, lastSeq: 3 }, approvals: [{ ...asked[1]!, id: open }] })).toBe(true);
  expect(await approvals.resume(waiting)).toBeNull();
  expect((await approvals.resume(waiting, { force: true }))?.paused).toEqual({ state: null, lastSeq: 3 });
  expect((await approvals.get(open))?.status).toBe('pending');
  await sessions.finishTurn(waiting);
  expect((await sessions.getTurn(waiting))?.status).toBe('finished');

  const theirs = await sessions.ensureSession(users.b);
  const other = await sessions.createTurn({ id: crypto.randomUUID(), sessionId: theirs, userId: users.b, message: 'b' });
  await sessions.claimTurn(other.id);
  const bId = id();
  expect(await approvals.pause({ turnId: other.id, paused: { state: {}, lastSeq: 0 }, approvals: [{ ...asked[1]!, id: bId }] })).toBe(true);
  expect(await approvals.get(bId)).toMatchObject({ turnId: other.id, sessionId: theirs, userId: users.b });
  expect((await approvals.pendingForSession(sessionId)).map((r) => r.id)).toEqual([open]);
}

/**
 * The gateway's limits (MeterStore): a count added only while under the limit, racing callers admitted
 * exactly up to it, per subject and kind, tokens added past the limit when there is none, Retry-After
 * within the window. `stores` are two instances on the same data where there can be (two isolates).
 */
export async function checkMeters(stores: [Storage, Storage]): Promise<void> {
  const [one, two] = stores;
  await awayFromWindowEdge();
  const subject = `user:${crypto.randomUUID()}`;
  const requests = (s: Storage, who = subject) => s.meters.add({ subject: who, kind: 'requests', add: 1, limit: 5 });
  // Twelve racing requests, half on each instance, against a limit of 5: exactly five pass.
  const raced = await Promise.all(Array.from({ length: 12 }, (_, i) => requests(i % 2 ? one : two)));
  expect(raced.filter((r) => r.allowed)).toHaveLength(5);
  expect(
    raced
      .filter((r) => r.allowed)
      .map((r) => r.amount)
      .sort(),
  ).toEqual([1, 2, 3, 4, 5]);
  for (const refused of raced.filter((r) => !r.allowed)) {
    expect(refused.amount).toBe(5);
    expect(refused.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterS).toBeLessThanOrEqual(60);
  }
  expect((await requests(one)).allowed).toBe(false);
  // Another subject, and another kind of the same subject, count apart; a subject is any text.
  expect(await requests(two, 'key:0123abcd')).toMatchObject({ allowed: true, amount: 1 });
  const odd = `user:${NASTY_STRINGS.join('')}`;
  expect(await requests(one, odd)).toMatchObject({ allowed: true, amount: 1 });
  expect(await requests(two, odd)).toMatchObject({ allowed: true, amount: 2 });

  // Tokens: checked (add 0) before a request, counted after it without a limit, so the last request may pass it.
  const check = (s: Storage) => s.meters.add({ subject, kind: 'tokens', add: 0, limit: 100 });
  expect(await check(one)).toMatchObject({ allowed: true, amount: 0 });
  expect(await two.meters.add({ subject, kind: 'tokens', add: 60, limit: null })).toMatchObject({ allowed: true, amount: 60 });
  expect(await check(two)).toMatchObject({ allowed: true, amount: 60 });
  expect(await one.meters.add({ subject, kind: 'tokens', add: 70, limit: null })).toMatchObject({ allowed: true, amount: 130 });
  const over = await check(two);
  expect(over).toMatchObject({ allowed: false, amount: 130 });
  expect(over.retryAfterS).toBeGreaterThanOrEqual(1);
  expect(over.retryAfterS).toBeLessThanOrEqual(86_400);
}

/** Waits past the next UTC minute when it is less than 5 s away, so that a test's counts fall in one window. */
export async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
