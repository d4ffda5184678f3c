// The approval desk (docs/approval.md): where a person's answers to a paused turn are taken, whichever
// route brings them. It decides one approval (POST /v1/turns/:id/approvals/:approvalId) or a useChat
// message's batch (POST /v1/ui/chat), lists what waits, expires what is past due, and goes on with a
// turn once nothing of it waits, through the `continueTurn` it is handed (TurnService's). Every answer
// is checked against what the server bound the approval to (the turn, its user, the call; a forged or
// another turn's id is unknown), never the client's account of it. A batch is decided whole or not at
// all: every answer is checked before any is decided. Edited arguments pass the gate against this
// turn's workspace as the loop's calls do (loop/workspace-gate.ts). It knows nothing of HTTP: each
// refusal is data, which the routes frame as a status. The loop's side of a pause is loop/pause.ts;
// when expiry runs (a timer, an alarm, the next request) is approval-clock.ts's.
import { gateInWorkspace } from '../loop/workspace-gate.ts';
import { quote } from '../quote.ts';
import type { ApprovalRecord, Storage, TurnRecord } from '../store/types.ts';
import { APPROVAL_ID, argumentsHash } from '../tools/approval.ts';
import { INPUT_ID, type InputQuestion, readAnswer } from '../tools/input.ts';
import type { ToolSource } from '../tools/source.ts';
import type { Tool } from '../tools/types.ts';

/** The longest a decision with edited arguments waits for an MCP server's listing to gate them. */
const EDIT_LIST_TIMEOUT_MS = 5_000;

/** Per call: keeps the platform alive for a continuation (ctx.waitUntil is per request on Workers). */
export interface GoOnOptions {
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** A person's decision on a call that waits (POST /v1/turns/:turnId/approvals/:approvalId). */
export interface DecisionInput {
  turn: TurnRecord;
  approvalId: string;
  /** Who decides: only the turn's user may. */
  userId: string | null;
  approved: boolean;
  reason?: string;
  /** Edited arguments, approved instead of the call's own: they pass the gate again. */
  arguments?: Record<string, unknown>;
}

/** Why an answer decided nothing; the routes frame each as a status. */
export type Refusal =
  /** No such approval of this turn or chat (a forged id, another turn's, another user's). */
  | { kind: 'not_found'; approvalId: string }
  /** The turn is another user's. */
  | { kind: 'forbidden' }
  /** Decided already (`approval`), or the turn has ended. */
  | { kind: 'conflict'; reason: 'decided' | 'ended'; approval?: ApprovalRecord }
  /** Past its expiry: the call was (or is now) expired. */
  | { kind: 'expired'; approval: ApprovalRecord }
  /** The edited arguments did not pass the gate: nothing recorded; `message` is the gate's. */
  | { kind: 'invalid_arguments'; message: string }
  /** A batch's answer does not match the call that waits (`message` says how). */
  | { kind: 'mismatch'; approvalId: string; message: string }
  /** A batch that cannot be decided as sent: one approval answered two ways, answers for two turns, some calls unanswered. */
  | { kind: 'invalid_batch'; message: string }
  /** An answer to a server's question that does not fit what it asked (src/tools/input.ts readAnswer): nothing recorded. */
  | { kind: 'invalid_input'; message: string };

/** What a decision came to. */
export type DecisionResult =
  /** Recorded; the turn goes on once nothing else of it waits (`continued`: it went on now). */
  { kind: 'accepted'; approval: ApprovalRecord; continued: boolean } | Refusal;

/** One answer of a batch: which approval, the decision, and the client's account of the call (checked by `matches`). */
export interface Answer<A = unknown> {
  approvalId: string;
  approved: boolean;
  reason?: string;
  /** What the client sent for it (a useChat part), handed to the batch's `matches`. */
  said: A;
}

/** A person's answer to the question a call's MCP server asked (POST /v1/turns/:turnId/inputs/:inputId). */
export interface InputAnswerInput {
  turn: TurnRecord;
  inputId: string;
  userId: string | null;
  /** The request body, MCP's ElicitResult {action, content}: checked against the question before anything is recorded. */
  body: unknown;
}

/** A batch every answer of which matched a call that waits in the chat, all of one turn, each once. */
export interface MatchedBatch {
  turn: TurnRecord;
  answers: Array<{ approval: ApprovalRecord; answer: Answer }>;
}

export interface ApprovalDeskOptions {
  storage: Storage;
  /** The turn's tools, against which edited arguments are gated (an MCP tool is looked up in its server's listing). */
  tools: readonly Tool[];
  toolSource?: ToolSource;
  /** Goes on with a paused turn once none of its calls waits (or at once, `force`: a stop); null when it did not. */
  continueTurn(turnId: string, options: GoOnOptions & { force?: boolean }): Promise<unknown>;
  /** Where a line about a failed sweep goes (stderr by default). */
  log?: (line: string) => void;
}

export class ApprovalDesk {
  private readonly options: ApprovalDeskOptions;
  constructor(options: ApprovalDeskOptions) {
    this.options = options;
  }

