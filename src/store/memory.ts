// In-memory storage: tests and a fallback. Same semantics as the SQL stores (ownership, claim-once).
import {
  SessionForbiddenError,
  type ApprovalRecord,
  type ApprovalStore,
  type NewApproval,
  type PausedTurn,
  type Memory,
  type MemoryStore,
  type MeterAdd,
  type MeterReading,
  type MeterStore,
  type Scope,
  type SessionRecord,
  type SessionStore,
  type Storage,
  type TurnRecord,
  type WorkspaceFile,
  type WorkspaceStore,
  type CloseInterruptedOptions,
} from './types.ts';
import type { ChatMessage } from '../vocabulary.ts';
import { INTERRUPTED_DONE, interruptedMessages } from './interrupted.ts';
import { afterSeqArg, type TurnEventRow, type TurnEventStore } from './turn-events.ts';

class MemorySessions implements SessionStore {
  private sessions = new Map<string, { userId: string | null; messages: ChatMessage[] }>();
  private turns = new Map<string, TurnRecord>();
  /** The running turns and when each was claimed (ms): what closeInterrupted looks at. */
  private running = new Map<string, number>();
  /** The turns paused for approval and when each was claimed (ms): never closed as interrupted. */
  private paused = new Map<string, number>();
  /** Turns a stop was asked for (agent_turns.stop_requested_at). */
  private stopping = new Set<string>();
  /** What else closing a turn as interrupted does in the same step: its log's `done` (createMemoryStorage). */
  onInterrupted?: (turnId: string) => void;

  async ensureSession(userId: string | null, sessionId?: string): Promise<string> {
    if (sessionId) {
      const existing = this.sessions.get(sessionId);
      if (existing) {
        if (existing.userId !== userId) throw new SessionForbiddenError(sessionId);
        return sessionId;
      }
    }
    const id = sessionId ?? crypto.randomUUID();
    this.sessions.set(id, { userId, messages: [] });
    return id;
  }

  async getSession(sessionId: string): Promise<SessionRecord | null> {
    const session = this.sessions.get(sessionId);
    return session ? { id: sessionId, userId: session.userId } : null;
  }

  async createTurn(turn: Omit<TurnRecord, 'status' | 'createdAt'>): Promise<TurnRecord> {
    const record: TurnRecord = { ...turn, status: 'pending', createdAt: new Date().toISOString() };
    this.turns.set(turn.id, record);
    return { ...record };
  }

  async getTurn(turnId: string): Promise<TurnRecord | null> {
    const turn = this.turns.get(turnId);
    return turn ? { ...turn } : null;
  }

  async claimTurn(turnId: string): Promise<TurnRecord | null> {
    const turn = this.turns.get(turnId);
    if (turn?.status !== 'pending') return null;
    turn.status = 'running';
    this.running.set(turnId, Date.now());
    return { ...turn };
  }

  async requestStop(turnId: string): Promise<boolean> {
    if (this.turns.get(turnId)?.status !== 'running') return false;
    this.stopping.add(turnId);
    return true;
  }

  async stopRequested(turnId: string): Promise<boolean> {
    return this.stopping.has(turnId);
  }

  async runningTurn(sessionId: string): Promise<TurnRecord | null> {
    let newest: { turn: TurnRecord; since: number } | null = null;
    for (const [id, since] of [...this.running, ...this.paused]) {
      const turn = this.turns.get(id)!;
      if (turn.sessionId === sessionId && (!newest || since >= newest.since)) newest = { turn, since };
    }
    return newest ? { ...newest.turn } : null;
  }

  /** agent_pause_turn's update: a running turn becomes awaiting_approval; null when it was not running. */
  pauseTurn(turnId: string): TurnRecord | null {
    const turn = this.turns.get(turnId);
    if (turn?.status !== 'running') return null;
    turn.status = 'awaiting_approval';
    this.paused.set(turnId, this.running.get(turnId) ?? Date.now());
    this.running.delete(turnId);
    return turn;
  }

  /** The turns awaiting approval, oldest claim first. */
  pausedTurns(): string[] {
    return [...this.paused].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  }

  /** agent_resume_turn's update: a paused turn runs again, claimed now; null when it was not paused. */
  resumeTurn(turnId: string): TurnRecord | null {
    const turn = this.turns.get(turnId);
    if (turn?.status !== 'awaiting_approval') return null;
    turn.status = 'running';
    this.paused.delete(turnId);
    this.running.set(turnId, Date.now());
    return { ...turn };
  }

  /** For the turn events' foreign key. */
  hasTurn(turnId: string): boolean {
    return this.turns.has(turnId);
  }

