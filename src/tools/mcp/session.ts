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
  /** 'required': callable only as an MCP task, which this client does not do. */
  taskSupport?: string;
  /** The server's hints; absent ones take MCP's defaults (a tool without any is destructive). */
  annotations?: ToolAnnotations;
}

export interface McpSession {
  /** Every page of tools/list. */
  listTools(options: { signal: AbortSignal; timeoutMs: number }): Promise<McpToolInfo[]>;
  /** `trace`: the call's trace context (traceparent, tracestate), sent as HTTP headers and in params._meta. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number; trace?: Record<string, string> },
  ): Promise<CallResultLike>;
  /** Ends the session on the server (DELETE) and closes the connection; never throws. */
  close(): Promise<void>;
}

export interface SessionOptions {
  /** Aborts the handshake. */
  signal: AbortSignal;
  timeoutMs: number;
  /** The server said its tool list changed (notifications/tools/list_changed): its new list, or the error fetching it. */
  onToolsChanged(tools: McpToolInfo[] | null): void;
}

export type OpenSession = (server: McpServerConfig, options: SessionOptions) => Promise<McpSession>;

/**
 * An error the server answered with (a JSON-RPC error), as opposed to one of the connection: a refused
 * fetch, an HTTP error, a lost session, or the SDK's own ConnectionClosed (-32000) and RequestTimeout (-32001).
 */
export function isProtocolError(err: unknown): boolean {
  if (!(err instanceof Error) || err.name !== 'McpError') return false;
  const code = (err as { code?: unknown }).code;
  return code !== -32000 && code !== -32001;
}