  private get store() {
    return this.options.storage.approvals;
  }

  /** The session's calls that wait for a person (not decided, whether or not past expiry), oldest first. */
  pending(sessionId: string): Promise<ApprovalRecord[]> {
    return this.store.pendingForSession(sessionId);
  }

  /** The earliest expiry of anything that waits (ISO), or null: where a timer is armed. */
  nextExpiry(): Promise<string | null> {
    return this.store.nextExpiry();
  }

  /**
   * A person's decision on one waiting call of a turn, recorded once; the turn goes on when nothing else
   * of it waits. Edited arguments pass the gate first; the call then runs with what the gate made of them.
   */
  async decide(input: DecisionInput, options: GoOnOptions = {}): Promise<DecisionResult> {
    const { turn, approvalId } = input;
    const record = await this.waiting(turn, input.userId, approvalId, APPROVAL_ID, options);
    if (!isRecord(record)) return record;
    let edit: { arguments: Record<string, unknown>; argsHash: string } | undefined;
    if (input.approved && input.arguments) {
      const gated = await this.gateEdit(record, input.arguments);
      if (!gated.ok) return { kind: 'invalid_arguments', message: gated.message };
      edit = { arguments: gated.args, argsHash: await argumentsHash(gated.args) };
    }
    return this.recordAndGoOn(record, { approved: input.approved, reason: input.reason, edit }, options);
  }

  /**
   * A person's answer to a server's question (docs/approval.md § A server's question), under the same
   * rules as a decision (the turn's user, once, before it expires), checked against what the server asked
   * (a form's schema, flat and bounded) before anything is recorded. Accept is recorded as approved,
   * decline and cancel as denied with the action as the reason; the answer replaces the question as the
   * record's arguments. The turn goes on when nothing else of it waits, and sends the call again with it.
   */
  async answer(input: InputAnswerInput, options: GoOnOptions = {}): Promise<DecisionResult> {
    const { turn, inputId } = input;
    const record = await this.waiting(turn, input.userId, inputId, INPUT_ID, options);
    if (!isRecord(record)) return record;
    const read = readAnswer(record.arguments as unknown as InputQuestion, input.body);
    if (!read.ok) return { kind: 'invalid_input', message: read.message };
    const answer = read.answer as unknown as Record<string, unknown>;
    return this.recordAndGoOn(
      record,
      {
        approved: read.answer.action === 'accept',
        reason: read.answer.action === 'accept' ? undefined : read.answer.action,
        edit: { arguments: answer, argsHash: await argumentsHash(answer) },
      },
      options,
    );
  }

  /** The call `id` (of the shape `pattern`) of this turn that still waits for `userId`'s answer, or why not. */
  private async waiting(turn: TurnRecord, userId: string | null, id: string, pattern: RegExp, options: GoOnOptions): Promise<ApprovalRecord | Refusal> {
    if (turn.userId !== userId) return { kind: 'forbidden' };
    const record = pattern.test(id) ? await this.store.get(id) : null;
    if (!record || record.turnId !== turn.id || record.userId !== turn.userId) return { kind: 'not_found', approvalId: id };
    return (await this.stillWaits(record, turn.id, options)) ?? record;
  }

  /** Records one answer; the turn goes on when nothing else of it waits. */
  private async recordAndGoOn(record: ApprovalRecord, decision: Parameters<ApprovalDesk['record']>[1], options: GoOnOptions): Promise<DecisionResult> {
    const decided = await this.record(record, decision, options);
    if (decided.kind !== 'accepted') return decided;
    const continued = (await this.options.continueTurn(record.turnId, options)) !== null;
    return { ...decided, continued };
  }

