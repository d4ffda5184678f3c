// Tools from MCP servers (MCP_SERVERS) as ordinary `Tool`s, resolved at the start of each turn.
//
// Tool lists are kept per isolate for MCP_TOOLS_TTL_S, or for less when a 2026-07-28 server's list says
// so (its ttlMs; 0 lists at every turn), so a turn usually starts without contacting any server. What a
// server speaks (2026-07-28 or a 2025 revision) is kept too and handed to the next connection (the SDK's
// `prior`): a call to a 2026-07-28 server whose list is kept costs one request, no handshake. A 2025
// verdict is kept only while the list is: fetching the list again probes again, so a server that was
// upgraded is found. A notifications/tools/list_changed received while a turn's session is open replaces the kept
// list (or marks it stale when the new one could not be fetched). Connections are per turn: a session
// is opened when the turn first needs the server (to list, or to call) and closed when the turn ends,
// because workerd does not let one request's I/O serve another's. A server that cannot be listed is left
// out of that turn with one line in the log; the others work. Listing is bounded by MCP_LIST_TIMEOUT_MS
// (handshake and tools/list together), and a server whose listing failed is remembered as down: no turn
// asks it again (nor waits for it) until its retry time, 30 s after the failure, doubling with each
// failure in a row up to 5 minutes. A call that fails (the server went down,
// answered an error, timed out) is thrown as an Error, which the loop turns into a result the model reads.
import type { McpServerConfig } from '../../config.ts';
import { cut, quote } from '../../quote.ts';
import { checkSchema, type JSONSchema } from 'rebound-gate';
import { type InputQuestion, type InputReply, InputRequired, MAX_INPUT_KEY, MAX_INPUT_MESSAGE, MAX_INPUT_STATE, MAX_INPUT_URL, unaskable } from '../input.ts';
import type { ToolSet, ToolSource, ToolSourceStatus } from '../source.ts';
import type { Tool } from '../types.ts';
import { McpAnswerTooLarge } from './answer-size.ts';
import { sanitiseDescription } from './description.ts';
import { exposedNames, serverPrefix } from './names.ts';
import { mapCallResult } from './result.ts';
import { outputProblems } from './validator.ts';
import { isProtocolError, type McpCallAnswer, type McpSession, type McpToolInfo, type McpToolList, type McpVerdict, type OpenSession } from './session.ts';

export interface McpSourceOptions {
  servers: McpServerConfig[];
  /** How long a tool list is reused at most (MCP_TOOLS_TTL_S; a server's ttlMs can make it shorter); 0 lists at every turn. */
  ttlMs: number;
  /** Bounds each call, and the handshake of a session a call opens (TOOL_TIMEOUT_MS). */
  timeoutMs: number;
  /** Bounds the handshake and tools/list at turn start and for GET /v1/tools together (MCP_LIST_TIMEOUT_MS). */
  listTimeoutMs: number;
  /** Default: the official SDK client (sdk.ts). */
  openSession?: OpenSession;
  log?: (line: string) => void;
  now?: () => number;
}

/** One server's tools as offered to the model, kept per isolate. */
interface Listing {
  tools: Array<{ name: string; description: string; info: McpToolInfo }>;
  /** Allowlisted names the server does not offer (or only as tasks). */
  notOffered: string[];
  /** Tools left out because the gate cannot read their input schema (past its schema limits), and why. */
  unreadable: Array<{ tool: string; reason: string }>;
  at: number;
  /** How long it is reused: MCP_TOOLS_TTL_S, or the server's ttlMs when shorter. */
  ttlMs: number;
  /** The protocol revision the server spoke when it was listed. */
  protocolVersion?: string;
  stale: boolean;
}

/** A server whose listing failed is not asked again for this long, doubled with each failure in a row… */
export const DOWN_RETRY_FIRST_MS = 30_000;
/** …up to this. */
export const DOWN_RETRY_MAX_MS = 300_000;

/** A server whose last listing failed: why, and when it may be asked again. */
interface Down {
  error: string;
  retryAt: number;
  waitedMs: number;
}