  async closeInterrupted({ claimedBefore, sessionId, limit = 100 }: CloseInterruptedOptions): Promise<TurnRecord[]> {
    const before = Date.parse(claimedBefore);
    if (Number.isNaN(before)) throw new Error(`closeInterrupted: claimedBefore must be an ISO timestamp, got ${JSON.stringify(claimedBefore)}`);
    // No await between choosing and closing: the in-memory equivalent of the SQL's conditional update.
    // The common case (nothing stale) allocates nothing: one pass over the running turns.
    let stale: Array<[string, number]> | undefined;
    for (const entry of this.running) {
      if (entry[1] >= before) continue;
      stale ??= [];
      stale.push(entry);
    }
    if (!stale) return [];
    const closed = stale
      .map(([id, since]) => ({ turn: this.turns.get(id)!, since }))
      .sort((a, b) => Number(b.turn.sessionId === sessionId) - Number(a.turn.sessionId === sessionId) || a.since - b.since)
      .slice(0, Math.max(limit, 0))
      .map(({ turn }) => turn);
    for (const turn of closed) {
      turn.status = 'finished';
      this.running.delete(turn.id);
      this.sessions.get(turn.sessionId)?.messages.push(...interruptedMessages(turn));
      this.onInterrupted?.(turn.id);
    }
    return closed.map((t) => ({ ...t }));
  }

  async finishTurn(turnId: string): Promise<void> {
    const turn = this.turns.get(turnId);
    if (turn) turn.status = 'finished';
    this.running.delete(turnId);
    this.paused.delete(turnId);
  }

  async history(sessionId: string): Promise<ChatMessage[]> {
    return [...(this.sessions.get(sessionId)?.messages ?? [])];
  }

  async appendMessages(sessionId: string, _turnId: string, messages: ChatMessage[]): Promise<void> {
    this.sessions.get(sessionId)?.messages.push(...messages);
  }
}

/** agent_turn_events in memory: its key (turn_id, seq), its checks and its foreign key to the turn. */
class MemoryTurnEvents implements TurnEventStore {
  /** Each turn's rows by first seq. */
  private turns = new Map<string, Map<number, TurnEventRow>>();

  private hasTurn: (turnId: string) => boolean;
  constructor(hasTurn: (turnId: string) => boolean) {
    this.hasTurn = hasTurn;
  }

  /** agent_close_interrupted's `done`: after the last event stored, in the same step as the close. */
  appendInterruptedDone(turnId: string): void {
    let turn = this.turns.get(turnId);
    if (!turn) {
      turn = new Map();
      this.turns.set(turnId, turn);
    }
    let last = 0;
    for (const row of turn.values()) last = Math.max(last, row.lastSeq);
    turn.set(last + 1, { turnId, seq: last + 1, lastSeq: last + 1, event: 'done', data: structuredClone(INTERRUPTED_DONE.data) });
  }

  async appendEvents(rows: TurnEventRow[]): Promise<void> {
    // Every row is checked before any is kept: one statement in SQL, all or nothing.
    for (const row of rows) {
      if (!this.hasTurn(row.turnId)) throw new Error(`agent_turn_events: turn ${row.turnId} does not exist; create the turn before logging its events`);
      if (!Number.isSafeInteger(row.seq) || row.seq < 1 || !Number.isSafeInteger(row.lastSeq) || row.lastSeq < row.seq) {
        throw new RangeError(
          `agent_turn_events: a row needs whole numbers 1 ≤ seq ≤ lastSeq, got seq ${row.seq} and lastSeq ${row.lastSeq} (turn ${row.turnId})`,
        );
      }
    }
    for (const row of rows) {
      let turn = this.turns.get(row.turnId);
      if (!turn) {
        turn = new Map();
        this.turns.set(row.turnId, turn);
      }
      // A row already there (a retried write that did land) is kept as it was: on conflict do nothing.
      if (!turn.has(row.seq)) turn.set(row.seq, copyRow(row));
    }
  }

  async eventsAfter(turnId: string, afterSeq: number, options: { limit?: number } = {}): Promise<TurnEventRow[]> {
    const after = afterSeqArg(afterSeq);
    return [...(this.turns.get(turnId)?.values() ?? [])]
      .filter((row) => row.lastSeq > after)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, options.limit)
      .map(copyRow);
  }
}

/**
 * A row as a database would hand it back: nothing shared with the caller's objects. What most rows
 * hold is copied by hand into what structuredClone makes of it, at a fraction of the cost (Node's
 * structuredClone is ~10 µs even for a few fields, and every turn writes a turn_start and a done): a
 * run of text deltas (most of a turn's bytes: thousands of strings) as its array of strings, an object
 * of plain values (turn_start's, done's with its usage) field by field. Anything else is structuredClone's.
 */
