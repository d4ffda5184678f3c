// Storage on Supabase: PostgREST through postgrest-js (data-client.ts) with the service role (RLS is
// bypassed, so every query that can be scoped filters by the user id taken from the verified JWT).
// Same semantics as memory.ts.
import type { DataClient } from './data-client.ts';
import { INTERRUPTED_NOTE } from './interrupted.ts';
import {
  iso,
  messageRow,
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
  joinMessageParts,
  type MessagePartRow,
  type TurnDbRow,
  type TurnEventDbRow,
} from './db-rows.ts';
import { afterSeqArg, type TurnEventRow, type TurnEventStore } from './turn-events.ts';
import { decodeText, encodeDeep, encodeText } from './text-codec.ts';
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

export interface SupabaseStorageOptions {
  /** Files every new session's workspace starts with (the demo project). */
  seed?: Record<string, string>;
}

const TURN_COLUMNS = 'id, session_id, user_id, message, status, created_at';
/** PostgREST on Supabase caps a response at 1000 rows by default; history and turn events page through it. */
const PAGE = 1000;

function check<T>(result: { data: T; error: { message: string } | null }, what: string): T {
  if (result.error) throw new Error(`${what}: ${result.error.message}`, { cause: result.error });
  return result.data;
}

function rowsOf<T>(result: { data: T[] | null; error: { message: string } | null }, what: string): T[] {
  return check(result, what) ?? [];
}

function one<T>(result: { data: unknown; error: { message: string } | null }, what: string): T {
  const row = check(result, what);
  if (row === null || row === undefined) throw new Error(`${what}: no row returned`);
  return row as T;
}

// PostgREST filters: `eq.null` would compare with the string "null"; null needs `is`. Typed loosely on
// purpose: postgrest-js's builder generics recurse too deep for a helper generic over them.
// biome-ignore lint/suspicious/noExplicitAny: typed loosely on purpose, as said above
type Filterable = any;
function byUser(q: Filterable, userId: string | null): Filterable {
  return userId === null ? q.is('user_id', null) : q.eq('user_id', userId);
}

class SupabaseSessions implements SessionStore {
  private db: DataClient;
  private seed: Record<string, string>;
  constructor(db: DataClient, seed: Record<string, string>) {
    this.db = db;
    this.seed = seed;
  }

  async ensureSession(userId: string | null, sessionId?: string): Promise<string> {
    const id = sessionId ?? crypto.randomUUID();
    const inserted = rowsOf(
      await this.db.from('agent_sessions').upsert({ id, user_id: userId }, { onConflict: 'id', ignoreDuplicates: true }).select('id'),
      'agent_sessions insert',
    );
    if (inserted.length === 0) {
      const row = check(await this.db.from('agent_sessions').select('user_id').eq('id', id).maybeSingle(), 'agent_sessions read');
      if (!row || row.user_id !== userId) throw new SessionForbiddenError(id);
      return id;
    }
    const files = Object.entries(this.seed);
    if (files.length > 0) {
      check(
        await this.db.from('workspace_files').upsert(
          files.map(([path, content]) => ({ user_id: userId, session_id: id, path: encodeText(path), content: encodeText(content) })),
          {
            onConflict: 'user_id,session_id,path',
            ignoreDuplicates: true,
          },
        ),
        'workspace seed',
      );
    }
    return id;
  }

  async getSession(sessionId: string): Promise<SessionRecord | null> {
    const row = check(await this.db.from('agent_sessions').select('user_id').eq('id', sessionId).maybeSingle(), 'agent_sessions read');
    return row ? { id: sessionId, userId: row.user_id } : null;
  }

  async createTurn(turn: Omit<TurnRecord, 'status' | 'createdAt'>): Promise<TurnRecord> {
    const row = one<TurnDbRow>(
      await this.db
        .from('agent_turns')
        .insert({ id: turn.id, session_id: turn.sessionId, user_id: turn.userId, message: encodeText(turn.message) })
        .select(TURN_COLUMNS)
        .single(),
      'agent_turns insert',
    );
    return toTurn(row);
  }

  async getTurn(turnId: string): Promise<TurnRecord | null> {
    const row = check(await this.db.from('agent_turns').select(TURN_COLUMNS).eq('id', turnId).maybeSingle(), 'agent_turns read');
    return row ? toTurn(row as TurnDbRow) : null;
  }