export function createMcpToolSource(options: McpSourceOptions): ToolSource {
  const listings = new Map<string, Listing>();
  const down = new Map<string, Down>();
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line) => console.warn(line));
  const open = options.openSession ?? sdkSession;
  const configured = new Set(options.servers.map((s) => s.name));
  /** What each server speaks, as its last connection found (dropped when its listing fails). */
  const verdicts = new Map<string, McpVerdict>();

  const remember = (server: McpServerConfig, infos: McpToolInfo[], list: Omit<McpToolList, 'tools'> = {}, protocolVersion?: string): Listing => {
    const allowed = server.tools ? new Set(server.tools) : null;
    const wanted = infos.filter((t) => t.taskSupport !== 'required' && (!allowed || allowed.has(t.name)));
    // A schema past the gate's limits (packages/gate/src/schema/schema-compile.ts) is checked here, once per listing,
    // before anything walks it: the tool is left out, as an unreachable server's tools are.
    const unreadable: Listing['unreadable'] = [];
    const callable = wanted.filter((t) => {
      const readable = checkSchema(t.inputSchema);
      if (!readable.ok) unreadable.push({ tool: cut(t.name, 120), reason: `its input schema ${readable.reason}` });
      return readable.ok;
    });
    for (const { tool, reason } of unreadable) {
      log(`rebound: MCP server ${quote(server.name)} tool ${quote(tool)} is left out: ${reason}.`);
    }
    const names = exposedNames(
      server.name,
      callable.map((t) => t.name),
    );
    const tools = callable.flatMap((info) => {
      const name = names.get(info.name);
      return name ? [{ name, description: sanitiseDescription(info.description), info }] : [];
    });
    const offered = new Set(tools.map((t) => t.info.name));
    // A server's cacheScope does not matter here: Rebound reaches each server with one credential (MCP_SERVERS
    // headers), so every turn is the same authorisation context.
    const ttlMs = list.ttlMs === undefined ? options.ttlMs : Math.min(options.ttlMs, list.ttlMs);
    const listing: Listing = {
      tools,
      notOffered: (server.tools ?? []).filter((t) => !offered.has(t)),
      unreadable,
      at: now(),
      ttlMs,
      ...(protocolVersion ? { protocolVersion } : {}),
      stale: false,
    };
    listings.set(server.name, listing);
    return listing;
  };

  const fresh = (listing: Listing | undefined): listing is Listing => !!listing && !listing.stale && now() - listing.at < listing.ttlMs;

  return {
    async open({ signal }): Promise<ToolSet> {
      const sessions = new TurnSessions(open, options.timeoutMs, {
        toolsChanged: (server, tools) => {
          if (tools) remember(server, tools, {}, listings.get(server.name)?.protocolVersion);
          else {
            const kept = listings.get(server.name);
            if (kept) kept.stale = true;
          }
        },
        // A 2025 verdict is used only while the server's list is kept: listing again probes again.
        prior: (server, listing) => {
          const verdict = verdicts.get(server.name);
          return verdict?.kind === 'legacy' && listing ? undefined : verdict;
        },
        spoke: (server, verdict) => (verdict ? verdicts.set(server.name, verdict) : verdicts.delete(server.name)),
      });
      const byName = new Map<string, string>();
      const results = await Promise.all(
        options.servers.map(async (server): Promise<{ status: ToolSourceStatus; tools: Tool[] }> => {
          let listing = listings.get(server.name);
          const cached = fresh(listing);
          if (!cached) {
            const known = down.get(server.name);
            if (known && now() < known.retryAt) {
              // Remembered as down: left out at once, without a connection or a wait (logged when it failed).
              const retryAt = new Date(known.retryAt).toISOString();
              return { status: { server: server.name, url: where(server.url), ok: false, error: known.error, retryAt }, tools: [] };
            }
            try {
              listing = remember(
                server,
                ...(await within(options.listTimeoutMs, signal, async (listSignal) => {
                  const session = await sessions.get(server, listSignal, { listing: true });
                  const { tools, ...list } = await session.listTools({ signal: listSignal, timeoutMs: options.listTimeoutMs });
                  return [tools, list, session.protocolVersion] as const;
                })),
              );
              down.delete(server.name);
            } catch (err) {
              // The verdict may be what failed (a server that no longer speaks 2026-07-28): the next listing probes.
              verdicts.delete(server.name);
              const error = describeError(err);
              const waitedMs = known ? Math.min(known.waitedMs * 2, DOWN_RETRY_MAX_MS) : DOWN_RETRY_FIRST_MS;
              const retryAt = now() + waitedMs;
              if (!signal.aborted) down.set(server.name, { error, retryAt, waitedMs });
              log(
                `rebound: MCP server ${quote(server.name)} (${where(server.url)}) could not list its tools: ${quote(error)}. Its tools are left out until it is asked again in ${waitedMs / 1000} s.`,
              );
              return { status: { server: server.name, url: where(server.url), ok: false, error, retryAt: new Date(retryAt).toISOString() }, tools: [] };
            }
          }
          const tools = listing!.tools.map(({ name, description, info }): Tool => {
            byName.set(name, server.name);
            return {
              name,
              description,
              parameters: info.inputSchema,
              // MCP's defaults apply to what the server left out: without hints a tool is destructive.
              annotations: info.annotations ?? {},
              origin: { server: server.name, tool: info.name, ...(listing!.protocolVersion ? { protocolVersion: listing!.protocolVersion } : {}) },
              ...(server.needsApproval ? { needsApproval: true } : {}),
              run: (args, ctx) => sessions.call(server, info, args, { signal: ctx.signal, trace: ctx.traceHeaders, input: ctx.input }),
            };
          });
          const { notOffered, unreadable } = listing!;
          return {
            status: {
              server: server.name,
              url: where(server.url),
              ok: true,
              tools: tools.length,
              cached,
              ...(listing!.protocolVersion ? { protocolVersion: listing!.protocolVersion } : {}),
              ...(notOffered.length ? { notOffered } : {}),
              ...(unreadable.length ? { unreadable } : {}),
            },
            tools,
          };
        }),
      );
      return {
        tools: results.flatMap((r) => r.tools),
        sources: results.map((r) => r.status),
        serverOf: (toolName) => {
          const named = byName.get(toolName);
          if (named) return named;
          const prefix = serverPrefix(toolName);
          return prefix && configured.has(prefix) ? prefix : null;
        },
        close: () => sessions.close(),
      };
    },
  };
}

