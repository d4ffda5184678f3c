// Persistence the HTTP layer and the tools need, behind interfaces so that the same app runs on an
// in-memory store (tests), embedded PGlite (npm start) and Supabase through postgrest-js (the edge).
import type { ChatMessage } from '../vocabulary.ts';
import type { TurnEventStore } from './turn-events.ts';

export interface SessionRecord {
  id: string;
  userId: string | null;
}

export type TurnStatus = 'pending' | 'running' | 'finished';

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
  /** The session's running turn (the newest claimed when there are several), or null: what a useChat resume reattaches to. */
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

/** Everything persistent, opened for one scope. */
export interface Storage {
  sessions: SessionStore;
  /** Each turn's event log (src/store/turn-events.ts), for readers on other instances. */
  turnEvents: TurnEventStore;
  workspace(scope: Scope): WorkspaceStore;
  memory(scope: Scope): MemoryStore;
}