function copyRow(row: TurnEventRow): TurnEventRow {
  const data = row.data as { texts?: unknown };
  if (row.event === 'text_delta' && Array.isArray(data.texts) && Object.keys(data).length === 1 && data.texts.every((t) => typeof t === 'string')) {
    return { turnId: row.turnId, seq: row.seq, lastSeq: row.lastSeq, event: row.event, data: { texts: [...data.texts] } };
  }
  const fields = typeof row.data === 'object' && row.data !== null ? copyFields(row.data, 1) : null;
  if (fields) return { turnId: row.turnId, seq: row.seq, lastSeq: row.lastSeq, event: row.event, data: fields };
  return structuredClone(row);
}

/**
 * A plain object whose values are strings, numbers, booleans, null or undefined, or (`nested` levels
 * down) such objects, copied; null for anything else (an array, a class's object, a `__proto__` key).
 */
function copyFields(value: object, nested: number): Record<string, unknown> | null {
  if (Object.getPrototypeOf(value) !== Object.prototype) return null;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return null;
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === 'object' && v !== null) {
      const inner = nested > 0 ? copyFields(v, nested - 1) : null;
      if (!inner) return null;
      out[key] = inner;
    } else if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') return null;
    else out[key] = v;
  }
  return out;
}

/** agent_approvals and the paused turns' state in memory, with the SQL functions' conditions. */
class MemoryApprovals implements ApprovalStore {
  private rows = new Map<string, ApprovalRecord>();
  private states = new Map<string, PausedTurn>();

  private sessions: MemorySessions;
  constructor(sessions: MemorySessions) {
    this.sessions = sessions;
  }

  async pause({ turnId, paused, approvals }: { turnId: string; paused: PausedTurn; approvals: NewApproval[] }): Promise<boolean> {
    for (const a of approvals) {
      if (this.rows.has(a.id)) throw new Error(`agent_approvals: id ${a.id} exists already`);
    }
    const turn = this.sessions.pauseTurn(turnId);
    if (!turn) return false;
    this.states.set(turnId, structuredClone(paused));
    const createdAt = new Date().toISOString();
    for (const a of approvals) {
      this.rows.set(a.id, {
        ...structuredClone(a),
        turnId,
        sessionId: turn.sessionId,
        userId: turn.userId,
        status: 'pending',
        reason: null,
        createdAt,
        decidedAt: null,
      });
    }
    return true;
  }

  async get(approvalId: string): Promise<ApprovalRecord | null> {
    const row = this.rows.get(approvalId);
    return row ? structuredClone(row) : null;
  }

  async forTurn(turnId: string): Promise<ApprovalRecord[]> {
    return [...this.rows.values()].filter((r) => r.turnId === turnId).map((r) => structuredClone(r));
  }

  async pendingForSession(sessionId: string): Promise<ApprovalRecord[]> {
    return [...this.rows.values()].filter((r) => r.sessionId === sessionId && r.status === 'pending').map((r) => structuredClone(r));
  }

  async decide({ id, status, reason, edit }: Parameters<ApprovalStore['decide']>[0]): Promise<ApprovalRecord | null> {
    const row = this.rows.get(id);
    if (row?.status !== 'pending' || Date.parse(row.expiresAt) <= Date.now()) return null;
    Object.assign(row, { status, reason, decidedAt: new Date().toISOString() }, edit ? structuredClone(edit) : {});
    return structuredClone(row);
  }

  async expire({ turnId, sessionId, limit = 100 }: { turnId?: string; sessionId?: string; limit?: number } = {}): Promise<ApprovalRecord[]> {
    const now = Date.now();
    const due = [...this.rows.values()]
      .filter((r) => r.status === 'pending' && Date.parse(r.expiresAt) <= now && (!turnId || r.turnId === turnId) && (!sessionId || r.sessionId === sessionId))
      .sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt) || a.id.localeCompare(b.id))
      .slice(0, Math.max(limit, 0));
    const decidedAt = new Date(now).toISOString();
    for (const row of due) Object.assign(row, { status: 'expired', decidedAt });
    return due.map((r) => structuredClone(r));
  }

  async nextExpiry(): Promise<string | null> {
    let next: string | null = null;
    for (const r of this.rows.values()) if (r.status === 'pending' && (next === null || Date.parse(r.expiresAt) < Date.parse(next))) next = r.expiresAt;
    return next;
  }

  async resume(turnId: string, { force = false }: { force?: boolean } = {}): Promise<{ turn: TurnRecord; paused: PausedTurn } | null> {
    const waiting = [...this.rows.values()].some((r) => r.turnId === turnId && r.status === 'pending');
    if (waiting && !force) return null;
    const turn = this.sessions.resumeTurn(turnId);
    if (!turn) return null;
    const paused = this.states.get(turnId) ?? { state: null, lastSeq: 0 };
    this.states.delete(turnId);
    return { turn, paused };
  }

  async stranded({ limit = 100 }: { limit?: number } = {}): Promise<string[]> {
    const waiting = new Set([...this.rows.values()].filter((r) => r.status === 'pending').map((r) => r.turnId));
    return this.sessions
      .pausedTurns()
      .filter((id) => !waiting.has(id))
      .slice(0, limit);
  }
}