/** What a turn's sessions tell the source that opened them (createMcpToolSource). */
interface TurnSessionHooks {
  toolsChanged(server: McpServerConfig, tools: McpToolInfo[] | null): void;
  /** What to connect with (`listing`: the session is opened to fetch the list). */
  prior(server: McpServerConfig, listing: boolean): McpVerdict | undefined;
  /** What the server was found to speak. */
  spoke(server: McpServerConfig, verdict: McpVerdict | undefined): void;
}

/** The sessions one turn opened, one per server, opened on first use. */
class TurnSessions {
  private readonly sessions = new Map<string, Promise<McpSession>>();
  private closed = false;

  private readonly open: OpenSession;
  private readonly timeoutMs: number;
  private readonly hooks: TurnSessionHooks;
  constructor(open: OpenSession, timeoutMs: number, hooks: TurnSessionHooks) {
    this.open = open;
    this.timeoutMs = timeoutMs;
    this.hooks = hooks;
  }

  get(server: McpServerConfig, signal: AbortSignal, { listing = false } = {}): Promise<McpSession> {
    if (this.closed) return Promise.reject(new Error('the turn has ended'));
    let session = this.sessions.get(server.name);
    if (!session) {
      const prior = this.hooks.prior(server, listing);
      session = this.open(server, {
        signal,
        timeoutMs: this.timeoutMs,
        ...(prior ? { prior } : {}),
        onToolsChanged: (tools) => this.hooks.toolsChanged(server, tools),
      }).then((opened) => {
        this.hooks.spoke(server, opened.verdict);
        return opened;
      });
      this.sessions.set(server.name, session);
      // A failed handshake is forgotten, so the next call tries again (the server may be back).
      session.catch(() => this.forget(server, session!));
    }
    return session;
  }

  async call(
    server: McpServerConfig,
    info: McpToolInfo,
    args: Record<string, unknown>,
    { signal, trace, input }: { signal: AbortSignal; trace?: Record<string, string>; input?: InputReply },
  ): Promise<unknown> {
    const tool = info.name;
    let session: McpSession;
    try {
      session = await this.get(server, signal);
    } catch (err) {
      throw new Error(`the MCP server "${server.name}" could not be reached (${describeError(err)}). Continue without this tool, or try it again later.`, {
        cause: err,
      });
    }
    let answer: McpCallAnswer;
    try {
      answer = await session.callTool(tool, args, {
        signal,
        timeoutMs: this.timeoutMs,
        trace,
        tool: info,
        // The person's answer, under the server's key, with its requestState echoed exactly.
        ...(input
          ? {
              input: {
                inputResponses: { [input.question.key]: input.answer },
                ...(input.question.requestState !== undefined ? { requestState: input.question.requestState } : {}),
              },
            }
          : {}),
      });
    } catch (err) {
      if (isProtocolError(err)) throw new Error(`the MCP server "${server.name}" refused the call: ${describeError(err)}`, { cause: err });
      // The connection is gone (or an answer was cut at the cap): drop the session so that the next call connects afresh.
      this.forget(server, this.sessions.get(server.name));
      void session.close();
      if (err instanceof McpAnswerTooLarge)
        throw new Error(
          `the MCP server "${server.name}" ${err.message}. Call it again asking for less (a narrower query, a smaller page), or continue without it.`,
          {
            cause: err,
          },
        );
      throw new Error(`the MCP server "${server.name}" did not answer (${describeError(err)}). Continue without this tool, or try it again later.`, {
        cause: err,
      });
    }
    if (answer.kind === 'input_required') {
      // A question for the person (docs/approval.md § A server's question): the turn pauses on it.
      if (input)
        throw new Error(`the MCP server "${server.name}" asked the person a second question; Rebound answers one per call. Continue without this tool.`);
      const question = questionOf(server.name, tool, answer);
      if (typeof question === 'string')
        throw new Error(`the MCP server "${server.name}" asked for input Rebound cannot put to the person: ${question}. Continue without this tool.`);
      return new InputRequired(question);
    }
    const mapped = mapCallResult(answer.result);
    if (!mapped.ok) throw new Error(mapped.error);
    if (info.outputSchema) {
      // The gate's rule for arguments, applied to the result: what does not fit is not handed on as if it did.
      const { structuredContent } = answer.result;
      const problem =
        structuredContent === undefined
          ? 'it sent no structuredContent, though the tool declares an output schema'
          : outputProblems(info.outputSchema, structuredContent);
      if (problem !== null) {
        throw new Error(
          `the MCP server "${server.name}" answered with a result that does not match the output schema of "${tool}": ${problem}. The result was not used: call the tool again, or continue without it.`,
        );
      }
    }
    return mapped.value;
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(open.map(async (s) => (await s).close()));
  }

