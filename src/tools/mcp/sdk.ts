// The only module that imports the MCP client (@modelcontextprotocol/client, the v2 SDK). Streamable
// HTTP only: it is plain fetch and web streams, so the same client runs on Node, workerd and Deno.
// Loaded with import() on the first connection (source.ts), so an app without MCP_SERVERS never
// evaluates it; in the Worker it is a module of its own (split out by scripts/build-worker.ts), outside
// the script workerd evaluates at startup.
//
// Protocol revisions (docs/tools.md § MCP tools): the client probes with server/discover
// (versionNegotiation 'auto') and speaks 2026-07-28 to a server that answers it (no initialize, no
// session: each request carries its version and capabilities in _meta), and the 2025 handshake to one
// that does not. What a server speaks is kept by the caller and handed back as `prior`, so the next
// connection does not probe (to a 2026-07-28 server it costs no round trip at all). Tools are called in
// manual multi-round-trip mode: a server's `input_required` (an elicitation) comes back to the caller
// (source.ts), which puts the question to the person and calls again with the answers.
//
// A listed tool is cut to the depth the gate reads before the SDK walks it (listing-depth.ts): a schema
// nested thousands of levels leaves that tool out (source.ts), not the server's whole list.
//
// Every answer is read through AnswerCap (answer-size.ts): past MAX_MCP_ANSWER_BYTES it is not read on,
// and the handshake, listing or call waiting on it fails with McpAnswerTooLarge.
//
// JSON Schema: the client is given the gate's validator (validator.ts), and calls name the listed tool
// without its outputSchema, so the SDK never compiles a schema: ajv (its Node default, which compiles
// with `new Function`) is never constructed, and the Worker build resolves the client's `workerd`
// export condition, whose default validator is @cfworker/json-schema (an interpreter), never ajv.
import { Client, StreamableHTTPClientTransport, type PriorDiscovery, type Tool } from '@modelcontextprotocol/client';
import { delay } from '../../delay.ts';
import type { JSONSchema, ToolAnnotations } from 'rebound-gate';
import { AnswerCap } from './answer-size.ts';
import { boundListedTools } from './listing-depth.ts';
import type { CallResultLike } from './result.ts';
import type { McpCallAnswer, McpSession, McpToolInfo, McpVerdict, OpenSession } from './session.ts';
import { gateSchemaValidator } from './validator.ts';

const CLIENT_INFO = { name: 'rebound', version: '0.1.0' };
/** Pages of tools/list read at most: a server that keeps sending cursors is not followed forever. */
const MAX_PAGES = 20;
const CLOSE_TIMEOUT_MS = 2_000;

export const openSession: OpenSession = async (server, { signal, timeoutMs, prior, onToolsChanged }) => {
  const client = new Client(CLIENT_INFO, {
    // A form-mode elicitation is answered by the person (the turn pauses: docs/approval.md § A server's question).
    capabilities: { elicitation: { form: {} } },
    jsonSchemaValidator: gateSchemaValidator,
    versionNegotiation: { mode: 'auto' },
    inputRequired: { autoFulfill: false },
    listMaxPages: MAX_PAGES,
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
  const answers = new AnswerCap();
  const traced: typeof fetch = async (input, init) => {
    const answered = init?.method?.toUpperCase() === 'POST';
    if (!trace) return answers.bound(await fetch(input, init), answered);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(trace)) headers.set(k, v);
    return answers.bound(await fetch(input, { ...init, headers }), answered);
  };
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers }, fetch: traced });
  // Set before connect: the SDK calls it with each message before its own handling, which would recurse
  // into a schema nested thousands of levels (listing-depth.ts).
  transport.onmessage = boundListedTools;
  try {
    await answers.run(signal, (s) => client.connect(transport, { signal: s, timeout: timeoutMs, ...(prior ? { prior: prior as PriorDiscovery } : {}) }));
  } catch (err) {
    await client.close().catch(() => {});
    throw err;
  }
  const era = client.getProtocolEra();
  const discover = client.getDiscoverResult();
  const verdict: McpVerdict | undefined = era === 'modern' && discover ? { kind: 'modern', discover } : era === 'legacy' ? { kind: 'legacy' } : undefined;
  const session: McpSession = {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    verdict,
    async listTools(options) {
      // 'bypass': the list is kept by source.ts (per isolate, by its ttlMs), not by this turn's client.
      const result = await answers.run(options.signal, (signal) => client.listTools(undefined, { signal, timeout: options.timeoutMs, cacheMode: 'bypass' }));
      const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
      return {
        tools: result.tools.map(toolInfo),
        ...(typeof ttlMs === 'number' && ttlMs >= 0 ? { ttlMs } : {}),
        ...(cacheScope === 'public' || cacheScope === 'private' ? { cacheScope } : {}),
      };
    },
    async callTool(name, args, options): Promise<McpCallAnswer> {
      // The caller's signal carries TOOL_TIMEOUT_MS and the turn's abort; the SDK's own timeout only backs it up.
      trace = options.trace;
      try {
        const params = {
          name,
          arguments: args,
          ...(options.trace ? { _meta: { ...options.trace } } : {}),
          ...(options.input ? { inputResponses: options.input.inputResponses } : {}),
          ...(options.input?.requestState !== undefined ? { requestState: options.input.requestState } : {}),
        };
        // The tool as listed, without its outputSchema: the SDK mirrors x-mcp-header parameters from
        // its inputSchema, and source.ts alone checks the result against the outputSchema.
        const toolDefinition = { name, inputSchema: (options.tool?.inputSchema ?? { type: 'object' }) as Tool['inputSchema'] };
        const result = (await answers.run(options.signal, (signal) =>
          client.callTool(params as Parameters<Client['callTool']>[0], {
            signal,
            timeout: options.timeoutMs + 1_000,
            allowInputRequired: true,
            toolDefinition,
          }),
        )) as CallResultLike & { resultType?: string; inputRequests?: Record<string, unknown>; requestState?: string };
        if (result.resultType === 'input_required') {
          return {
            kind: 'input_required',
            inputRequests: result.inputRequests ?? {},
            ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
          };
        }
        return { kind: 'result', result };
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
type ListedTool = {
  name: string;
  description?: string;
  inputSchema: object;
  outputSchema?: object;
  execution?: { taskSupport?: string };
  annotations?: object;
};

function toolInfo(tool: ListedTool): McpToolInfo {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as JSONSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as JSONSchema } : {}),
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