  async claimTurn(turnId: string): Promise<TurnRecord | null> {
    // PATCH … WHERE status = 'pending' RETURNING: one UPDATE statement, so only one claimer gets the row.
    const row = check(
      await this.db
        .from('agent_turns')
        .update({ status: 'running', claimed_at: new Date().toISOString() })
        .eq('id', turnId)
        .eq('status', 'pending')
        .select(TURN_COLUMNS)
        .maybeSingle(),
      'agent_turns claim',
    );
    return row ? toTurn(row as TurnDbRow) : null;
  }

  async finishTurn(turnId: string): Promise<void> {
    check(await this.db.from('agent_turns').update({ status: 'finished' }).eq('id', turnId), 'agent_turns finish');
  }

  async requestStop(turnId: string): Promise<boolean> {
    // PATCH … WHERE status = 'running' RETURNING: one statement, so a turn finishing meanwhile is not marked.
    const rows = rowsOf(
      await this.db.from('agent_turns').update({ stop_requested_at: new Date().toISOString() }).eq('id', turnId).eq('status', 'running').select('id'),
      'agent_turns stop',
    );
    return rows.length > 0;
  }

  async stopRequested(turnId: string): Promise<boolean> {
    const row = check(await this.db.from('agent_turns').select('stop_requested_at').eq('id', turnId).maybeSingle(), 'agent_turns read');
    return (row as { stop_requested_at: string | null } | null)?.stop_requested_at != null;
  }

  async runningTurn(sessionId: string): Promise<TurnRecord | null> {
    const rows = rowsOf(
      await this.db
        .from('agent_turns')
        .select(TURN_COLUMNS)
        .eq('session_id', sessionId)
        .in('status', ['running', 'awaiting_approval'])
        .order('claimed_at', { ascending: false, nullsFirst: false })
        .order('created_at', { ascending: false })
        .limit(1),
      'agent_turns read',
    ) as TurnDbRow[];
    return rows[0] ? toTurn(rows[0]) : null;
  }

  async closeInterrupted({ claimedBefore, sessionId, limit = 100 }: CloseInterruptedOptions): Promise<TurnRecord[]> {
    // agent_close_interrupted (migration 20261123000200): one statement, shared with the PGlite store.
    const rows = rowsOf(
      await this.db.rpc('agent_close_interrupted', { p_before: claimedBefore, p_note: INTERRUPTED_NOTE, p_session: sessionId ?? null, p_limit: limit }),
      'agent_close_interrupted',
    ) as TurnDbRow[];
    return rows.map(toTurn);
  }

  async history(sessionId: string): Promise<ChatMessage[]> {
    // A message's continued rows (written by the PGlite store, migration 20261127000800) may span pages.
    const out: MessagePartRow[] = [];
    for (let from = 0; ; from += PAGE) {
      const rows = rowsOf(
        await this.db
          .from('agent_messages')
          .select('role, content, tool_calls, tool_call_id, continued')
          .eq('session_id', sessionId)
          .order('id')
          .range(from, from + PAGE - 1),
        'agent_messages read',
      ) as MessagePartRow[];
      out.push(...rows);
      if (rows.length < PAGE) return joinMessageParts(out).map(rowMessage);
    }
  }

  async appendMessages(sessionId: string, turnId: string, messages: ChatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // One bulk insert: PostgREST inserts the array in order, so identity values follow the conversation.
    check(
      await this.db.from('agent_messages').insert(messages.map((m) => ({ session_id: sessionId, turn_id: turnId, ...messageRow(m) }))),
      'agent_messages insert',
    );
  }
}

class SupabaseTurnEvents implements TurnEventStore {
  private db: DataClient;
  constructor(db: DataClient) {
    this.db = db;
  }

  async appendEvents(rows: TurnEventRow[]): Promise<void> {
    if (rows.length === 0) return;
    // ignoreDuplicates: on conflict do nothing, so a retried write that did land changes nothing.
    check(
      await this.db.from('agent_turn_events').upsert(rows.map(turnEventDbRow), { onConflict: 'turn_id,seq', ignoreDuplicates: true }),
      'agent_turn_events insert',
    );
  }

  async eventsAfter(turnId: string, afterSeq: number, options: { limit?: number } = {}): Promise<TurnEventRow[]> {
    const after = afterSeqArg(afterSeq);
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const out: TurnEventRow[] = [];
    // Keyset pages (seq > the last one read): rows are only ever appended after the last, so none is
    // skipped or read twice while the turn writes on.
    for (let cursor = 0; ; ) {
      const rows = rowsOf(
        await this.db
          .from('agent_turn_events')
          .select('turn_id, seq, last_seq, event, data')
          .eq('turn_id', turnId)
          .gt('last_seq', after)
          .gt('seq', cursor)
          .order('seq')
          .limit(Math.min(PAGE, limit - out.length)),
        'agent_turn_events read',
      ) as TurnEventDbRow[];
      out.push(...rows.map(toTurnEventRow));
      if (rows.length < PAGE || out.length >= limit) return out;
      cursor = rows.at(-1)!.seq;
    }
  }
}

