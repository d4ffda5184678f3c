// A tool the model can call: a JSON Schema for the gate, which parameters are paths or code, and a
// handler. Tools in functions/ are authored with zod through `defineTool`; tools from elsewhere can
// implement this interface directly with a JSON Schema.
import type { ToolSpec } from 'rebound-gate';
import type { MemoryStore, Scope, WorkspaceStore } from '../store/types.ts';
import type { InputReply } from './input.ts';

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
  /**
   * The person's answer to the question the tool's server asked (src/tools/input.ts), when this is the
   * call sent again after the turn paused on it: an MCP tool sends it as inputResponses.
   */
  input?: InputReply;
}

/**
 * Whether a call waits for a person's yes before it runs (docs/approval.md § Which calls): always (`true`), never
 * (`false`, absent), or by its arguments (the gate's repaired ones) and who asks. It sits on the tool
 * beside `annotations` (MCP's hints), never inside them: annotations say what a tool does, this is the
 * deployer's policy. An MCP server entry's `needsApproval: true` sets it on each of its tools, and
 * APPROVAL_TOOLS adds tools by name (src/tools/approval.ts: needsApproval combines them).
 */
export type NeedsApproval = boolean | ((args: Record<string, unknown>, ctx: ApprovalContext) => boolean | Promise<boolean>);

/** What a `needsApproval` function is told of the call besides its arguments. */
export interface ApprovalContext {
  scope: Scope;
}

export interface Tool extends ToolSpec {
  /** Where the tool lives when it is not one of this app's own (functions/): an MCP server and its name there. */
  origin?: ToolOrigin;
  /** The call waits for a person's approval (see NeedsApproval); absent: never, unless APPROVAL_TOOLS names the tool. */
  needsApproval?: NeedsApproval;
  /**
   * Receives arguments the gate has already validated (and repaired) against `parameters`. Its result,
   * or an InputRequired (src/tools/input.ts) when it needs the person first: the turn pauses on it.
   */
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

export interface ToolOrigin {
  /** The MCP server's configured name (MCP_SERVERS). */
  server: string;
  /** The tool's name on that server, which may differ from `name` (src/tools/mcp/names.ts). */
  tool: string;
  /** The MCP revision the server spoke when it was listed (2026-07-28, 2025-11-25, …): spans record it. */
  protocolVersion?: string;
}
