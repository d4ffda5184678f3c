// Database rows <-> the store's values (messages, turns, memories, turn events), shared by the PGlite and
// Supabase stores: PGlite returns timestamps as Date, PostgREST as ISO strings, so both are accepted. Text
// goes in through encodeText and comes out through decodeText (text-codec.ts: NUL and lone surrogates).
import { decodeDeep, decodeText, encodeDeep } from './text-codec.ts';
import type { ChatMessage } from '../vocabulary.ts';
import type { ApprovalRecord, Memory, MeterReading, NewApproval, PausedTurn, TurnRecord } from './types.ts';
import type { TurnEventRow } from './turn-events.ts';
import { assertNever } from '../vocabulary.ts';

export const iso = (v: string | Date): string => (v instanceof Date ? v : new Date(v)).toISOString();

export interface TurnDbRow {
  id: string;
  session_id: string;
  user_id: string | null;
  message: string;
  status: TurnRecord['status'];
  created_at: string | Date;
}

export const toTurn = (r: TurnDbRow): TurnRecord => ({
  id: r.id,
  sessionId: r.session_id,
  userId: r.user_id,
  message: decodeText(r.message),
  status: r.status,
  createdAt: iso(r.created_at),
});

export interface MemoryDbRow {
  id: string;
  memory_type: string;
  content: string;
  created_at: string | Date;
}

export const toMemory = (r: MemoryDbRow): Memory => ({
  id: r.id,
  memoryType: decodeText(r.memory_type),
  content: decodeText(r.content),
  createdAt: iso(r.created_at),
});

export interface MessageRow {
  role: ChatMessage['role'];
  content: string | null;
  tool_calls: unknown;
  tool_call_id: string | null;
}

/** The row to insert, its text encoded (content, tool call ids, names and arguments). */
export function messageRow(m: ChatMessage): MessageRow {
  return encodeDeep({
    role: m.role,
    content: m.content,
    tool_calls: m.role === 'assistant' && m.tool_calls ? m.tool_calls : null,
    tool_call_id: m.role === 'tool' ? m.tool_call_id : null,
  });
}

/**
 * A row's content split in parts of at most `max` characters, never between the two halves of a
 * surrogate pair (text that encodeText made storable stays so in each part).
 */
export function contentParts(content: string, max: number): string[] {
  const parts: string[] = [];
  for (let start = 0; start < content.length; ) {
    let end = Math.min(start + max, content.length);
    const last = content.charCodeAt(end - 1);
    if (end < content.length && end - start > 1 && last >= 0xd800 && last <= 0xdbff) end--;
    parts.push(content.slice(start, end));
    start = end;
  }
  return parts;
}

/** A stored message row and whether its text goes on in the session's next row (migration 20261127000800). */
export type MessagePartRow = MessageRow & { continued?: boolean | null };

/** The session's rows (in id order) with each message's continued rows joined into its last one. */
export function joinMessageParts(rows: MessagePartRow[]): MessageRow[] {
  const out: MessageRow[] = [];
  let head: string[] = [];
  for (const { continued, ...row } of rows) {
    if (continued) head.push(row.content ?? '');
    else if (head.length === 0) out.push(row);
    else {
      head.push(row.content ?? '');
      out.push({ ...row, content: head.join('') });
      head = [];
    }
  }
  return out;
}

/** The message a stored row holds, its text decoded: exactly what messageRow was given. */
export function rowMessage(stored: MessageRow): ChatMessage {
  const r = decodeDeep({ ...stored, tool_calls: typeof stored.tool_calls === 'string' ? JSON.parse(stored.tool_calls) : stored.tool_calls });
  switch (r.role) {
    case 'system':
    case 'user':
      return { role: r.role, content: r.content ?? '' };
    case 'tool':
      return { role: 'tool', tool_call_id: r.tool_call_id ?? '', content: r.content ?? '' };
    case 'assistant': {
      const calls = r.tool_calls;
      return Array.isArray(calls) && calls.length > 0
        ? { role: 'assistant', content: r.content, tool_calls: calls }
        : { role: 'assistant', content: r.content };
    }
    default:
      return assertNever(r.role, 'message role');
  }
}

export interface TurnEventDbRow {
  turn_id: string;
  seq: number;
  last_seq: number;
  event: string;
  data: unknown;
}

/** The agent_turn_events row to insert, the text in its data encoded (a text delta may hold anything). */
export const turnEventDbRow = (r: TurnEventRow): TurnEventDbRow => ({
  turn_id: r.turnId,
  seq: r.seq,
  last_seq: r.lastSeq,
  event: r.event,
  data: encodeDeep(r.data),
});

/** The row a stored one holds, its data decoded: exactly what turnEventDbRow was given. */
export const toTurnEventRow = (r: TurnEventDbRow): TurnEventRow => ({
  turnId: r.turn_id,
  seq: r.seq,
  lastSeq: r.last_seq,
  event: r.event as TurnEventRow['event'],
  data: decodeDeep(r.data),
});

export interface ApprovalDbRow {
  id: string;
  turn_id: string;
  session_id: string;
  user_id: string | null;
  tool_call_id: string;
  tool_name: string;
  arguments: unknown;
  args_hash: string;
  status: ApprovalRecord['status'];
  reason: string | null;
  created_at: string | Date;
  expires_at: string | Date;
  decided_at: string | Date | null;
}

/** An agent_approvals row as the store hands it out, its text decoded. */
export const toApproval = (r: ApprovalDbRow): ApprovalRecord => ({
  id: r.id,
  turnId: r.turn_id,
  sessionId: r.session_id,
  userId: r.user_id,
  toolCallId: decodeText(r.tool_call_id),
  toolName: decodeText(r.tool_name),
  arguments: decodeDeep(typeof r.arguments === 'string' ? JSON.parse(r.arguments) : r.arguments) as Record<string, unknown>,
  argsHash: r.args_hash,
  status: r.status,
  reason: r.reason === null ? null : decodeText(r.reason),
  createdAt: iso(r.created_at),
  expiresAt: iso(r.expires_at),
  decidedAt: r.decided_at === null ? null : iso(r.decided_at),
});

/** p_approvals of agent_pause_turn: the new rows, their text encoded. */
export const newApprovalsJson = (approvals: NewApproval[]): string =>
  JSON.stringify(
    approvals.map((a) =>
      encodeDeep({
        id: a.id,
        tool_call_id: a.toolCallId,
        tool_name: a.toolName,
        arguments: a.arguments,
        args_hash: a.argsHash,
        expires_at: a.expiresAt,
      }),
    ),
  );

/** What agent_resume_turn returns: the turn's row with the state it was paused with. */
export interface ResumedDbRow extends TurnDbRow {
  paused_state: unknown;
  paused_seq: number | null;
}

export const toResumed = (r: ResumedDbRow): { turn: TurnRecord; paused: PausedTurn } => ({
  turn: toTurn(r),
  paused: { state: decodeDeep(typeof r.paused_state === 'string' ? JSON.parse(r.paused_state) : r.paused_state), lastSeq: r.paused_seq ?? 0 },
});

/** A row of agent_gateway_meter (bigint amount: a number from PGlite and PostgREST's JSON, a string from other drivers). */
export interface MeterDbRow {
  allowed: boolean;
  amount: number | string;
  retry_after_s: number;
}

export function toMeterReading(row: MeterDbRow | undefined, what: string): MeterReading {
  if (!row) throw new Error(`${what}: no row returned`);
  return { allowed: row.allowed, amount: Number(row.amount), retryAfterS: row.retry_after_s };
}