const APPROVAL_COLUMNS = 'id, turn_id, session_id, user_id, tool_call_id, tool_name, arguments, args_hash, status, reason, created_at, expires_at, decided_at';

/** Every change through the SQL functions of migration 20261125000600 (PostgREST rpc), shared with the PGlite store. */
class SupabaseApprovals implements ApprovalStore {
  private db: DataClient;
  constructor(db: DataClient) {
    this.db = db;
  }

  async pause({ turnId, paused, approvals }: { turnId: string; paused: PausedTurn; approvals: NewApproval[] }): Promise<boolean> {
    const result = await this.db.rpc('agent_pause_turn', {
      p_turn: turnId,
      p_state: encodeDeep(paused.state),
      p_seq: paused.lastSeq,
      p_approvals: JSON.parse(newApprovalsJson(approvals)),
    });
    return check(result, 'agent_pause_turn') === true;
  }

  async get(approvalId: string): Promise<ApprovalRecord | null> {
    const row = check(await this.db.from('agent_approvals').select(APPROVAL_COLUMNS).eq('id', approvalId).maybeSingle(), 'agent_approvals read');
    return row ? toApproval(row as ApprovalDbRow) : null;
  }

  async forTurn(turnId: string): Promise<ApprovalRecord[]> {
    const rows = rowsOf(
      await this.db.from('agent_approvals').select(APPROVAL_COLUMNS).eq('turn_id', turnId).order('seq'),
      'agent_approvals read',
    ) as ApprovalDbRow[];
    return rows.map(toApproval);
  }

  async pendingForSession(sessionId: string): Promise<ApprovalRecord[]> {
    const rows = rowsOf(
      await this.db.from('agent_approvals').select(APPROVAL_COLUMNS).eq('session_id', sessionId).eq('status', 'pending').order('seq'),
      'agent_approvals read',
    ) as ApprovalDbRow[];
    return rows.map(toApproval);
  }

  async decide({ id, status, reason, edit }: Parameters<ApprovalStore['decide']>[0]): Promise<ApprovalRecord | null> {
    const rows = rowsOf(
      await this.db.rpc('agent_decide_approval', {
        p_id: id,
        p_status: status,
        p_reason: reason === null ? null : encodeText(reason),
        p_arguments: edit ? encodeDeep(edit.arguments) : null,
        p_hash: edit?.argsHash ?? null,
      }),
      'agent_decide_approval',
    ) as ApprovalDbRow[];
    return rows[0] ? toApproval(rows[0]) : null;
  }

  async expire({ turnId, sessionId, limit = 100 }: { turnId?: string; sessionId?: string; limit?: number } = {}): Promise<ApprovalRecord[]> {
    const rows = rowsOf(
      await this.db.rpc('agent_expire_approvals', { p_turn: turnId ?? null, p_session: sessionId ?? null, p_limit: limit }),
      'agent_expire_approvals',
    ) as ApprovalDbRow[];
    return rows.map(toApproval);
  }

  async nextExpiry(): Promise<string | null> {
    const rows = rowsOf(
      await this.db.from('agent_approvals').select('expires_at').eq('status', 'pending').order('expires_at').limit(1),
      'agent_approvals read',
    ) as Array<{ expires_at: string }>;
    return rows[0] ? iso(rows[0].expires_at) : null;
  }

  async resume(turnId: string, { force = false }: { force?: boolean } = {}): Promise<{ turn: TurnRecord; paused: PausedTurn } | null> {
    const rows = rowsOf(await this.db.rpc('agent_resume_turn', { p_turn: turnId, p_force: force }), 'agent_resume_turn') as ResumedDbRow[];
    return rows[0] ? toResumed(rows[0]) : null;
  }
  async stranded({ limit = 100 }: { limit?: number } = {}): Promise<string[]> {
    // PostgREST's anti-join: the embedded rows filtered to the pending ones, and the turn kept only when none is left.
    const rows = rowsOf(
      await this.db
        .from('agent_turns')
        .select('id, agent_approvals(id)')
        .eq('status', 'awaiting_approval')
        .eq('agent_approvals.status', 'pending')
        .is('agent_approvals', null)
        .order('claimed_at')
        .order('id')
        .limit(limit),
      'agent_turns read',
    ) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }
}