class MemoryWorkspace implements WorkspaceStore {
  private files: Map<string, WorkspaceFile>;
  constructor(files: Map<string, WorkspaceFile>) {
    this.files = files;
  }

  async list() {
    return [...this.files.values()].map((f) => ({ path: f.path, size: f.content.length, updatedAt: f.updatedAt })).sort((a, b) => a.path.localeCompare(b.path));
  }

  async read(path: string) {
    return this.files.get(path) ?? null;
  }

  async write(path: string, content: string, encoding: WorkspaceFile['encoding'] = 'utf-8') {
    this.files.set(path, { path, content, encoding, updatedAt: new Date().toISOString() });
  }

  async delete(path: string) {
    return this.files.delete(path);
  }
}

class MemoryMemories implements MemoryStore {
  private memories: Memory[];
  constructor(memories: Memory[]) {
    this.memories = memories;
  }

  async save(memoryType: string, content: string): Promise<Memory> {
    const memory = { id: crypto.randomUUID(), memoryType, content, createdAt: new Date().toISOString() };
    this.memories.push(memory);
    return memory;
  }

  async recall(query?: string, memoryType?: string, limit = 10): Promise<Memory[]> {
    const q = query?.toLowerCase();
    return this.memories
      .filter((m) => (!memoryType || m.memoryType === memoryType) && (!q || m.content.toLowerCase().includes(q)))
      .slice(-limit)
      .reverse();
  }
}

/** agent_gateway_meter's counters on this process's clock: one window per subject and kind, the past ones dropped. */
class MemoryMeters implements MeterStore {
  private windows = new Map<string, { start: number; amount: number }>();

  async add({ subject, kind, add, limit }: MeterAdd): Promise<MeterReading> {
    const now = Date.now();
    const length = kind === 'requests' ? 60_000 : 86_400_000;
    // UTC windows: the epoch is a UTC midnight, so a multiple of the length is a minute's or a day's start.
    const start = now - (now % length);
    const retryAfterS = Math.max(1, Math.ceil((start + length - now) / 1000));
    const key = `${kind}\n${subject}`;
    const current = this.windows.get(key);
    if (!current || current.start < start) {
      this.windows.set(key, { start, amount: add });
      return { allowed: true, amount: add, retryAfterS };
    }
    if (limit !== null && current.amount >= limit) return { allowed: false, amount: current.amount, retryAfterS };
    current.amount += add;
    return { allowed: true, amount: current.amount, retryAfterS };
  }
}

/** Workspaces are keyed by user and session; `seed` pre-fills every new workspace (the demo project). */
export function createMemoryStorage(seed: Record<string, string> = {}): Storage {
  const workspaces = new Map<string, Map<string, WorkspaceFile>>();
  const memories = new Map<string, Memory[]>();
  const key = (scope: Scope) => `${scope.userId ?? 'local'}/${scope.sessionId}`;
  const sessions = new MemorySessions();
  const turnEvents = new MemoryTurnEvents((turnId) => sessions.hasTurn(turnId));
  sessions.onInterrupted = (turnId) => turnEvents.appendInterruptedDone(turnId);
  return {
    sessions,
    approvals: new MemoryApprovals(sessions),
    turnEvents,
    meters: new MemoryMeters(),
    workspace(scope) {
      let files = workspaces.get(key(scope));
      if (!files) {
        const now = new Date().toISOString();
        files = new Map(Object.entries(seed).map(([path, content]) => [path, { path, content, encoding: 'utf-8' as const, updatedAt: now }]));
        workspaces.set(key(scope), files);
      }
      return new MemoryWorkspace(files);
    },
    memory(scope) {
      const k = scope.userId ?? 'local';
      let list = memories.get(k);
      if (!list) {
        list = [];
        memories.set(k, list);
      }
      return new MemoryMemories(list);
    },
  };
}
