// One row per tool call and one per turn outcome: what the activity writer carries to its sink.
// Field names are the agent_activity / agent_turns column names, so sinks insert rows as they are.
import type { Category, Repair, VerdictKind } from 'rebound-gate';
import type { ActivitySource, ApprovalState, Elicitation, GatewayProtocol, TurnOutcome } from '../vocabulary.ts';

export interface ActivityRow {
  id: string;
  turn_id: string;
  session_id: string;
  user_id: string | null;
  iteration: number;
  model: string;
  call_id: string;
  /** The tool name as the model wrote it. */
  tool_requested: string;
  /** The tool that ran (after a name repair), or null when blocked before resolution. */
  tool_resolved: string | null;
  verdict: VerdictKind;
  category: Category;
  problems: string[];
  repairs: Repair[];
  suggestions: string[];
  /** Parameter names the model invented: feature requests. */
  invented_params: string[];
  /** The raw arguments, cut to a bounded length. */
  arguments: string;
  error: string | null;
  duration_ms: number;
  created_at: string;
  /** 'loop': Rebound's own agent loop; 'gateway': an app behind the gateway (POST /v1/chat/completions, /v1/messages, /v1/responses). */
  source: ActivitySource;
  /** A gateway call's protocol (chat, messages, responses); null or absent on the loop's rows. */
  protocol?: GatewayProtocol | null;
  /**
   * The MCP server (its MCP_SERVERS name) of the tool called, also for a blocked call to a name with that
   * server's `<server>__` prefix; null or absent for the app's own tools (functions/).
   */
  tool_server?: string | null;
  /**
   * This call's share of the cost of the model call that proposed it, and whether that model call was
   * wasted (src/calls/wasted.ts has the formula). Absent: 0 and false (rows written before they existed).
   */
  prompt_tokens?: number;
  completion_tokens?: number;
  model_ms?: number;
  wasted?: boolean;
  /**
   * For a call that needed a person's approval (docs/approval.md § What is stored): requested (never answered: the turn
   * ended while it waited), approved, denied or expired. Its own column, not a category: a denial is
   * not a hallucination. Null or absent for the other calls.
   */
  approval?: ApprovalState | null;
  /** The MCP revision the call's server spoke (2026-07-28, 2025-11-25, …); null for the app's own tools. */
  mcp_protocol?: string | null;
  /** The call's MCP server asked the person first (docs/approval.md § A server's question): what came of it. */
  elicitation?: Elicitation | null;
}

export interface TurnRow {
  id: string;
  session_id: string;
  user_id: string | null;
  model: string;
  outcome: TurnOutcome;
  iterations: number;
  tool_calls: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  duration_ms: number;
  started_at: string;
  finished_at: string;
  /** The turn's wasted model calls (src/calls/wasted.ts): how many, their tokens and their ms. */
  wasted_calls?: number;
  wasted_prompt_tokens?: number;
  wasted_completion_tokens?: number;
  wasted_ms?: number;
}

/**
 * Where rows end up. A sink throws when a batch could not be written: a RowsRefusedError when the
 * database refused the rows themselves (the writer then isolates the rows at fault and writes the
 * rest), anything else when it could not be reached (the writer retries the batch).
 */
export interface ActivitySink {
  readonly name: string;
  writeActivity(rows: ActivityRow[]): Promise<void>;
  writeTurns(rows: TurnRow[]): Promise<void>;
}

/** What the loop talks to. `record*` never blocks and never throws; `flush` resolves when all handed rows are written or reported lost. */
export interface ActivityWriter {
  recordCall(row: ActivityRow): void;
  recordTurn(row: TurnRow): void;
  flush(): Promise<FlushReport>;
}

export interface FlushReport {
  written: number;
  /** Rows given up on (after the retries, or refused by the database), with the last error: counted and logged, never silent. */
  dropped: number;
  lastError?: string;
  /** Present when the database refused rows: each one by id, with its error (counted in `dropped`; at most 100 listed). */
  refused?: RefusedRow[];
}

/** A row the database refused on its own, after the writer split its batch to find it. */
export interface RefusedRow {
  kind: 'call' | 'turn';
  id: string;
  error: string;
}

/**
 * Thrown by a sink when the database refused the rows themselves (a value out of range, a broken
 * constraint, one id twice in a statement) rather than for want of a connection: retrying the same
 * batch cannot help, a smaller one can. `code` is the SQLSTATE.
 */
export class RowsRefusedError extends Error {
  readonly code: string;
  constructor(message: string, options: { code: string; cause?: unknown }) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'RowsRefusedError';
    this.code = options.code;
  }
}
