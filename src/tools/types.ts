// A tool the model can call: a JSON Schema for the gate, which parameters are paths or code, and a
// handler. Tools in functions/ are authored with zod through `defineTool`; tools from elsewhere can
// implement this interface directly with a JSON Schema.
import type { ToolSpec } from 'rebound-gate';
import type { MemoryStore, Scope, WorkspaceStore } from '../store/types.ts';

export interface ToolContext {
  scope: Scope;
  workspace: WorkspaceStore;
  memory: MemoryStore;
  /**
   * Aborted when the turn ends early (POST /v1/turns/:id/stop, the time budget; a reader leaving only
   * with ON_DISCONNECT=abort) or the tool times out.
   */
  signal: AbortSignal;
  /** The trace context of the call's span (traceparent), for a tool that makes a request: an MCP server gets it. */
  traceHeaders?: Record<string, string>;
}

export interface Tool extends ToolSpec {
  /** Where the tool lives when it is not one of this app's own (functions/): an MCP server and its name there. */
  origin?: ToolOrigin;
  /** Receives arguments the gate has already validated (and repaired) against `parameters`. */
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

export interface ToolOrigin {
  /** The MCP server's configured name (MCP_SERVERS). */
  server: string;
  /** The tool's name on that server, which may differ from `name` (src/tools/mcp/names.ts). */
  tool: string;
}
