// Configuration from environment variables, validated once at start. Every runtime passes its own
// env record (process.env, Worker bindings, Deno.env.toObject()), so nothing here touches a platform.
import { isHttpUrl } from './http-url.ts';
import { keyProblems } from './config-keys.ts';
import * as z from 'zod';
import { parseTracingEnv, type TracingConfig } from './otel-config.ts';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const flag = z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', '']).transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

/** A host name or IP literal as it appears in a Host header, without the port. */
export const HOST_NAME = /^(?:\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)*)$/;
const hostList = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  )
  .refine((names) => names.every((n) => HOST_NAME.test(n)), {
    error: 'each entry must be a bare host name such as dev.example.test or [fd00::1], without scheme, port or path',
  });

const EnvSchema = z.object({
  PORT: int(0, 65535).default(8787),
  HOST: z.string().min(1).default('127.0.0.1'),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  MODEL: z.string().min(1).default('gpt-4o-mini'),
  DEMO_MODEL: flag.default(false),
  MAX_ITERATIONS: int(1, 100).default(10),
  NO_PROGRESS_ITERATIONS: int(1, 100).default(2),
  TIME_BUDGET_MS: int(1_000, 3_600_000).default(120_000),
  KEEPALIVE_MS: int(50, 600_000).default(10_000),
  READER_STALL_MS: int(100, 3_600_000).default(60_000),
  MAX_READERS_PER_TURN: int(1, 1_000).default(32),
  TOOL_TIMEOUT_MS: int(10, 600_000).default(30_000),
  MODEL_RETRIES: int(0, 10).default(2),
  MODEL_TIMEOUT_MS: int(100, 600_000).default(60_000),
  CORS_ORIGINS: z
    .string()
    .default('')
    .superRefine((v, ctx) => {
      for (const origin of splitList(v)) {
        const problem = corsOriginProblem(origin);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }
    }),
  ALLOWED_HOSTS: hostList.default([]),
  TURN_TOKEN_SECRET: z.string().min(16).optional(),
  TURN_TOKEN_TTL_S: int(5, 86_400).optional(),
  ON_DISCONNECT: z.enum(['continue', 'abort'], { error: 'use "continue" (the turn runs on when its reader leaves) or "abort"' }).default('continue'),
  MAX_MESSAGE_CHARS: int(1, 1_000_000).default(32_000),
  GATEWAY_RETRIES: int(0, 5).default(2),
  GATEWAY_KEYS: z
    .string()
    .default('')
    .refine((v) => splitList(v).every((k) => k.length >= 16), 'every key must be at least 16 characters (comma-separated)'),
  GATEWAY_FORWARD_CLIENT_KEY: flag.default(false),
  GATEWAY_MODELS: z
    .string()
    .default('')
    .refine(
      (v) => splitList(v).every((pair) => /^[^=\s]+(=[^=\s]+)?$/.test(pair) && pair !== '*' && pair !== '*=*'),
      'write client=upstream pairs or bare model names, comma-separated ("*=upstream" for every other model)',
    ),
  GATEWAY_MODELS_ONLY: flag.default(false),
  MESSAGES_UPSTREAM: z
    .enum(['chat', 'anthropic'], { error: 'use "chat" (translate to OPENAI_BASE_URL\'s Chat Completions) or "anthropic" (forward to ANTHROPIC_BASE_URL)' })
    .default('chat'),
  RESPONSES_UPSTREAM: z
    .enum(['chat', 'responses'], {
      error: 'use "chat" (translate to OPENAI_BASE_URL\'s Chat Completions) or "responses" (forward to OPENAI_BASE_URL/responses)',
    })
    .default('chat'),
  ANTHROPIC_BASE_URL: z.url({ error: 'must be a URL such as https://api.anthropic.com' }).optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  GATEWAY_USERS: z
    .string()
    .default('none')
    .refine(
      (v) => gatewayUsers(v) !== null,
      'use "none" (the default: no Supabase user reaches the gateway), "authenticated" (signed-in users) or "authenticated,anonymous" (anonymous sign-ins too)',
    ),
  GATEWAY_RPM: int(1, 1_000_000).optional(),
  GATEWAY_TOKENS_PER_DAY: int(1, 1_000_000_000_000).optional(),
  MCP_TOOLS_TTL_S: int(0, 86_400).default(300),
  MCP_LIST_TIMEOUT_MS: int(100, 60_000).default(3_000),
  APPROVAL_TOOLS: z
    .string()
    .default('')
    .refine(
      (v) => splitList(v).every((p) => APPROVAL_PATTERN.test(p)),
      'write tool names or globs, comma-separated, such as write_file,delete_file,crm__* (letters, digits, "_", "-", and "*" for any run of characters)',
    ),
  APPROVAL_TIMEOUT_MS: int(1_000, 604_800_000).default(900_000),
  STORAGE: z
    .enum(['memory', 'supabase'], { error: 'use "supabase" (the default where its settings are set) or "memory" (one isolate\'s memory: a demo)' })
    .optional(),
});

