// The only module that imports the MCP SDK. Streamable HTTP only: it is plain fetch and web streams, so
// the same client runs on Node, workerd and Deno. Loaded with import() on the first connection
// (source.ts), so an app without MCP_SERVERS never evaluates it; in the Worker it is a module of its own
// (sdk.js, split out by scripts/build-worker.ts), outside the script workerd evaluates at startup. There,
// ajv (the SDK's default output-schema validator, which compiles with `new Function`) is aliased to
// ./no-ajv.ts (the gate's checker, validator.ts, is used instead) and the SDK's OAuth client, which a
// transport without an authProvider never calls, to ./no-oauth.ts.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { delay } from '../../delay.ts';
import type { JSONSchema, ToolAnnotations } from 'rebound-gate';
import type { McpSession, McpToolInfo, OpenSession } from './session.ts';
import { gateSchemaValidator } from './validator.ts';

const CLIENT_INFO = { name: 'rebound', version: '0.1.0' };
/** Pages of tools/list read at most: a server that keeps sending cursors is not followed forever. */
const MAX_PAGES = 20;
const CLOSE_TIMEOUT_MS = 2_000;

export const openSession: OpenSession = async (server, { signal, timeoutMs, onToolsChanged }) => {
  const client = new Client(CLIENT_INFO, {
    jsonSchemaValidator: gateSchemaValidator,
    listChanged: {
      // No debounce: the refresh must run while the turn's session is still open.
      tools: {
        autoRefresh: true,
        debounceMs: 0,
        onChanged: (error: Error | null, tools: ListedTool[] | null) => onToolsChanged(error || !tools ? null : tools.map(toolInfo)),
      },
    },
  });
  // The trace context of the call in flight goes out as HTTP headers too (a turn's calls to a server are
  // sequential, so one slot is enough); the MCP conventions' own channel is params._meta (callTool).
  let trace: Record<string, string> | undefined;
  const traced: typeof fetch = (input, init) => {
    if (!trace) return fetch(input, init);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(trace)) headers.set(k, v);
    return fetch(input, { ...init, headers });
  };
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers }, fetch: traced });
  try {
    await client.connect(transport, { signal, timeout: timeoutMs });
  } catch (err) {
    await client.close().catch(() => {});
    throw err;
  }
  const session: McpSession = {
    async listTools(options) {
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await client.listTools(cursor ? { cursor } : undefined, { signal: options.signal, timeout: options.timeoutMs });
        tools.push(...result.tools.map(toolInfo));
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return tools;
    },
    async callTool(name, args, options) {
      // The caller's signal carries TOOL_TIMEOUT_MS and the turn's abort; the SDK's own timeout only backs it up.
      trace = options.trace;
      try {
        const params = { name, arguments: args, ...(options.trace ? { _meta: { ...options.trace } } : {}) };
        return await client.callTool(params, undefined, { signal: options.signal, timeout: options.timeoutMs + 1_000 });
      } finally {
        trace = undefined;
      }
    },
    async close() {
      const closed = new AbortController();
      await Promise.race([transport.terminateSession().catch(() => {}), delay(CLOSE_TIMEOUT_MS, { signal: closed.signal })]);
      closed.abort(); // the wait, when the session ended first
      await client.close().catch(() => {});
    },
  };
  return session;
};

/** A tool as the SDK lists it, the parts read (spelt out: Deno's check does not infer the SDK's callback types). */
type ListedTool = { name: string; description?: string; inputSchema: object; execution?: { taskSupport?: string }; annotations?: object };

function toolInfo(tool: ListedTool): McpToolInfo {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as JSONSchema,
    taskSupport: tool.execution?.taskSupport,
    annotations: hints(tool.annotations),
  };
}

/** The four boolean hints (and the title) as the server sent them; anything else is dropped. */
function hints(raw: object | undefined): ToolAnnotations {
  const out: ToolAnnotations = {};
  if (!raw) return out;
  const a = raw as Record<string, unknown>;
  if (typeof a.title === 'string') out.title = a.title.slice(0, 200);
  for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) if (typeof a[k] === 'boolean') out[k] = a[k];
  return out;
}
