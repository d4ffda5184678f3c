// The approval desk's contract (src/turns/approvals.ts, docs/approval.md), run against every store
// (memory, PGlite, the Supabase stack) as storage-contract.ts is: the same answers to the same
// decisions whichever store holds the approvals. A decision lands once, only by the turn's user, only
// on a call that waits; past its expiry it is 410 even once the turn has ended; a useChat batch is
// matched whole (a repeat counts once, an approval answered two ways refuses it, every call of the turn
// answered) and decided whole (a refusal found by its checks decides nothing); expiry goes on with the
// turns it frees and with turns left paused with nothing waiting. The desk's `continueTurn` here is
// the store's claim (what TurnService.continueTurn does first), so each turn is gone on with once.
import { expect } from 'vitest';
import { ApprovalDesk, type Answer } from '../../src/turns/approvals.ts';
import type { NewApproval, Storage } from '../../src/store/types.ts';
import type { Tool } from '../../src/tools/types.ts';
import { argumentsHash } from '../../src/tools/approval.ts';

const writeFile: Tool = {
  name: 'write_file',
  description: 'Write a file.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  run: async () => ({ ok: true }),
};

export async function checkApprovalDesk(storage: Storage, users: { a: string | null; b: string }): Promise<void> {
  const { sessions, approvals } = storage;
  const continued: string[] = [];
  const desk = new ApprovalDesk({
    storage,
    tools: [writeFile],
    continueTurn: async (turnId, options) => {
      const resumed = await approvals.resume(turnId, { force: options.force ?? false });
      if (resumed) continued.push(turnId);
      return resumed;
    },
    log: () => {},
  });
  const sessionId = await sessions.ensureSession(users.a);
  const id = () => `apr_${crypto.randomUUID().replace(/-/g, '')}`;
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const past = new Date(Date.now() - 60_000).toISOString();
  /** A claimed turn of A's session, paused with one approval per entry (write_file calls), each expiring as given. */
  const paused = async (expiries: string[]) => {
    const turn = await sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId: users.a, message: 'write it' });
    expect(await sessions.claimTurn(turn.id)).not.toBeNull();
    const asked: NewApproval[] = await Promise.all(
      expiries.map(async (expiresAt, i) => {
        const args = { path: `f${i}.txt`, content: String(i) };
        return { id: id(), toolCallId: `call_${i}`, toolName: 'write_file', arguments: args, argsHash: await argumentsHash(args), expiresAt };
      }),
    );
    expect(await approvals.pause({ turnId: turn.id, paused: { state: { version: 0 }, lastSeq: 3 }, approvals: asked })).toBe(true);
    return { turn: (await sessions.getTurn(turn.id))!, ids: asked.map((a) => a.id) };
  };
  const status = async (approvalId: string) => (await approvals.get(approvalId))?.status;

  // One decision: only the turn's user, only an approval of this turn, once; the turn goes on when nothing else waits.
  const one = await paused([later, later]);
  const [w1, w2] = one.ids as [string, string];
  const as = (userId: string | null, approvalId: string, approved = true) => desk.decide({ turn: one.turn, approvalId, userId, approved });
  expect(await as(users.b, w1)).toEqual({ kind: 'forbidden' });
  expect(await as(users.a, id())).toEqual({ kind: 'not_found', approvalId: expect.any(String) });
  expect(await as(users.a, 'not-an-id')).toMatchObject({ kind: 'not_found' });
  expect(await desk.pending(sessionId)).toEqual([expect.objectContaining({ id: w1 }), expect.objectContaining({ id: w2 })]);
  // Edited arguments pass the gate first: blocked, nothing is recorded.
  const badEdit = await desk.decide({ turn: one.turn, approvalId: w1, userId: users.a, approved: true, arguments: { path: 'x.txt' } });
  expect(badEdit).toMatchObject({ kind: 'invalid_arguments', message: expect.stringMatching(/do not pass the gate/) });
  expect(await status(w1)).toBe('pending');
  const edited = await desk.decide({ turn: one.turn, approvalId: w1, userId: users.a, approved: true, arguments: { path: 'e.txt', content: 'edited' } });
  expect(edited).toMatchObject({
    kind: 'accepted',
    continued: false,
    approval: { id: w1, status: 'approved', arguments: { path: 'e.txt', content: 'edited' } },
  });
  expect(await as(users.a, w1, false)).toMatchObject({ kind: 'conflict', reason: 'decided', approval: { status: 'approved' } });
  expect(await desk.decide({ turn: one.turn, approvalId: w2, userId: users.a, approved: false, reason: 'no' })).toMatchObject({
    kind: 'accepted',
    continued: true,
    approval: { status: 'denied', reason: 'no' },
  });
  expect(continued).toEqual([one.turn.id]);

  // Past its expiry: 410, the call expired now and its turn gone on; still 410 once the turn has ended.
  const late = await paused([past]);
  const [stale] = late.ids as [string];
  expect(await desk.decide({ turn: late.turn, approvalId: stale, userId: users.a, approved: true })).toMatchObject({
    kind: 'expired',
    approval: { status: 'expired' },
  });
  expect(continued).toContain(late.turn.id);
  await sessions.finishTurn(late.turn.id);
  expect(await desk.decide({ turn: late.turn, approvalId: stale, userId: users.a, approved: true })).toMatchObject({ kind: 'expired' });

  // A batch: matched whole before anything is decided.
  const batch = await paused([later, later]);
  const [a, b] = batch.ids as [string, string];
  const answer = (approvalId: string, approved: boolean, reason?: string): Answer<string> => ({
    approvalId,
    approved,
    ...(reason ? { reason } : {}),
    said: approvalId,
  });
  const fits = async () => null;
  const match = (answers: Array<Answer<string>>, matches: (approval: { id: string }, said: string) => Promise<string | null> = fits) =>
    desk.match({ sessionId, answers }, matches);
  expect(await match([answer(a, false), answer(a, true), answer(b, true)])).toMatchObject({
    kind: 'invalid_batch',
    message: expect.stringMatching(/twice, differently/),
  });
  expect(await match([answer(a, true)])).toMatchObject({ kind: 'invalid_batch', message: expect.stringMatching(/1 more call of this turn waits/) });
  expect(await match([answer(a, true), answer(b, true)], async (approval) => (approval.id === b ? 'not that call' : null))).toEqual({
    kind: 'mismatch',
    approvalId: b,
    message: 'not that call',
  });
  expect(await match([answer(a, true), answer(id(), true)])).toMatchObject({ kind: 'not_found' });
  expect([await status(a), await status(b)]).toEqual(['pending', 'pending']);
  // [A, B, A again]: each once.
  const matched = await match([answer(a, true), answer(b, false, 'one is enough'), answer(a, true)]);
  expect(matched.kind).toBe('matched');
  if (matched.kind !== 'matched') return;
  expect(matched.batch.answers.map((m) => m.approval.id)).toEqual([a, b]);
  expect(await desk.decideBatch(matched.batch, users.b)).toEqual({ kind: 'forbidden' });
  expect(await desk.decideBatch(matched.batch, users.a)).toMatchObject({ kind: 'accepted', continued: true });
  expect([await status(a), await status(b)]).toEqual(['approved', 'denied']);
  expect(continued.filter((t) => t === batch.turn.id)).toHaveLength(1);
  // Sent again: what was decided is a conflict, named.
  expect(await match([answer(a, true), answer(b, false, 'one is enough')])).toMatchObject({ kind: 'conflict', reason: 'decided', approval: { id: a } });

  // All or nothing: one call of the batch past its expiry refuses the batch (410) before the other is decided.
  const mixed = await paused([later, past]);
  const [fresh, due] = mixed.ids as [string, string];
  const both = await match([answer(fresh, true), answer(due, true)]);
  expect(both.kind).toBe('matched');
  if (both.kind !== 'matched') return;
  expect(await desk.decideBatch(both.batch, users.a)).toMatchObject({ kind: 'expired', approval: { id: due, status: 'expired' } });
  expect(await status(fresh)).toBe('pending');

  // Expiry: what is due expires; a turn paused with nothing waiting (its process died before going on) is gone on with, once.
  const stranded = await paused([later]);
  await approvals.decide({ id: stranded.ids[0]!, status: 'approved', reason: null });
  const before = continued.length;
  await Promise.all([desk.expire({ turnId: stranded.turn.id }), desk.expire({ sessionId })]);
  expect(continued.slice(before)).toEqual([stranded.turn.id]);
  expect((await sessions.getTurn(stranded.turn.id))?.status).toBe('running');
}
