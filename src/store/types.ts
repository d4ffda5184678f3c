// Persistence the HTTP layer and the tools need, behind interfaces so that the same app runs on an
// in-memory store (tests), embedded PGlite (npm start) and Supabase through postgrest-js (the edge).
import type { ApprovalDecision, ChatMessage, TurnStatus } from '../vocabulary.ts';
import type { TurnEventStore } from './turn-events.ts';

export type { TurnStatus } from '../vocabulary.ts';

export interface SessionRecord {
  id: string;
  userId: string | null;
}

export interface TurnRecord {
  id: string;
  sessionId: string;
  userId: string | null;
  message: string;
  status: TurnStatus;
  createdAt: string;
}

/** Sessions, their messages and turns. Every method is scoped by the user who owns the session. */
export interface SessionStore {
  /**
   * Returns the session id to use: creates one when `sessionId` is absent or unknown,
   * throws `SessionForbiddenError` when it belongs to another user.
   */
  ensureSession(userId: string | null, sessionId?: string): Promise<string>;
  /** Read-only: the session and its owner, or null when there is none (creates nothing). */
  getSession(sessionId: string): Promise<SessionRecord | null>;
  createTurn(turn: Omit<TurnRecord, 'status' | 'createdAt'>): Promise<TurnRecord>;
  getTurn(turnId: string): Promise<TurnRecord | null>;
  /** Atomically moves a pending turn to running. Returns null when it is not pending (already run or running). */
  claimTurn(turnId: string): Promise<TurnRecord | null>;
  finishTurn(turnId: string): Promise<void>;
  /**
   * Asks a running turn to stop, wherever its producer runs (it polls stopRequested). Sets the turn's
   * stop_requested_at when its status is running, in one conditional update; returns whether it was
   * running (false for a pending, finished or unknown turn). Asking again is harmless.
   */
  requestStop(turnId: string): Promise<boolean>;
  /** Whether a stop has been asked for the turn (false for an unknown turn). */
  stopRequested(turnId: string): Promise<boolean>;
  /**
   * The session's running turn, or one paused for approval (the newest claimed when there are several),
   * or null: what a useChat resume reattaches to.
   */
  runningTurn(sessionId: string): Promise<TurnRecord | null>;
  /**
   * Closes turns a killed process left `running` (src/store/interrupted.ts says when): each turn claimed
   * before `claimedBefore` and still running becomes finished with outcome `interrupted`, and its session
   * gets the user's message and INTERRUPTED_NOTE. One conditional update (status = 'running'), so
   * concurrent callers close each turn once. Returns the turns this call closed.
   */
  closeInterrupted(options: CloseInterruptedOptions): Promise<TurnRecord[]>;
  history(sessionId: string): Promise<ChatMessage[]>;
  appendMessages(sessionId: string, turnId: string, messages: ChatMessage[]): Promise<void>;
}

export interface CloseInterruptedOptions {
  /** ISO timestamp: turns claimed before it (created before it, if never stamped) are closed. */
  claimedBefore: string;
  /** Closed first when more than `limit` turns qualify (the session a new turn is created in). */
  sessionId?: string;
  /** At most this many turns per call (default 100). */
  limit?: number;
}

export class SessionForbiddenError extends Error {
  constructor(sessionId: string) {
    super(`session ${sessionId} belongs to another user`);
    this.name = 'SessionForbiddenError';
  }
}

export interface WorkspaceFile {
  path: string;
  content: string;
  encoding: 'utf-8' | 'base64';
  updatedAt: string;
}

/** Files of one workspace (one user's session or project). Paths are normalised, relative, `/`-separated. */
export interface WorkspaceStore {
  list(): Promise<Array<{ path: string; size: number; updatedAt: string }>>;
  read(path: string): Promise<WorkspaceFile | null>;
  write(path: string, content: string, encoding?: WorkspaceFile['encoding']): Promise<void>;
  delete(path: string): Promise<boolean>;
}

export interface Memory {
  id: string;
  memoryType: string;
  content: string;
  createdAt: string;
}

export interface MemoryStore {
  save(memoryType: string, content: string): Promise<Memory>;
  recall(query?: string, memoryType?: string, limit?: number): Promise<Memory[]>;
}

/** Who and what a turn touches; the user id comes from the verified JWT (or null in local mode). */
export interface Scope {
  userId: string | null;
  sessionId: string;
  turnId: string;
}

/** agent_approvals.status: waiting for a person, or decided. */
export type ApprovalStatus = 'pending' | ApprovalDecision;

/**
 * One call that waits for a person (agent_approvals). The id is random (128 bits) and bound here to the
 * turn, its user, the tool call id and a hash of the arguments it will run with: a decision applies to
 * exactly that call.
 */
export interface ApprovalRecord {
  id: string;
  turnId: string;
  sessionId: string;
  userId: string | null;
  toolCallId: string;
  /** The tool as it will run (after the gate's repairs). */
  toolName: string;
  /** The arguments it will run with: the gate's repaired ones, or the person's edit once approved with one. */
  arguments: Record<string, unknown>;
  /** SHA-256 (hex) of `arguments` in canonical JSON (src/tools/approval.ts: argumentsHash). */
  argsHash: string;
  status: ApprovalStatus;
  /** The person's reason, when they gave one. */
  reason: string | null;
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
}

