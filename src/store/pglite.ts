// Storage on the embedded PGlite database (`npm start`): the same tables as Supabase, the same semantics
// as memory.ts (ownership check on sessions, claim-once turns).
import { PGlite } from '@electric-sql/pglite';
import { applyMigrations, type SqlFile } from './sql-migrate.ts';
import {
  SessionForbiddenError,
  type ApprovalRecord,
  type ApprovalStore,
  type NewApproval,
  type PausedTurn,
  type CloseInterruptedOptions,
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
} from './types.ts';
import type { ChatMessage } from '../vocabulary.ts';
import { INTERRUPTED_NOTE } from './interrupted.ts';
import {
  iso,
  messageRow,
  contentParts,
  joinMessageParts,
  type MessagePartRow,
  newApprovalsJson,
  toApproval,
  toResumed,
  type ApprovalDbRow,
  type ResumedDbRow,
  rowMessage,
  toMemory,
  toTurn,
  toTurnEventRow,
  turnEventDbRow,
  type MemoryDbRow,
  type MeterDbRow,
  toMeterReading,
  type TurnDbRow,
  type TurnEventDbRow,
} from './db-rows.ts';
import { afterSeqArg, MAX_ROW_TEXT, type TurnEventRow, type TurnEventStore } from './turn-events.ts';
import { decodeText, encodeDeep, encodeText } from './text-codec.ts';

/** A Postgres driver with PGlite's query(sql, params): a PGlite instance or transaction (the stores, sinks and dashboard on it take this). */
export interface Queryable {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}
/** PGlite, or anything with its query() and transaction(). */
export interface PgliteLike extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

export interface PgliteStorageOptions {
  /** Files every new session's workspace starts with (the demo project), as in createMemoryStorage. */
  seed?: Record<string, string>;
}

class PgliteSessions implements SessionStore {
  private db: PgliteLike;
  private seed: Record<string, string>;
  constructor(db: PgliteLike, seed: Record<string, string>) {
    this.db = db;
    this.seed = seed;
  }

  async ensureSession(userId: string | null, sessionId?: string): Promise<string> {
    const id = sessionId ?? crypto.randomUUID();
    return this.db.transaction(async (tx) => {
      const created = await tx.query<{ id: string }>(
        'insert into public.agent_sessions (id, user_id) values ($1, $2) on conflict (id) do nothing returning id',
        [id, userId],
      );
      if (created.rows.length === 0) {
        const { rows } = await tx.query<{ user_id: string | null }>('select user_id from public.agent_sessions where id = $1', [id]);
        if (rows[0]?.user_id !== userId) throw new SessionForbiddenError(id);
        return id;
      }
      const files = Object.entries(this.seed);
      if (files.length > 0) {
        await tx.query(
          `insert into public.workspace_files (user_id, session_id, path, content)
           select $1, $2, f.key, f.value from jsonb_each_text($3::jsonb) as f
           on conflict (user_id, session_id, path) do nothing`,
          [userId, id, JSON.stringify(encodeDeep(this.seed))],
        );
      }
      return id;
    });
  }

  async getSession(sessionId: string): Promise<SessionRecord | null> {
    const { rows } = await this.db.query<{ user_id: string | null }>('select user_id from public.agent_sessions where id = $1', [sessionId]);
    return rows[0] ? { id: sessionId, userId: rows[0].user_id } : null;
  }

  async createTurn(turn: Omit<TurnRecord, 'status' | 'createdAt'>): Promise<TurnRecord> {
    const { rows } = await this.db.query<TurnDbRow>(
      `insert into public.agent_turns (id, session_id, user_id, message) values ($1, $2, $3, $4)
       returning id, session_id, user_id, message, status, created_at`,
      [turn.id, turn.sessionId, turn.userId, encodeText(turn.message)],
    );
    return toTurn(rows[0]!);
  }

  async getTurn(turnId: string): Promise<TurnRecord | null> {
    const { rows } = await this.db.query<TurnDbRow>('select id, session_id, user_id, message, status, created_at from public.agent_turns where id = $1', [
      turnId,
    ]);
    return rows[0] ? toTurn(rows[0]) : null;
  }

  async claimTurn(turnId: string): Promise<TurnRecord | null> {
    // One statement: two concurrent claims cannot both see 'pending'.
    const { rows } = await this.db.query<TurnDbRow>(
      `update public.agent_turns set status = 'running', claimed_at = now()
       where id = $1 and status = 'pending'
       returning id, session_id, user_id, message, status, created_at`,
      [turnId],
    );
    return rows[0] ? toTurn(rows[0]) : null;
  }

