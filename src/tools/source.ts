// Tools that are not compiled in: a ToolSource is asked for its tools at the start of each turn (and by
// GET /v1/tools), so that the loop still receives a plain `Tool[]` and needs to know nothing about where
// a tool lives. A source never throws: what it cannot reach is left out and reported in `sources`.
import type { Tool } from './types.ts';

export interface ToolSource {
  open(options: { signal: AbortSignal }): Promise<ToolSet>;
}

/** One turn's tools from a source. `close()` ends whatever the turn opened (connections, sessions). */
export interface ToolSet {
  tools: Tool[];
  /** Each place the tools come from, reachable or not, for a deployer checking the configuration. */
  sources: ToolSourceStatus[];
  /** The source a tool name belongs to (also a name that does not exist but carries a server's prefix), or null. */
  serverOf(toolName: string): string | null;
  close(): Promise<void>;
}

export type ToolSourceStatus =
  | {
      server: string;
      url: string;
      ok: true;
      tools: number;
      cached: boolean;
      /** The MCP revision the server spoke when it was listed (2026-07-28, 2025-11-25, …). */
      protocolVersion?: string;
      notOffered?: string[];
      /** Tools left out because the gate cannot read their input schema (past the schema limits of docs/configuration.md § Limits). */
      unreadable?: Array<{ tool: string; reason: string }>;
    }
  /** `retryAt`: when the server, remembered as down, is asked again (MCP_LIST_TIMEOUT_MS in docs/configuration.md). */
  | { server: string; url: string; ok: false; error: string; retryAt?: string };