/**
 * APPROVAL_TOOLS, or where it is unset: none, except with the demo model `delete_file`, the call its
 * "demo approval" script proposes (src/model/demo.ts), so that `npm start` shows the flow.
 */
const DEMO_APPROVAL_TOOLS = ['delete_file'];
function approvalTools(value: string, demo: boolean): string[] {
  const tools = splitList(value);
  return tools.length === 0 && demo ? [...DEMO_APPROVAL_TOOLS] : tools;
}

/** One entry of APPROVAL_TOOLS: a tool name as the model sees it, `*` standing for any run of characters. */
const APPROVAL_PATTERN = /^[A-Za-z0-9_*-]{1,128}$/;

/** Which Supabase users GATEWAY_USERS admits, or null when it is not one of the documented values. */
function gatewayUsers(value: string): GatewayUser[] | null {
  const names = splitList(value);
  if (names.length === 1 && names[0] === 'none') return [];
  if (names.length === 0 || names.some((n) => n !== 'authenticated' && n !== 'anonymous') || !names.includes('authenticated')) return null;
  return [...new Set(names as GatewayUser[])];
}

/**
 * Why an entry of CORS_ORIGINS is not one (null when it is): CORS compares origins exactly, so anything
 * else would silently match nothing, or, for "null", match every sandboxed or file: page
 * (docs/configuration.md § CORS).
 */
function corsOriginProblem(origin: string): string | null {
  if (origin === '*') return 'a wildcard is not accepted: list the origins allowed to call /v1/* from a browser, comma-separated, such as https://app.example';
  if (origin === 'null')
    return '"null" is the origin of sandboxed iframes and file: pages, which any site can open, so it is never allowed: serve the page over http(s) and list that origin';
  try {
    const url = new URL(origin);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin) return null;
  } catch {
    /* not a URL: said below */
  }
  return `${JSON.stringify(origin)} is not an origin: write scheme://host[:port] in lower case, without a path or trailing slash, such as https://app.example`;
}