  /**
   * Matches a batch's answers against the calls that wait in the chat (`sessionId`), before anything is
   * decided: each approval once (a repeat with the same decision counts once; answered two ways, the
   * batch is refused), each answer matching its call (`matches`: the client's account of it, null when it
   * matches), all of one turn, and every call of that turn that waits answered (the turn goes on only once
   * each has a decision).
   */
  async match<A>(
    { sessionId, answers }: { sessionId: string; answers: Array<Answer<A>> },
    matches: (approval: ApprovalRecord, said: A) => Promise<string | null>,
  ): Promise<{ kind: 'matched'; batch: MatchedBatch } | Refusal> {
    const distinct = distinctAnswers(answers);
    if ('kind' in distinct) return distinct;
    const pending = new Map((await this.pending(sessionId)).map((a) => [a.id, a]));
    const matched: MatchedBatch['answers'] = [];
    for (const answer of distinct) {
      const approval = pending.get(answer.approvalId);
      if (!approval) return await this.notWaiting(answer.approvalId, sessionId);
      const mismatch = await matches(approval, answer.said as A);
      if (mismatch !== null) return { kind: 'mismatch', approvalId: approval.id, message: mismatch };
      matched.push({ approval, answer });
    }
    const turnId = matched[0]!.approval.turnId;
    if (matched.some((m) => m.approval.turnId !== turnId))
      return { kind: 'invalid_batch', message: 'the approval responses belong to different turns. Answer the calls of the last turn only.' };
    const unanswered = [...pending.values()].filter((a) => a.turnId === turnId && !matched.some((m) => m.approval.id === a.id));
    if (unanswered.length > 0) {
      const names = unanswered.slice(0, 5).map((a) => quote(a.toolName, 60));
      const one = unanswered.length === 1;
      return {
        kind: 'invalid_batch',
        message: `${unanswered.length} more ${one ? 'call' : 'calls'} of this turn ${one ? 'waits' : 'wait'} for a decision (${names.join(', ')}). Answer every approval of the turn before sending (sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses does).`,
      };
    }
    const turn = await this.options.storage.sessions.getTurn(turnId);
    if (!turn) return { kind: 'not_found', approvalId: matched[0]!.approval.id };
    return { kind: 'matched', batch: { turn, answers: matched } };
  }

  /**
   * A matched batch decided whole: each approval is checked once more (still waiting, not past its
   * expiry, the turn still paused) before any is recorded, then each is recorded and the turn goes on
   * once. A refusal found by the checks decides nothing. Only a decision racing this one between the
   * checks and the records (another request deciding the same call that instant) can leave the batch
   * part-recorded: it is answered as that refusal, and the rest of the batch stands as recorded.
   */
  async decideBatch({ turn, answers }: MatchedBatch, userId: string | null, options: GoOnOptions = {}): Promise<DecisionResult> {
    if (turn.userId !== userId) return { kind: 'forbidden' };
    const current = await Promise.all(answers.map(({ approval }) => this.store.get(approval.id)));
    for (const [i, record] of current.entries()) {
      if (!record) return { kind: 'not_found', approvalId: answers[i]!.approval.id };
      const refused = await this.stillWaits(record, turn.id, options);
      if (refused) return refused;
    }
    let last: ApprovalRecord | undefined;
    for (const [i, { answer }] of answers.entries()) {
      const decided = await this.record(current[i]!, { approved: answer.approved, reason: answer.reason }, options);
      if (decided.kind !== 'accepted') return decided;
      last = decided.approval;
    }
    const continued = (await this.options.continueTurn(turn.id, options)) !== null;
    return { kind: 'accepted', approval: last!, continued };
  }

