// What both edge entries (Cloudflare Worker, Supabase Edge Function) build around createApp from the
// platform's env: config, the model (the demo model when no key is set, so a fresh deploy answers at
// once), storage and activity, and auth. Platform-neutral: the entries pass env and waitUntil in.
import { MemoryActivityWriter } from '../activity/memory-writer.ts';
import { createSupabaseSink } from '../activity/sinks/supabase.ts';
import { createServerClient } from '../store/data-client.ts';
import { createActivityWriter } from '../activity/writer.ts';
import { loadConfig, type Env } from '../config.ts';
import { createSupabaseDashboard } from '../dashboard/supabase.ts';
import { authFromEnv, type AuthEnvOptions } from '../http/auth-env.ts';
import type { AppDeps } from '../http/deps.ts';
import { randomSecret } from '../http/random-secret.ts';
import { createModel } from '../model/index.ts';
import { createMemoryStorage } from '../store/memory.ts';
import { createSupabaseStorage } from '../store/supabase.ts';
import { mcpToolSource } from '../tools/mcp/index.ts';
import type { TurnPlacement } from '../turns/placement.ts';
import { inThisProcess } from './placement.ts';
import { defaultTools } from '../../functions/index.ts';

export interface EdgePlatform {
  /** For the startup line. */
  name: string;
  local: AuthEnvOptions['local'];
  waitUntil?: (promise: Promise<unknown>) => void;
  /** Where turns run: this isolate unless said (a Worker's turn object says itself). */
  placement?: TurnPlacement;
}

export function edgeDeps(env: Env, platform: EdgePlatform): AppDeps {
  const get = (k: string) => env[k]?.trim() || undefined;
  const turnSecret = get('TURN_TOKEN_SECRET') ?? derivedTurnSecret(env) ?? randomSecret();
  const config = loadConfig({ ...env, TURN_TOKEN_SECRET: turnSecret });
  const auth = authFromEnv(env, { local: platform.local });
  const model = createModel(config);
  const data = supabaseData(env);
  console.log(
    `rebound on ${platform.name}: model ${model.demo ? 'DEMO (no OPENAI_API_KEY)' : model.model}; ${auth.description}; ` +
      `data: ${data ? 'Supabase' : 'in memory (per isolate; set SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY)'}` +
      (get('TURN_TOKEN_SECRET') || derivedTurnSecret(env) ? '' : '; TURN_TOKEN_SECRET unset: stream URLs only work on the isolate that issued them'),
  );
  return {
    config,
    model,
    storage: data?.storage ?? createMemoryStorage(),
    activity: data?.activity ?? new MemoryActivityWriter(),
    dashboard: data?.dashboard,
    tools: defaultTools,
    toolSource: mcpToolSource(config),
    auth: auth.auth,
    waitUntil: platform.waitUntil,
    placement: platform.placement ?? inThisProcess(),
  };
}

/** Whether sessions and turns live in the project's Postgres (readable from every isolate) rather than in this one's memory. */
export function sharedStorage(env: Env): boolean {
  return Boolean(env.SUPABASE_URL?.trim() && env.SUPABASE_SERVICE_ROLE_KEY?.trim());
}

/**
 * Stream tokens must verify on any isolate (and, on Workers, in the turn's Durable Object, which is
 * another app than the Worker that issued the token). Without TURN_TOKEN_SECRET, a deployment with
 * shared storage keys them with its service-role key, a secret every isolate already has (the
 * "rebound-turn-v1" payload keeps the signatures to this one use); otherwise none is shared.
 */
function derivedTurnSecret(env: Env): string | undefined {
  return sharedStorage(env) ? `rebound-turn-token:${env.SUPABASE_SERVICE_ROLE_KEY!.trim()}` : undefined;
}

/** Sessions, workspace, memories and activity in the project's Postgres, when the service key is there. */
function supabaseData(env: Env): Pick<AppDeps, 'storage' | 'activity' | 'dashboard'> | undefined {
  if (!sharedStorage(env)) return undefined;
  const url = env.SUPABASE_URL!.trim();
  const serviceKey = env.SUPABASE_SERVICE_ROLE_KEY!.trim();
  const client = createServerClient(url, serviceKey);
  const anonKey = env.SUPABASE_ANON_KEY?.trim();
  return {
    storage: createSupabaseStorage(client),
    activity: createActivityWriter(createSupabaseSink(client)),
    dashboard: anonKey ? createSupabaseDashboard({ url, anonKey, serviceClient: client }) : undefined,
  };
}

/** Worker bindings mix strings with objects (KV, secrets are strings); config only reads strings. */
export function stringEnv(bindings: Record<string, unknown>): Env {
  return Object.fromEntries(Object.entries(bindings).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