class SupabaseWorkspace implements WorkspaceStore {
  private db: DataClient;
  private scope: Scope;
  constructor(db: DataClient, scope: Scope) {
    this.db = db;
    this.scope = scope;
  }

  private files(columns: string) {
    return byUser(this.db.from('workspace_files').select(columns), this.scope.userId).eq('session_id', this.scope.sessionId);
  }

  async list() {
    const rows = check(await this.files('path, size, updated_at').order('path'), 'workspace list') as unknown as Array<{
      path: string;
      size: number;
      updated_at: string;
    }>;
    return rows.map((r) => ({ path: decodeText(r.path), size: r.size, updatedAt: iso(r.updated_at) }));
  }

  async read(path: string): Promise<WorkspaceFile | null> {
    const row = check(await this.files('path, content, encoding, updated_at').eq('path', encodeText(path)).maybeSingle(), 'workspace read') as unknown as {
      path: string;
      content: string;
      encoding: WorkspaceFile['encoding'];
      updated_at: string;
    } | null;
    return row ? { path: decodeText(row.path), content: decodeText(row.content), encoding: row.encoding, updatedAt: iso(row.updated_at) } : null;
  }

  async write(path: string, content: string, encoding: WorkspaceFile['encoding'] = 'utf-8') {
    check(
      await this.db.from('workspace_files').upsert(
        {
          user_id: this.scope.userId,
          session_id: this.scope.sessionId,
          path: encodeText(path),
          content: encodeText(content),
          encoding,
          updated_at: new Date().toISOString(),
        },
        { onConflict: 'user_id,session_id,path' },
      ),
      'workspace write',
    );
  }

  async delete(path: string) {
    const rows = rowsOf(
      await byUser(this.db.from('workspace_files').delete(), this.scope.userId)
        .eq('session_id', this.scope.sessionId)
        .eq('path', encodeText(path))
        .select('id'),
      'workspace delete',
    );
    return rows.length > 0;
  }
}

class SupabaseMemories implements MemoryStore {
  private db: DataClient;
  private scope: Scope;
  constructor(db: DataClient, scope: Scope) {
    this.db = db;
    this.scope = scope;
  }

  async save(memoryType: string, content: string): Promise<Memory> {
    const row = one<MemoryDbRow>(
      await this.db
        .from('agent_memories')
        .insert({ user_id: this.scope.userId, session_id: this.scope.sessionId, memory_type: encodeText(memoryType), content: encodeText(content) })
        .select('id, memory_type, content, created_at')
        .single(),
      'memory save',
    );
    return toMemory(row);
  }

  async recall(query?: string, memoryType?: string, limit = 10): Promise<Memory[]> {
    let q = byUser(this.db.from('agent_memories').select('id, memory_type, content, created_at'), this.scope.userId);
    if (memoryType) q = q.eq('memory_type', encodeText(memoryType));
    // ilike treats % and _ as wildcards (and PostgREST `*`): escape them so the query is a plain substring.
    if (query) q = q.ilike('content', `%${encodeText(query).replace(/[\\%_*]/g, (c) => `\\${c}`)}%`);
    const rows = rowsOf(await q.order('seq', { ascending: false }).limit(limit), 'memory recall') as MemoryDbRow[];
    return rows.map(toMemory);
  }
}

/** The gateway's limits through agent_gateway_meter (migration 20261127000300), shared with the PGlite store. */
class SupabaseMeters implements MeterStore {
  private db: DataClient;
  constructor(db: DataClient) {
    this.db = db;
  }

  async add({ subject, kind, add, limit }: MeterAdd): Promise<MeterReading> {
    const rows = rowsOf(
      await this.db.rpc('agent_gateway_meter', { p_subject: encodeText(subject), p_kind: kind, p_add: add, p_limit: limit }),
      'agent_gateway_meter',
    ) as MeterDbRow[];
    return toMeterReading(rows[0], 'agent_gateway_meter');
  }
}

/** `client` must hold the service-role key (createServerClient in src/activity/sinks/supabase.ts). */
export function createSupabaseStorage(client: DataClient, options: SupabaseStorageOptions = {}): Storage {
  return {
    sessions: new SupabaseSessions(client, options.seed ?? {}),
    approvals: new SupabaseApprovals(client),
    turnEvents: new SupabaseTurnEvents(client),
    meters: new SupabaseMeters(client),
    workspace: (scope) => new SupabaseWorkspace(client, scope),
    memory: (scope) => new SupabaseMemories(client, scope),
  };
}