  /**
   * Pending approvals past their expiry become expired (one turn's, one session's, or any: at most 100),
   * and each turn with nothing left waiting goes on, as does a turn stranded with nothing waiting (every
   * call decided or expired, but the process died before going on: otherwise it would wait for ever, a
   * later decision refused). What every clock calls (approval-clock.ts). Going on claims the turn, so
   * racing sweeps and decisions continue it once. Never throws: a failure is logged, the next call tries again.
   */
  async expire(scope: { turnId?: string; sessionId?: string } = {}, options: GoOnOptions = {}): Promise<ApprovalRecord[]> {
    try {
      const expired = await this.store.expire(scope);
      const turnIds = new Set([...expired.map((a) => a.turnId), ...(await this.stranded(scope))]);
      for (const turnId of turnIds) await this.options.continueTurn(turnId, options);
      return expired;
    } catch (err) {
      (this.options.log ?? console.error)(`rebound: could not expire approvals: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return [];
    }
  }

  /** Null when `record` still waits for a decision; else why it does not (expired first: 410 even once its turn has ended). */
  private async stillWaits(record: ApprovalRecord, turnId: string, options: GoOnOptions): Promise<Refusal | null> {
    if (record.status === 'expired') return { kind: 'expired', approval: record };
    const status = (await this.options.storage.sessions.getTurn(turnId))?.status;
    // Ended, or stopped while the call waited (a pending call of a turn that is not paused any more).
    if (status === 'finished' || (status !== 'awaiting_approval' && record.status === 'pending'))
      return { kind: 'conflict', reason: 'ended', approval: record };
    if (record.status !== 'pending') return { kind: 'conflict', reason: 'decided', approval: record };
    // Past its expiry by this clock: expired now if the store's clock agrees (it decides).
    return Date.parse(record.expiresAt) <= Date.now() ? this.expiredNow(record, options) : null;
  }

  /** Records one decision; a refusal when it lost a race or expired by the store's clock. */
  private async record(
    record: ApprovalRecord,
    decision: { approved: boolean; reason?: string; edit?: { arguments: Record<string, unknown>; argsHash: string } },
    options: GoOnOptions,
  ): Promise<{ kind: 'accepted'; approval: ApprovalRecord; continued: false } | Refusal> {
    const status = decision.approved ? 'approved' : 'denied';
    const decided = await this.store.decide({ id: record.id, status, reason: decision.reason ?? null, edit: decision.edit });
    if (decided) return { kind: 'accepted', approval: decided, continued: false };
    // Lost a race, or past its expiry by the store's clock: say which, and let an expired call end its wait.
    const now = await this.store.get(record.id);
    if (now?.status === 'pending' || now?.status === 'expired') return (await this.expiredNow(now, options)) ?? { kind: 'expired', approval: now };
    return { kind: 'conflict', reason: 'decided', ...(now ? { approval: now } : {}) };
  }

  /** A call past its expiry, expired now by the store's clock (its turn goes on): 410; null when the store has it otherwise (its clock a little behind, or decided by a racing request). */
  private async expiredNow(record: ApprovalRecord, options: GoOnOptions): Promise<Refusal | null> {
    await this.expire({ turnId: record.turnId }, options);
    const now = await this.store.get(record.id);
    return now?.status === 'expired' ? { kind: 'expired', approval: now } : null;
  }

  /** Why an approval id is not one that waits in this chat: decided or expired already here, else unknown. */
  private async notWaiting(approvalId: string, sessionId: string): Promise<Refusal> {
    const record = APPROVAL_ID.test(approvalId) ? await this.store.get(approvalId) : null;
    if (record?.sessionId !== sessionId) return { kind: 'not_found', approvalId };
    return record.status === 'expired' ? { kind: 'expired', approval: record } : { kind: 'conflict', reason: 'decided', approval: record };
  }

  /**
   * The turns of the scope that may be paused with nothing waiting: one turn's or one session's paused
   * turn (continueTurn's claim finds whether anything still waits), or any (the store's stranded turns).
   */
  private async stranded(scope: { turnId?: string; sessionId?: string }): Promise<string[]> {
    const { sessions } = this.options.storage;
    if (scope.turnId === undefined && scope.sessionId === undefined) return this.store.stranded();
    const turn = scope.turnId !== undefined ? await sessions.getTurn(scope.turnId) : await sessions.runningTurn(scope.sessionId!);
    return turn?.status === 'awaiting_approval' ? [turn.id] : [];
  }

  /** The edited arguments through the gate, against the call's tool (the app's own, or its MCP server's listing) and the turn's workspace. */
  private async gateEdit(
    record: ApprovalRecord,
    args: Record<string, unknown>,
  ): Promise<{ ok: true; args: Record<string, unknown> } | { ok: false; message: string }> {
    let tool = this.options.tools.find((t) => t.name === record.toolName);
    const source = this.options.toolSource;
    if (!tool && source) {
      const set = await source.open({ signal: AbortSignal.timeout(EDIT_LIST_TIMEOUT_MS) });
      tool = set.tools.find((t) => t.name === record.toolName);
      await set.close();
    }
    if (!tool)
      return {
        ok: false,
        message: `The tool "${record.toolName}" is not available now, so edited arguments cannot be checked. Approve the call as it is, or deny it.`,
      };
    const workspace = this.options.storage.workspace({ userId: record.userId, sessionId: record.sessionId, turnId: record.turnId });
    const verdict = await gateInWorkspace({ id: record.toolCallId, name: record.toolName, arguments: JSON.stringify(args) }, tool, workspace);
    if (verdict.verdict === 'blocked') return { ok: false, message: `The edited arguments do not pass the gate: ${verdict.message}` };
    return { ok: true, args: verdict.call.args };
  }
}

/** Each approval once: a repeat with the same decision counts once; the same approval answered two ways refuses the batch. */
function distinctAnswers<A>(answers: Array<Answer<A>>): Array<Answer<A>> | Refusal {
  const byId = new Map<string, Answer<A>>();
  for (const answer of answers) {
    const first = byId.get(answer.approvalId);
    if (!first) byId.set(answer.approvalId, answer);
    else if (first.approved !== answer.approved || (first.reason ?? '') !== (answer.reason ?? ''))
      return {
        kind: 'invalid_batch',
        message: `the message answers approval ${quote(answer.approvalId, 80)} twice, differently. Nothing was decided: answer each approval once.`,
      };
  }
  return [...byId.values()];
}

function isRecord(value: ApprovalRecord | Refusal): value is ApprovalRecord {
  return !('kind' in value);
}