/** What pausing a turn asks for: the call, bound to its turn (whose session and user the row takes). */
export type NewApproval = Pick<ApprovalRecord, 'id' | 'toolCallId' | 'toolName' | 'arguments' | 'argsHash' | 'expiresAt'>;

/** What a paused turn stores to go on anywhere: the loop's state (opaque here: src/loop/paused.ts) and its log's last seq. */
export interface PausedTurn {
  state: unknown;
  lastSeq: number;
}

/**
 * Pending approvals and the paused turn's state. Every change is one conditional statement (SQL
 * functions agent_pause_turn, agent_decide_approval, agent_expire_approvals, agent_resume_turn,
 * migration 20261125000600), so two instances racing decide, expire or resume a turn once.
 */
export interface ApprovalStore {
  /**
   * In one step: a running turn becomes awaiting_approval with its state, and its approvals pending.
   * False (nothing written) when the turn was not running.
   */
  pause(input: { turnId: string; paused: PausedTurn; approvals: NewApproval[] }): Promise<boolean>;
  get(approvalId: string): Promise<ApprovalRecord | null>;
  /** The turn's approvals, in the order they were asked. */
  forTurn(turnId: string): Promise<ApprovalRecord[]>;
  /** The session's approvals still pending (not decided, whether or not past expiry), oldest first. */
  pendingForSession(sessionId: string): Promise<ApprovalRecord[]>;
  /**
   * Records a person's decision on a pending approval not yet past its expiry, by the database's clock;
   * an approval with `edit` runs with those arguments (already gated) and their hash. Null when it was
   * not pending or has expired: the caller reads it again to say which.
   */
  decide(input: {
    id: string;
    status: 'approved' | 'denied';
    reason: string | null;
    edit?: { arguments: Record<string, unknown>; argsHash: string };
  }): Promise<ApprovalRecord | null>;
  /**
   * Pending approvals past their expiry (the database's clock) become expired: those of one turn, of one
   * session, or any (at most `limit`, default 100, oldest first). Returns the ones this call expired.
   */
  expire(options?: { turnId?: string; sessionId?: string; limit?: number }): Promise<ApprovalRecord[]>;
  /** The earliest expiry of any pending approval (ISO), or null when nothing waits: where a timer is armed. */
  nextExpiry(): Promise<string | null>;
  /**
   * Claims a paused turn to go on, once: awaiting_approval → running (claimed now), its stored state
   * handed back and cleared. Only when none of its approvals is pending, unless `force` (a stop). Null
   * when the turn is not paused, or still waits.
   */
  resume(turnId: string, options?: { force?: boolean }): Promise<{ turn: TurnRecord; paused: PausedTurn } | null>;
  /**
   * Turns still awaiting_approval though none of their approvals is pending (at most `limit`, default
   * 100, oldest claim first): the process that recorded their last decision or expiry died before going
   * on. The expiry sweep resumes them (ApprovalDesk.expire, src/turns/approvals.ts).
   */
  stranded(options?: { limit?: number }): Promise<string[]>;
}

/** What the gateway's limits count (src/gateway/limits.ts): requests in a UTC minute, tokens in a UTC day. */
export type MeterKind = 'requests' | 'tokens';

export interface MeterReading {
  /** Whether the amount was added (the count was under the limit, or there is none). */
  allowed: boolean;
  /** The count in the current window: after adding, or as it stands when refused. */
  amount: number;
  /** Seconds until the current window ends, at least 1: what a refusal's Retry-After says. */
  retryAfterS: number;
}

/**
 * Counters of the gateway's limits, per caller (subject), in fixed windows of the store's clock: a UTC
 * minute for requests, a UTC day for tokens. One conditional statement (SQL function
 * agent_gateway_meter, migration 20261127000300), so the limits hold across isolates.
 */
export interface MeterStore {
  /**
   * Adds `add` to the subject's count of `kind` in the current window, only while that count is under
   * `limit` (null: always). Of N racing calls with room for M, exactly M are allowed.
   */
  add(input: MeterAdd): Promise<MeterReading>;
}

/** What MeterStore.add counts: `add` more of `kind` for `subject`, while its count is under `limit` (null: always). */
export interface MeterAdd {
  subject: string;
  kind: MeterKind;
  add: number;
  limit: number | null;
}

/** Everything persistent, opened for one scope. */
export interface Storage {
  sessions: SessionStore;
  /** Calls waiting for a person, and the state of the turns paused for them. */
  approvals: ApprovalStore;
  /** Each turn's event log (src/store/turn-events.ts), for readers on other instances. */
  turnEvents: TurnEventStore;
  /** The gateway's limits (GATEWAY_RPM, GATEWAY_TOKENS_PER_DAY). */
  meters: MeterStore;
  workspace(scope: Scope): WorkspaceStore;
  memory(scope: Scope): MemoryStore;
}