  private forget(server: McpServerConfig, session: Promise<McpSession> | undefined): void {
    if (session && this.sessions.get(server.name) === session) this.sessions.delete(server.name);
  }
}

/**
 * `run` with a signal that aborts after `ms` (or with `signal`), and given up on then even if it does not
 * heed its signal: a server that never answers costs a listing `ms`, not the SDK's own timeouts.
 */
async function within<T>(ms: number, signal: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`no answer within ${ms} ms (MCP_LIST_TIMEOUT_MS)`)), ms);
  const both = AbortSignal.any([signal, deadline.signal]);
  const given = new Promise<never>((_, reject) => {
    if (both.aborted) reject(both.reason);
    else both.addEventListener('abort', () => reject(both.reason), { once: true });
  });
  try {
    return await Promise.race([run(both), given]);
  } finally {
    clearTimeout(timer);
  }
}

/** The one elicitation of an input_required as a question for the person, or why it cannot be one. */
function questionOf(server: string, tool: string, answer: Extract<McpCallAnswer, { kind: 'input_required' }>): InputQuestion | string {
  const entries = Object.entries(answer.inputRequests);
  if (entries.length !== 1) return `${entries.length} requests at once (Rebound answers one)`;
  const [key, request] = entries[0]!;
  // Both are kept with the question until the person answers, and sent back as they came.
  if (key.length > MAX_INPUT_KEY) return `a request key of ${key.length} characters (at most ${MAX_INPUT_KEY})`;
  const state = answer.requestState;
  if (state !== undefined && state.length > MAX_INPUT_STATE) return `a requestState of ${state.length} characters (at most ${MAX_INPUT_STATE})`;
  const r = request as { method?: unknown; params?: Record<string, unknown> };
  if (r.method !== 'elicitation/create' || !r.params)
    return `a ${typeof r.method === 'string' ? quote(r.method, 60) : 'malformed'} request (only elicitation is declared)`;
  const { mode, message, requestedSchema, url } = r.params;
  if (typeof message !== 'string') return 'an elicitation without a message';
  const base = {
    server,
    tool,
    key,
    message: message.slice(0, MAX_INPUT_MESSAGE),
    ...(answer.requestState !== undefined ? { requestState: answer.requestState } : {}),
  };
  if (mode === 'url') {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return 'a URL elicitation without an http(s) URL';
    if (url.length > MAX_INPUT_URL) return `a URL elicitation whose URL is ${url.length} characters (at most ${MAX_INPUT_URL})`;
    return { ...base, mode: 'url', url };
  }
  const problem = unaskable(requestedSchema);
  if (problem) return `an elicitation whose form cannot be shown (${problem})`;
  return { ...base, mode: 'form', requestedSchema: requestedSchema as JSONSchema };
}

/** The official SDK client (sdk.ts), imported on the first connection: an app without MCP_SERVERS never loads it. */
const sdkSession: OpenSession = async (server, options) => (await import('./sdk.ts')).openSession(server, options);

/** The server's origin only: a URL's path or query may carry a key. */
function where(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // fetch's "fetch failed" hides the reason (ECONNREFUSED, …) in `cause`.
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`.slice(0, 500);
}