  async finishTurn(turnId: string): Promise<void> {
    await this.db.query(`update public.agent_turns set status = 'finished' where id = $1`, [turnId]);
  }

  async requestStop(turnId: string): Promise<boolean> {
    const { rows } = await this.db.query(`update public.agent_turns set stop_requested_at = now() where id = $1 and status = 'running' returning id`, [turnId]);
    return rows.length > 0;
  }

  async stopRequested(turnId: string): Promise<boolean> {
    const { rows } = await this.db.query<{ stop: boolean }>('select stop_requested_at is not null as stop from public.agent_turns where id = $1', [turnId]);
    return rows[0]?.stop === true;
  }

  async runningTurn(sessionId: string): Promise<TurnRecord | null> {
    const { rows } = await this.db.query<TurnDbRow>(
      `select id, session_id, user_id, message, status, created_at from public.agent_turns
       where session_id = $1 and status in ('running', 'awaiting_approval') order by coalesce(claimed_at, created_at) desc, id limit 1`,
      [sessionId],
    );
    return rows[0] ? toTurn(rows[0]) : null;
  }

  async closeInterrupted({ claimedBefore, sessionId, limit = 100 }: CloseInterruptedOptions): Promise<TurnRecord[]> {
    // agent_close_interrupted (migration 20261123000200): one statement, shared with the Supabase store.
    const { rows } = await this.db.query<TurnDbRow>('select * from public.agent_close_interrupted($1::timestamptz, $2::text, $3::text, $4::integer)', [
      claimedBefore,
      INTERRUPTED_NOTE,
      sessionId ?? null,
      limit,
    ]);
    return rows.map(toTurn);
  }

  async history(sessionId: string): Promise<ChatMessage[]> {
    const { rows } = await this.db.query<MessagePartRow>(
      'select role, content, tool_calls, tool_call_id, continued from public.agent_messages where session_id = $1 order by id',
      [sessionId],
    );
    return joinMessageParts(rows).map(rowMessage);
  }

  async appendMessages(sessionId: string, turnId: string, messages: ChatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // PGlite's WASM memory grows to the largest statement's working set and never shrinks, so no statement
    // carries more than MAX_ROW_TEXT of a message's text: a longer text takes rows marked continued, the
    // message's other columns on its last. A 20 MB answer in one jsonb array parameter grew it by ~140 MB,
    // as one text parameter by ~26 MB, in 256 KB rows by nothing (docs/configuration.md § The embedded
    // database's memory). One transaction: the identity values follow the conversation order, all or none.
    await this.db.transaction(async (tx) => {
      for (const m of messages) {
        const row = messageRow(m);
        const parts = row.content === null || row.content.length <= MAX_ROW_TEXT ? [row.content] : contentParts(row.content, MAX_ROW_TEXT);
        for (const part of parts.slice(0, -1))
          await tx.query(`insert into public.agent_messages (session_id, turn_id, role, content, continued) values ($1, $2, $3, $4, true)`, [
            sessionId,
            turnId,
            row.role,
            part,
          ]);
        await tx.query(
          `insert into public.agent_messages (session_id, turn_id, role, content, tool_calls, tool_call_id)
           values ($1, $2, $3, $4, $5::jsonb, $6)`,
          [sessionId, turnId, row.role, parts.at(-1), row.tool_calls === null ? null : JSON.stringify(row.tool_calls), row.tool_call_id],
        );
      }
    });
  }
}

class PgliteTurnEvents implements TurnEventStore {
  private db: PgliteLike;
  constructor(db: PgliteLike) {
    this.db = db;
  }

  async appendEvents(rows: TurnEventRow[]): Promise<void> {
    if (rows.length === 0) return;
    // A statement per row (at most MAX_ROW_TEXT of text), not the batch in one jsonb parameter: a batch
    // holds what 250 ms of a fast model brought, and its parsing could grow PGlite's WASM memory, which
    // never shrinks (docs/configuration.md § The embedded database's memory). A row already there is a
    // retried write that did land.
    await this.db.transaction(async (tx) => {
      for (const row of rows.map(turnEventDbRow))
        await tx.query(
          `insert into public.agent_turn_events (turn_id, seq, last_seq, event, data) values ($1, $2, $3, $4, $5::jsonb)
           on conflict (turn_id, seq) do nothing`,
          [row.turn_id, row.seq, row.last_seq, row.event, JSON.stringify(row.data)],
        );
    });
  }

  async eventsAfter(turnId: string, afterSeq: number, options: { limit?: number } = {}): Promise<TurnEventRow[]> {
    // `limit null` is no limit.
    const { rows } = await this.db.query<TurnEventDbRow>(
      `select turn_id, seq, last_seq, event, data from public.agent_turn_events
       where turn_id = $1 and last_seq > $2 order by seq limit $3`,
      [turnId, afterSeqArg(afterSeq), options.limit ?? null],
    );
    return rows.map(toTurnEventRow);
  }
}

