// Configuration from environment variables, validated once at start. Every runtime passes its own
// env record (process.env, Worker bindings, Deno.env.toObject()), so nothing here touches a platform.
import * as z from 'zod';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

/** A host name or IP literal as it appears in a Host header, without the port. */
export const HOST_NAME = /^(?:\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)*)$/;
const hostList = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean))
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
  TIME_BUDGET_MS: int(1_000, 3_600_000).default(120_000),
  KEEPALIVE_MS: int(50, 600_000).default(10_000),
  TOOL_TIMEOUT_MS: int(10, 600_000).default(30_000),
  MODEL_RETRIES: int(0, 10).default(2),
  MODEL_TIMEOUT_MS: int(100, 600_000).default(60_000),
  CORS_ORIGINS: z.string().default(''),
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
    .refine((v) => splitList(v).every((pair) => /^[^=\s]+=[^=\s]+$/.test(pair)), 'write the mapping as client=upstream pairs, comma-separated ("*=upstream" for every other model)'),
});

function splitList(v: string): string[] {
  return v.split(',').map((s) => s.trim()).filter(Boolean);
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
  timeBudgetMs: number;
  keepaliveMs: number;
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
}

/** POST /v1/chat/completions: Rebound as an OpenAI-compatible gateway in front of `openai`. */
export interface GatewayConfig {
  /** Re-asks of the upstream when a call stays blocked after the gate's repairs. */
  retries: number;
  /** Bearer keys accepted besides Supabase user tokens (GATEWAY_KEYS). */
  keys: string[];
  /** Send the client's own Authorization to the upstream instead of OPENAI_API_KEY (off by default). */
  forwardClientKey: boolean;
  /** Client model name → upstream model name; "*" maps every other name; unmapped names pass through. */
  models: Record<string, string>;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: Env): Config {
  // Empty strings mean "unset" (a blank line in .dev.vars or a shell export).
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in EnvSchema.shape && v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}=${JSON.stringify(cleaned[String(i.path[0])])}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  // A stream URL must outlive the turn it opens, so a reconnect late in the turn is still authorised.
  const minTtlS = Math.ceil(e.TIME_BUDGET_MS / 1000) + TOKEN_MARGIN_S;
  if (e.TURN_TOKEN_TTL_S !== undefined && e.TURN_TOKEN_TTL_S < minTtlS) {
    throw new ConfigError(
      `Invalid configuration:\n  TURN_TOKEN_TTL_S=${JSON.stringify(cleaned.TURN_TOKEN_TTL_S)}: must be at least TIME_BUDGET_MS in seconds plus ${TOKEN_MARGIN_S} (${minTtlS}), or a reconnect late in a turn is refused`,
    );
  }
  return {
    port: e.PORT,
    host: e.HOST,
    openai: { baseURL: e.OPENAI_BASE_URL, apiKey: e.OPENAI_API_KEY, model: e.MODEL, timeoutMs: e.MODEL_TIMEOUT_MS },
    demo: e.DEMO_MODEL || !e.OPENAI_API_KEY,
    maxIterations: e.MAX_ITERATIONS,
    timeBudgetMs: e.TIME_BUDGET_MS,
    keepaliveMs: e.KEEPALIVE_MS,
    toolTimeoutMs: e.TOOL_TIMEOUT_MS,
    modelRetries: e.MODEL_RETRIES,
    corsOrigins: e.CORS_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean),
    allowedHosts: e.ALLOWED_HOSTS,
    turnTokenSecret: e.TURN_TOKEN_SECRET,
    turnTokenTtlS: e.TURN_TOKEN_TTL_S ?? Math.max(300, minTtlS),
    onDisconnect: e.ON_DISCONNECT,
    maxMessageChars: e.MAX_MESSAGE_CHARS,
    gateway: {
      retries: e.GATEWAY_RETRIES,
      keys: splitList(e.GATEWAY_KEYS),
      forwardClientKey: e.GATEWAY_FORWARD_CLIENT_KEY,
      models: Object.fromEntries(splitList(e.GATEWAY_MODELS).map((pair) => pair.split('=') as [string, string])),
    },
  };
}
