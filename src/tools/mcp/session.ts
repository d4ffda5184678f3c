// What the MCP tool source needs from a connection to one server, as an interface: the real one is
// sdk.ts (the official SDK client, loaded only when a server is configured); tests may hand in another.
import type { McpServerConfig } from '../../config.ts';
import type { JSONSchema, ToolAnnotations } from 'rebound-gate';
import type { CallResultLike } from './result.ts';

/** A tool as a server lists it (the parts Rebound reads). */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: JSONSchema;
  /** The shape of its structuredContent, when it declares one (checked by source.ts, docs/tools.md § MCP tools). */
  outputSchema?: JSONSchema;
  /** 'required': callable only as an MCP task, which this client does not do. */
  taskSupport?: string;
  /** The server's hints; absent ones take MCP's defaults (a tool without any is destructive). */
  annotations?: ToolAnnotations;
}

/** A server's tool list and, from a 2026-07-28 server, how long it may be reused (ttlMs) and by whom (cacheScope). */
export interface McpToolList {
  tools: McpToolInfo[];
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

/**
 * What a server speaks, kept per isolate so that the next connection skips the probe (the SDK's
 * ConnectOptions.prior): 'modern' with its server/discover result (2026-07-28 and later, no round trip
 * to connect), or 'legacy' (the 2025 initialize handshake, without probing first).
 */
export type McpVerdict = { kind: 'modern'; discover: unknown } | { kind: 'legacy' };

/**
 * A tool call's answer: its result, or (2026-07-28) the server asking for input first: MCP's
 * multi-round-trip `input_required`, which the caller answers by calling again with `inputResponses`
 * and `requestState` echoed exactly.
 */
export type McpCallAnswer =
  | { kind: 'result'; result: CallResultLike }
  | { kind: 'input_required'; inputRequests: Record<string, unknown>; requestState?: string };

/** The answers to an `input_required`, sent with the call again. */
export interface McpInputResponses {
  inputResponses: Record<string, unknown>;
  requestState?: string;
}

export interface McpSession {
  /** The protocol revision this connection speaks (e.g. 2026-07-28, 2025-11-25). */
  readonly protocolVersion: string | undefined;
  /** What to connect with next time (undefined: probe again). */
  readonly verdict: McpVerdict | undefined;
  /** Every page of tools/list. */
  listTools(options: { signal: AbortSignal; timeoutMs: number }): Promise<McpToolList>;
  /**
   * `trace`: the call's trace context (traceparent, tracestate), sent as HTTP headers and in params._meta.
   * `tool`: the listed tool (the SDK mirrors its x-mcp-header parameters into headers on 2026-07-28).
   * `input`: the answers to the server's `input_required`, when this is the call again.
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number; trace?: Record<string, string>; tool?: McpToolInfo; input?: McpInputResponses },
  ): Promise<McpCallAnswer>;
  /** Ends the session on the server (DELETE, 2025 servers only) and closes the connection; never throws. */
  close(): Promise<void>;
}

export interface SessionOptions {
  /** Aborts the handshake. */
  signal: AbortSignal;
  timeoutMs: number;
  /** What the server was found to speak before: no probe (a 2026-07-28 server: no round trip at all). */
  prior?: McpVerdict;
  /** The server said its tool list changed (notifications/tools/list_changed): its new list, or the error fetching it. */
  onToolsChanged(tools: McpToolInfo[] | null): void;
}

export type OpenSession = (server: McpServerConfig, options: SessionOptions) => Promise<McpSession>;

/**
 * An error the server answered with (a JSON-RPC error: the SDK's ProtocolError), as opposed to one of the
 * connection (a refused fetch, an HTTP error, a lost session) or of the client itself (the SDK's SdkError:
 * a timeout, a closed connection).
 */
export function isProtocolError(err: unknown): boolean {
  return err instanceof Error && err.name === 'ProtocolError';
}