const APPROVAL_COLUMNS = 'id, turn_id, session_id, user_id, tool_call_id, tool_name, arguments, args_hash, status, reason, created_at, expires_at, decided_at';

/** Every change through the SQL functions of migration 20261125000600, shared with the Supabase store. */
class PgliteApprovals implements ApprovalStore {
  private db: Queryable;
  constructor(db: Queryable) {
    this.db = db;
  }

  async pause({ turnId, paused, approvals }: { turnId: string; paused: PausedTurn; approvals: NewApproval[] }): Promise<boolean> {
    const { rows } = await this.db.query<{ paused: boolean }>('select public.agent_pause_turn($1, $2::jsonb, $3::integer, $4::jsonb) as paused', [
      turnId,
      JSON.stringify(encodeDeep(paused.state)),
      paused.lastSeq,
      newApprovalsJson(approvals),
    ]);
    return rows[0]?.paused === true;
  }

  async get(approvalId: string): Promise<ApprovalRecord | null> {
    const { rows } = await this.db.query<ApprovalDbRow>(`select ${APPROVAL_COLUMNS} from public.agent_approvals where id = $1`, [approvalId]);
    return rows[0] ? toApproval(rows[0]) : null;
  }

  async forTurn(turnId: string): Promise<ApprovalRecord[]> {
    const { rows } = await this.db.query<ApprovalDbRow>(`select ${APPROVAL_COLUMNS} from public.agent_approvals where turn_id = $1 order by seq`, [turnId]);
    return rows.map(toApproval);
  }

  async pendingForSession(sessionId: string): Promise<ApprovalRecord[]> {
    const { rows } = await this.db.query<ApprovalDbRow>(
      `select ${APPROVAL_COLUMNS} from public.agent_approvals where session_id = $1 and status = 'pending' order by seq`,
      [sessionId],
    );
    return rows.map(toApproval);
  }

  async decide({ id, status, reason, edit }: Parameters<ApprovalStore['decide']>[0]): Promise<ApprovalRecord | null> {
    const { rows } = await this.db.query<ApprovalDbRow>(`select ${APPROVAL_COLUMNS} from public.agent_decide_approval($1, $2, $3, $4::jsonb, $5)`, [
      id,
      status,
      reason === null ? null : encodeText(reason),
      edit ? JSON.stringify(encodeDeep(edit.arguments)) : null,
      edit?.argsHash ?? null,
    ]);
    return rows[0] ? toApproval(rows[0]) : null;
  }

  async expire({ turnId, sessionId, limit = 100 }: { turnId?: string; sessionId?: string; limit?: number } = {}): Promise<ApprovalRecord[]> {
    const { rows } = await this.db.query<ApprovalDbRow>(`select ${APPROVAL_COLUMNS} from public.agent_expire_approvals($1, $2, $3::integer)`, [
      turnId ?? null,
      sessionId ?? null,
      limit,
    ]);
    return rows.map(toApproval);
  }

  async nextExpiry(): Promise<string | null> {
    const { rows } = await this.db.query<{ at: string | Date | null }>(`select min(expires_at) as at from public.agent_approvals where status = 'pending'`);
    const at = rows[0]?.at;
    return at ? iso(at) : null;
  }

  async resume(turnId: string, { force = false }: { force?: boolean } = {}): Promise<{ turn: TurnRecord; paused: PausedTurn } | null> {
    const { rows } = await this.db.query<ResumedDbRow>('select * from public.agent_resume_turn($1, $2)', [turnId, force]);
    return rows[0] ? toResumed(rows[0]) : null;
  }

  async stranded({ limit = 100 }: { limit?: number } = {}): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `select t.id from public.agent_turns t where t.status = 'awaiting_approval'
         and not exists (select 1 from public.agent_approvals a where a.turn_id = t.id and a.status = 'pending')
       order by t.claimed_at, t.id limit $1::integer`,
      [limit],
    );
    return rows.map((r) => r.id);
  }
}

class PgliteWorkspace implements WorkspaceStore {
  private db: Queryable;
  private scope: Scope;
  constructor(db: Queryable, scope: Scope) {
    this.db = db;
    this.scope = scope;
  }

  async list() {
    const { rows } = await this.db.query<{ path: string; size: number; updated_at: string | Date }>(
      `select path, size, updated_at from public.workspace_files
       where user_id is not distinct from $1 and session_id = $2 order by path collate "C"`,
      [this.scope.userId, this.scope.sessionId],
    );
    return rows.map((r) => ({ path: decodeText(r.path), size: r.size, updatedAt: iso(r.updated_at) }));
  }

