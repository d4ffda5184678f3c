// What both edge entries (Cloudflare Worker, Supabase Edge Function) build around createApp from the
// platform's env: config, the model (the demo model when no key is set, so a fresh deploy answers at
// once), storage and activity, and auth. Platform-neutral: the entries pass env and waitUntil in.
//
// Storage: Supabase when its URL and secret key are set. Memory only where it cannot lose anyone's
// data by surprise: local mode (no auth, loopback only: `wrangler dev`, plain `deno run`) or an explicit
// STORAGE=memory. A deployment with auth but no storage settings keeps serving the gateway and
// /v1/tools, and answers 503 storage_not_configured on the session and turn routes (createApp).
import { MemoryActivityWriter } from '../activity/memory-writer.ts';
import { createSupabaseSink } from '../activity/sinks/supabase.ts';
import { createServerClient } from '../store/data-client.ts';
import { createActivityWriter } from '../activity/writer.ts';
import { loadConfig, supabaseSettings, type Env, type SupabaseSettings } from '../config.ts';
import { createSupabaseDashboard } from '../dashboard/supabase.ts';
import { authFromEnv, type AuthEnvOptions } from '../http/auth/env.ts';
import type { AppDeps } from '../http/deps.ts';
import { randomSecret } from '../http/random-secret.ts';
import { createModel } from '../model/index.ts';
import { memoryStorageOnFirstUse } from '../store/memory-on-first-use.ts';
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
  /** What expires calls that wait for a person (AppDeps.approvalExpiry): the next request, or a Durable Object's alarm. */
  approvalExpiry?: AppDeps['approvalExpiry'];
}

export function edgeDeps(env: Env, platform: EdgePlatform): AppDeps {
  const get = (k: string) => env[k]?.trim() || undefined;
  const supabase = supabaseSettings(env);
  const turnSecret = get('TURN_TOKEN_SECRET') ?? derivedTurnSecret(supabase) ?? randomSecret();
  const config = loadConfig({ ...env, TURN_TOKEN_SECRET: turnSecret });
  const auth = authFromEnv(env, { local: platform.local });
  const model = createModel(config);
  const choice = chooseStorage(supabase, config.storage, auth.mode);
  const data = choice.kind === 'supabase' ? supabaseData(supabase) : undefined;
  console.log(
    `rebound on ${platform.name}: model ${model.demo ? 'DEMO (no OPENAI_API_KEY)' : model.model}; ${auth.description}; ` +
      `data: ${choice.description}` +
      (get('TURN_TOKEN_SECRET') || derivedTurnSecret(supabase) ? '' : '; TURN_TOKEN_SECRET unset: stream URLs only work on the isolate that issued them'),
  );
  return {
    config,
    model,
    storage: data?.storage ?? memoryStorageOnFirstUse(),
    storageKind: choice.kind,
    ...(choice.kind === 'none' ? { storageMissing: choice.description } : {}),
    activity: data?.activity ?? new MemoryActivityWriter(),
    dashboard: data?.dashboard,
    tools: defaultTools,
    toolSource: mcpToolSource(config),
    auth: auth.auth,
    waitUntil: platform.waitUntil,
    placement: platform.placement ?? inThisProcess(),
    approvalExpiry: platform.approvalExpiry,
  };
}

interface StorageChoice {
  kind: 'supabase' | 'memory' | 'none';
  /** The startup line's words; for `none`, the 503's message: what is missing. */
  description: string;
}

const NEEDS =
  'set SUPABASE_URL and the secret key (SUPABASE_SECRET_KEY = sb_secret_…; on Supabase, SUPABASE_SECRET_KEYS is set for you), or STORAGE=memory for a demo that loses its sessions with the isolate';

/** Where sessions and turns live (see the top of this file). */
function chooseStorage(supabase: SupabaseSettings, wanted: 'memory' | 'supabase' | undefined, authMode: 'jwt' | 'local' | 'refuse'): StorageChoice {
  if (wanted === 'memory') return { kind: 'memory', description: 'in memory (STORAGE=memory: per isolate, lost when it goes)' };
  if (supabase.url && supabase.secretKey) return { kind: 'supabase', description: `Supabase (${supabase.url}, key from ${supabase.from.secretKey})` };
  const missing = [!supabase.url && 'SUPABASE_URL', !supabase.secretKey && 'a secret key'].filter(Boolean).join(' and ');
  if (wanted === 'supabase' || authMode === 'jwt') {
    return { kind: 'none', description: `Storage is not configured: ${missing} missing. Sessions and turns need it on a deployment: ${NEEDS}.` };
  }
  return { kind: 'memory', description: `in memory (local mode, no auth: ${missing} missing)` };
}

/** Whether sessions and turns live in the project's Postgres (readable from every isolate) rather than in this one's memory. */
export function sharedStorage(env: Env): boolean {
  const supabase = supabaseSettings(env);
  return Boolean(supabase.url && supabase.secretKey) && env.STORAGE?.trim() !== 'memory';
}

/**
 * Stream tokens must verify on any isolate (and, on Workers, in the turn's Durable Object, which is
 * another app than the Worker that issued the token). Without TURN_TOKEN_SECRET, they are keyed with
 * the project's secret key, which every isolate already has (the "rebound-turn-v1" payload keeps the
 * signatures to this one use); without either, none is shared.
 */
function derivedTurnSecret(supabase: SupabaseSettings): string | undefined {
  return supabase.secretKey ? `rebound-turn-token:${supabase.secretKey}` : undefined;
}

/** Sessions, workspace, memories and activity in the project's Postgres, through its Data API with the secret key. */
function supabaseData(supabase: SupabaseSettings): Pick<AppDeps, 'storage' | 'activity' | 'dashboard'> {
  const url = supabase.url!;
  const client = createServerClient(url, supabase.secretKey!);
  const publishableKey = supabase.publishableKey;
  return {
    storage: createSupabaseStorage(client),
    activity: createActivityWriter(createSupabaseSink(client)),
    dashboard: publishableKey ? createSupabaseDashboard({ url, publishableKey, serviceClient: client }) : undefined,
  };
}

/** Worker bindings mix strings with objects (KV, secrets are strings); config only reads strings. */
export function stringEnv(bindings: Record<string, unknown>): Env {
  return Object.fromEntries(Object.entries(bindings).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