function splitList(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export type Env = Record<string, string | undefined>;

/** What a stream token outlives a turn's budget by: the forced summary and a reader's last reconnect. */
const TOKEN_MARGIN_S = 60;

export interface Config {
  port: number;
  host: string;
  /** timeoutMs: how long to wait for the upstream's response headers before a (retryable) timeout. */
  openai: { baseURL?: string; apiKey?: string; model: string; timeoutMs: number };
  /** True when no API key is set or DEMO_MODEL forces it. */
  demo: boolean;
  maxIterations: number;
  /** Iterations in a row whose every call repeats a failure before the forced summary `no_progress`. */
  noProgressIterations: number;
  timeBudgetMs: number;
  keepaliveMs: number;
  /** A stream whose client takes nothing for this long while data waits is closed (src/http/sse.ts). */
  readerStallMs: number;
  /** Readers a turn running here serves at once; past it, a 429. */
  maxReadersPerTurn: number;
  toolTimeoutMs: number;
  modelRetries: number;
  corsOrigins: string[];
  /** Host names served without auth besides the loopback ones (lower case, no port). */
  allowedHosts: string[];
  /** HMAC secret for EventSource stream tokens; a random one per process when unset (single-instance only). */
  turnTokenSecret?: string;
  /** Lifetime of a stream token: at least a turn's budget plus a margin, so reconnects work for the whole turn. */
  turnTokenTtlS: number;
  /** What a reader's disconnect does to its turn: nothing (`continue`, the turn runs on) or `abort` it. */
  onDisconnect: 'continue' | 'abort';
  maxMessageChars: number;
  gateway: GatewayConfig;
  mcp: McpConfig;
  approval: ApprovalConfig;
  /** OpenTelemetry traces (OTEL_*, src/otel-config.ts); null when off. */
  tracing: TracingConfig | null;
  /** STORAGE: where the edge keeps sessions and turns, when set; unset, Supabase if configured (edge.ts decides). */
  storage?: 'memory' | 'supabase';
}

/** Human approval of tool calls (docs/approval.md § Which calls, § Expiry on each runtime). */
export interface ApprovalConfig {
  /** APPROVAL_TOOLS: tool names or globs (`*`: any run of characters) whose calls wait for a person. */
  tools: string[];
  /** APPROVAL_TIMEOUT_MS: a call nobody decided on in this long is expired (the model is told, as for a denial). */
  timeoutMs: number;
}

/** MCP servers whose tools the model may call (src/tools/mcp/): MCP_SERVERS and MCP_TOOLS_TTL_S. */
export interface McpConfig {
  servers: McpServerConfig[];
  /** How long an isolate reuses a server's tool list before listing it again (0: every turn). */
  toolsTtlMs: number;
  /** MCP_LIST_TIMEOUT_MS: the longest a turn (or GET /v1/tools) waits for one server's handshake and tools/list. */
  listTimeoutMs: number;
}

export interface McpServerConfig {
  /** Prefix of the server's tools as the model sees them: `<name>__<tool>`. */
  name: string;
  url: string;
  /** Sent with every request to the server (e.g. authorization); never logged. */
  headers: Record<string, string>;
  /** Only these tools (the server's own names) are offered; absent: all of them. */
  tools?: string[];
  /** Every call to this server's tools waits for a person's approval (a tool's `needsApproval: true`). */
  needsApproval?: boolean;
}

/** POST /v1/chat/completions: Rebound as an OpenAI-compatible gateway in front of `openai`. */
export interface GatewayConfig {
  /** Re-asks of the upstream when a call stays blocked after the gate's repairs. */
  retries: number;
  /** Bearer keys accepted besides Supabase user tokens (GATEWAY_KEYS). */
  keys: string[];
  /** Send the client's own Authorization to the upstream instead of OPENAI_API_KEY (off by default). */
  forwardClientKey: boolean;
  /** Client model name → upstream model name; "*" maps every other name; unmapped names pass through unless modelsOnly. */
  models: Record<string, string>;
  /** GATEWAY_MODELS_ONLY: only the names GATEWAY_MODELS lists are served (an allowlist); others are refused. */
  modelsOnly: boolean;
  /** GATEWAY_USERS: which Supabase users may use the gateway with their access token (none by default). */
  users: GatewayUser[];
  /** Per caller (each gateway key, each user, the local user): GATEWAY_RPM and GATEWAY_TOKENS_PER_DAY; null is no limit. */
  limits: { requestsPerMinute: number | null; tokensPerDay: number | null };
  /** Where POST /v1/messages goes (MESSAGES_UPSTREAM): translated to the chat upstream (default) or forwarded to Anthropic's API. */
  messagesUpstream: 'chat' | 'anthropic';
  /** Where POST /v1/responses goes (RESPONSES_UPSTREAM): translated to the chat upstream (default) or forwarded to OPENAI_BASE_URL/responses. */
  responsesUpstream: 'chat' | 'responses';
  /** MESSAGES_UPSTREAM=anthropic: ANTHROPIC_BASE_URL (default https://api.anthropic.com) and ANTHROPIC_API_KEY. */
  anthropic: { baseURL: string; apiKey?: string };
}

/** A kind of Supabase user GATEWAY_USERS can admit: signed-in users, and anonymous sign-ins (is_anonymous) on top. */
export type GatewayUser = 'authenticated' | 'anonymous';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A server name: letters, digits, `-` and single `_`, so that `__` in a tool's name marks where the server ends. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/;
export const MCP_SERVER_NAME_MAX = 24;
const MCP_EXAMPLE =
  'write a JSON array such as [{"name":"crm","url":"https://crm.example/mcp","headers":{"authorization":"Bearer …"},"tools":["find_customer"]}]';

/**
 * MCP_SERVERS, checked entry by entry. Its messages never quote the value: headers hold credentials.
 * Returns the problems as lines (empty when valid) next to what could be read.
 */
export function parseMcpServers(text: string | undefined): { servers: McpServerConfig[]; problems: string[] } {
  if (text === undefined || text.trim() === '') return { servers: [], problems: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The parser's message quotes the text, and the text holds credentials: say only what to do.
    return { servers: [], problems: [`MCP_SERVERS: not valid JSON (check the quotes, commas and brackets); ${MCP_EXAMPLE}`] };
  }
  if (!Array.isArray(json)) return { servers: [], problems: [`MCP_SERVERS: must be a JSON array of servers; ${MCP_EXAMPLE}`] };
  const servers: McpServerConfig[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, entry] of (json as unknown[]).entries()) {
    const at = `MCP_SERVERS[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${at}: must be an object with name and url; ${MCP_EXAMPLE}`);
      continue;
    }
    const { name, url, headers, tools, needsApproval, ...rest } = entry as Record<string, unknown>;
    const before = problems.length;
    for (const key of Object.keys(rest)) problems.push(`${at}.${key}: unknown field (use name, url, headers, tools, needsApproval)`);
    if (typeof name !== 'string' || !MCP_SERVER_NAME.test(name) || name.length > MCP_SERVER_NAME_MAX || name.endsWith('_')) {
      problems.push(
        `${at}.name: must be 1–${MCP_SERVER_NAME_MAX} letters, digits, "-" or single "_" (not at the end), e.g. "crm"; it prefixes the tool names as <name>__<tool>`,
      );
    } else if (seen.has(name)) problems.push(`${at}.name: "${name}" is used by an earlier server; names must be unique`);
    if (typeof name === 'string') seen.add(name);
    if (typeof url !== 'string' || !isHttpUrl(url))
      problems.push(`${at}.url: must be the http(s) URL of the server's Streamable HTTP endpoint, e.g. https://crm.example/mcp`);
    if (
      headers !== undefined &&
      (typeof headers !== 'object' || headers === null || Array.isArray(headers) || Object.values(headers).some((v) => typeof v !== 'string'))
    ) {
      problems.push(`${at}.headers: must be an object of string values, e.g. {"authorization":"Bearer …"}`);
    }
    if (tools !== undefined && (!Array.isArray(tools) || tools.length === 0 || tools.some((t) => typeof t !== 'string' || t === ''))) {
      problems.push(`${at}.tools: must be a non-empty array of the server's tool names (leave it out to offer every tool)`);
    }
    if (needsApproval !== undefined && typeof needsApproval !== 'boolean') {
      problems.push(`${at}.needsApproval: must be true (every call to this server's tools waits for a person) or false; for some tools, use APPROVAL_TOOLS`);
    }
    if (problems.length > before) continue;
    servers.push({
      name: name as string,
      url: url as string,
      headers: { ...(headers as Record<string, string> | undefined) },
      ...(tools ? { tools: [...(tools as string[])] } : {}),
      ...(needsApproval === true ? { needsApproval: true } : {}),
    });
  }
  return { servers, problems };
}