  async read(path: string): Promise<WorkspaceFile | null> {
    const { rows } = await this.db.query<{ path: string; content: string; encoding: WorkspaceFile['encoding']; updated_at: string | Date }>(
      `select path, content, encoding, updated_at from public.workspace_files
       where user_id is not distinct from $1 and session_id = $2 and path = $3`,
      [this.scope.userId, this.scope.sessionId, encodeText(path)],
    );
    const r = rows[0];
    return r ? { path: decodeText(r.path), content: decodeText(r.content), encoding: r.encoding, updatedAt: iso(r.updated_at) } : null;
  }

  async write(path: string, content: string, encoding: WorkspaceFile['encoding'] = 'utf-8') {
    await this.db.query(
      `insert into public.workspace_files (user_id, session_id, path, content, encoding) values ($1, $2, $3, $4, $5)
       on conflict (user_id, session_id, path) do update
       set content = excluded.content, encoding = excluded.encoding, updated_at = now()`,
      [this.scope.userId, this.scope.sessionId, encodeText(path), encodeText(content), encoding],
    );
  }

  async delete(path: string) {
    const { rows } = await this.db.query(
      `delete from public.workspace_files
       where user_id is not distinct from $1 and session_id = $2 and path = $3 returning id`,
      [this.scope.userId, this.scope.sessionId, encodeText(path)],
    );
    return rows.length > 0;
  }
}

class PgliteMemories implements MemoryStore {
  private db: Queryable;
  private scope: Scope;
  constructor(db: Queryable, scope: Scope) {
    this.db = db;
    this.scope = scope;
  }

  async save(memoryType: string, content: string): Promise<Memory> {
    const { rows } = await this.db.query<MemoryDbRow>(
      `insert into public.agent_memories (user_id, session_id, memory_type, content) values ($1, $2, $3, $4)
       returning id, memory_type, content, created_at`,
      [this.scope.userId, this.scope.sessionId, encodeText(memoryType), encodeText(content)],
    );
    return toMemory(rows[0]!);
  }

  async recall(query?: string, memoryType?: string, limit = 10): Promise<Memory[]> {
    const { rows } = await this.db.query<MemoryDbRow>(
      `select id, memory_type, content, created_at from public.agent_memories
       where user_id is not distinct from $1
         and ($2::text is null or memory_type = $2)
         and ($3::text is null or strpos(lower(content), lower($3)) > 0)
       order by seq desc limit $4`,
      [this.scope.userId, memoryType === undefined ? null : encodeText(memoryType), query ? encodeText(query) : null, limit],
    );
    return rows.map(toMemory);
  }
}

/** The gateway's limits through agent_gateway_meter (migration 20261127000300), shared with the Supabase store. */
class PgliteMeters implements MeterStore {
  private db: Queryable;
  constructor(db: Queryable) {
    this.db = db;
  }

  async add({ subject, kind, add, limit }: MeterAdd): Promise<MeterReading> {
    const { rows } = await this.db.query<MeterDbRow>('select * from public.agent_gateway_meter($1, $2, $3, $4)', [encodeText(subject), kind, add, limit]);
    return toMeterReading(rows[0], 'agent_gateway_meter');
  }
}

export function createPgliteStorage(db: PgliteLike, options: PgliteStorageOptions = {}): Storage {
  return {
    sessions: new PgliteSessions(db, options.seed ?? {}),
    approvals: new PgliteApprovals(db),
    turnEvents: new PgliteTurnEvents(db),
    meters: new PgliteMeters(db),
    workspace: (scope) => new PgliteWorkspace(db, scope),
    memory: (scope) => new PgliteMemories(db, scope),
  };
}

/**
 * PostgreSQL's page cache inside PGlite, which lives in the server's own memory (its WASM heap, which
 * grows and never shrinks): 16 MB rather than PostgreSQL's 128 MB. One local user's tables are read
 * through the OS's file cache anyway; the smaller cache lowers `npm start`'s idle RSS by about 100 MB and
 * what a long turn's writes add to it (docs/benchmarks.md § A turn's memory against its text).
 */
export const SHARED_BUFFERS = '16MB';

/**
 * Opens (creating when absent) the PGlite database in `dataDir` — a folder on Node, `idb://name` in a
 * browser, undefined for in-memory — and applies the migrations it has not seen yet.
 */
export async function openPglite(dataDir: string | undefined, migrations: SqlFile[]): Promise<PGlite> {
  const db = await PGlite.create(dataDir, { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`] });
  await applyMigrations(db, migrations, { bootstrap: true });
  return db;
}