/** OTEL_* warnings already printed: each is told once per process, however many apps are configured. */
const warned = new Set<string>();

export function loadConfig(env: Env): Config {
  // Empty strings mean "unset" (a blank line in .dev.vars or a shell export).
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in EnvSchema.shape && v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  const mcp = parseMcpServers(env.MCP_SERVERS);
  const keys = keyProblems(env);
  if (!parsed.success || mcp.problems.length > 0 || keys.length > 0) {
    const lines = (parsed.error?.issues ?? []).map((i) => `  ${i.path.join('.')}=${JSON.stringify(cleaned[String(i.path[0])])}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${[...lines, ...mcp.problems.map((p) => `  ${p}`), ...keys.map((p) => `  ${p}`)].join('\n')}`);
  }
  const e = parsed.data;
  // A stream URL must outlive the turn it opens, so a reconnect late in the turn is still authorised.
  const minTtlS = Math.ceil(e.TIME_BUDGET_MS / 1000) + TOKEN_MARGIN_S;
  if (e.TURN_TOKEN_TTL_S !== undefined && e.TURN_TOKEN_TTL_S < minTtlS) {
    throw new ConfigError(
      `Invalid configuration:\n  TURN_TOKEN_TTL_S=${JSON.stringify(cleaned.TURN_TOKEN_TTL_S)}: must be at least TIME_BUDGET_MS in seconds plus ${TOKEN_MARGIN_S} (${minTtlS}), or a reconnect late in a turn is refused`,
    );
  }
  const models = Object.fromEntries(splitList(e.GATEWAY_MODELS).map((pair) => (pair.includes('=') ? pair.split('=') : [pair, pair]) as [string, string]));
  if (e.GATEWAY_MODELS_ONLY && (Object.keys(models).length === 0 || Object.hasOwn(models, '*'))) {
    throw new ConfigError(
      `Invalid configuration:\n  GATEWAY_MODELS_ONLY=true: ${Object.keys(models).length === 0 ? 'GATEWAY_MODELS lists no model, so every request would be refused' : 'GATEWAY_MODELS has a "*" entry, which serves every name'}; list the names to serve, e.g. GATEWAY_MODELS=gpt-4o-mini,fast=gpt-4o-mini`,
    );
  }
  const otel = parseTracingEnv(env);
  for (const line of otel.warnings) {
    if (warned.has(line)) continue;
    warned.add(line);
    console.warn(`rebound: ${line}`);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    openai: { baseURL: e.OPENAI_BASE_URL, apiKey: e.OPENAI_API_KEY, model: e.MODEL, timeoutMs: e.MODEL_TIMEOUT_MS },
    demo: e.DEMO_MODEL || !e.OPENAI_API_KEY,
    maxIterations: e.MAX_ITERATIONS,
    noProgressIterations: e.NO_PROGRESS_ITERATIONS,
    timeBudgetMs: e.TIME_BUDGET_MS,
    keepaliveMs: e.KEEPALIVE_MS,
    readerStallMs: e.READER_STALL_MS,
    maxReadersPerTurn: e.MAX_READERS_PER_TURN,
    toolTimeoutMs: e.TOOL_TIMEOUT_MS,
    modelRetries: e.MODEL_RETRIES,
    corsOrigins: splitList(e.CORS_ORIGINS),
    allowedHosts: e.ALLOWED_HOSTS,
    turnTokenSecret: e.TURN_TOKEN_SECRET,
    turnTokenTtlS: e.TURN_TOKEN_TTL_S ?? Math.max(300, minTtlS),
    onDisconnect: e.ON_DISCONNECT,
    maxMessageChars: e.MAX_MESSAGE_CHARS,
    gateway: {
      retries: e.GATEWAY_RETRIES,
      keys: splitList(e.GATEWAY_KEYS),
      forwardClientKey: e.GATEWAY_FORWARD_CLIENT_KEY,
      models,
      modelsOnly: e.GATEWAY_MODELS_ONLY,
      users: gatewayUsers(e.GATEWAY_USERS) ?? [],
      limits: { requestsPerMinute: e.GATEWAY_RPM ?? null, tokensPerDay: e.GATEWAY_TOKENS_PER_DAY ?? null },
      messagesUpstream: e.MESSAGES_UPSTREAM,
      responsesUpstream: e.RESPONSES_UPSTREAM,
      anthropic: { baseURL: e.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com', ...(e.ANTHROPIC_API_KEY ? { apiKey: e.ANTHROPIC_API_KEY } : {}) },
    },
    mcp: { servers: mcp.servers, toolsTtlMs: e.MCP_TOOLS_TTL_S * 1000, listTimeoutMs: e.MCP_LIST_TIMEOUT_MS },
    approval: { tools: approvalTools(e.APPROVAL_TOOLS, e.DEMO_MODEL || !e.OPENAI_API_KEY), timeoutMs: e.APPROVAL_TIMEOUT_MS },
    tracing: otel.tracing,
    ...(e.STORAGE ? { storage: e.STORAGE } : {}),
  };
}

/** The project's URL and API keys as an edge runtime finds them (supabaseSettings). */
export interface SupabaseSettings {
  /** SUPABASE_URL without a trailing slash. */
  url?: string;
  /** Bypasses RLS: sb_secret_… (new) or the service-role JWT (legacy). */
  secretKey?: string;
  /** RLS applies: sb_publishable_… (new) or the anon JWT (legacy). */
  publishableKey?: string;
  /** Which variable each key came from, for the startup line (never the value). */
  from: { secretKey?: string; publishableKey?: string };
}

/**
 * Supabase's keys, newest form first. Edge Functions get SUPABASE_SECRET_KEYS and SUPABASE_PUBLISHABLE_KEYS,
 * JSON dictionaries of named keys whose `default` entry is the one to use
 * (supabase.com/docs/guides/functions/secrets); a Worker's deployer sets one SUPABASE_SECRET_KEY (and
 * SUPABASE_PUBLISHABLE_KEY); the legacy JWT keys SUPABASE_SERVICE_ROLE_KEY and SUPABASE_ANON_KEY come last.
 * A dictionary that is not JSON, or has no `default`, is a ConfigError that names the entries, never a value.
 */
export function supabaseSettings(env: Env): SupabaseSettings {
  const get = (k: string) => env[k]?.trim() || undefined;
  const pick = (dictionary: string, single: string, legacy: string): [string, string] | undefined => {
    const dict = get(dictionary);
    if (dict !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(dict);
      } catch {
        throw new ConfigError(`Invalid configuration:\n  ${dictionary}: not valid JSON; Supabase sets it as {"default":"sb_…"}`);
      }
      const entries = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
      const key = entries?.default;
      if (typeof key !== 'string' || key.trim() === '') {
        const names = entries ? Object.keys(entries).map((n) => JSON.stringify(n)) : [];
        throw new ConfigError(
          `Invalid configuration:\n  ${dictionary}: needs a "default" entry holding a key (it has ${names.length ? names.join(', ') : 'none'}); or set ${single} instead`,
        );
      }
      return [key.trim(), `${dictionary}.default`];
    }
    for (const name of [single, legacy]) {
      const value = get(name);
      if (value) return [value, name];
    }
    return undefined;
  };
  const secret = pick('SUPABASE_SECRET_KEYS', 'SUPABASE_SECRET_KEY', 'SUPABASE_SERVICE_ROLE_KEY');
  const publishable = pick('SUPABASE_PUBLISHABLE_KEYS', 'SUPABASE_PUBLISHABLE_KEY', 'SUPABASE_ANON_KEY');
  return {
    url: get('SUPABASE_URL')?.replace(/\/+$/, ''),
    secretKey: secret?.[0],
    publishableKey: publishable?.[0],
    from: { secretKey: secret?.[1], publishableKey: publishable?.[1] },
  };
}
