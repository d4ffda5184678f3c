// Everything createApp needs, handed in by each runtime entry (Node, workerd, Deno).
import type { Context } from 'hono';
import type { ActivityWriter } from '../activity/types.ts';
import type { Config } from '../config.ts';
import type { DashboardSource } from '../dashboard/types.ts';
import type { ModelClient } from '../model/types.ts';
import type { Storage } from '../store/types.ts';
import type { Tracing } from '../telemetry/index.ts';
import type { SseSink } from './sse.ts';
import type { ToolSource } from '../tools/source.ts';
import type { Tool } from '../tools/types.ts';
import type { TurnPlacement } from '../turns/placement.ts';
import type { TurnService } from '../turns/service.ts';

export interface Principal {
  /** The Supabase user id (JWT `sub`), or null in local unauthenticated mode. */
  userId: string | null;
  /** A Supabase user's `role` claim ('authenticated' for a signed-in user); absent in local mode. */
  role?: string;
  /** The token is an anonymous sign-in's (`is_anonymous: true`): the gateway admits it only when GATEWAY_USERS names it. */
  anonymous?: boolean;
}

/** Verifies the caller of a POST route. Throws `AuthError` (src/auth-error.ts) for a missing or bad credential. */
export interface Authenticator {
  authenticate(request: Request): Promise<Principal>;
  /**
   * Local mode: one anonymous local user (null user id), no Supabase auth. createApp then also keeps
   * the Host and Origin guards (src/http/middleware/).
   */
  readonly local?: boolean;
}

/**
 * Everybody is the same anonymous local user, with no credential: for tests that drive the app in
 * process, never an entry's choice (local mode takes the local token, src/http/auth/local-token.ts).
 */
export const noAuth: Authenticator = { local: true, authenticate: async () => ({ userId: null }) };

export interface AppDeps {
  config: Config;
  model: ModelClient;
  storage: Storage;
  /** What `storage` is, for GET /health: the edge's Supabase or memory, Node's embedded PGlite; `none` with storageMissing. */
  storageKind?: 'supabase' | 'memory' | 'pglite' | 'none';
  /**
   * Set when a deployment has no storage it may use (auth on, no Supabase settings, no STORAGE=memory):
   * what is missing. The routes that create or read sessions and turns then answer 503
   * storage_not_configured with it; the gateway and /v1/tools still work.
   */
  storageMissing?: string;
  activity: ActivityWriter;
  tools: Tool[];
  /** Tools from elsewhere (MCP servers), asked for at the start of each turn and by GET /v1/tools. */
  toolSource?: ToolSource;
  auth: Authenticator;
  /** Keeps the isolate alive for work after the response (activity flush): ctx.waitUntil, EdgeRuntime.waitUntil. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * The gateway's transport to its upstreams: Node's entries pass their own HTTP client (src/entries/node-fetch.ts,
   * cheaper than fetch's web streams); absent, the runtime's fetch (workerd, Deno). The model has its own, in `model`.
   */
  upstreamFetch?: typeof fetch;
  /**
   * Where a streamed answer is written: Node's entries write it to Node's response itself
   * (src/entries/node-sse.ts: the headers go with the first chunk, no web stream between); absent, or
   * undefined for a request, a web ReadableStream (workerd, Deno). docs/benchmarks.md § The streaming
   * paths at the physical limit.
   */
  sseSink?: (c: Context) => SseSink | undefined;
  systemPrompt?: string;
  /** Feeds GET /v1/dashboard; the route answers 501 when absent. */
  dashboard?: DashboardSource;
  /**
   * True where this process is the only one serving its storage (`npm start`: PGlite belongs to one
   * process), so POST …/stop always finds the turn here and a running turn need not poll its row for a
   * stop asked elsewhere (one query per turn per second: with 2,000 turns open, most of the CPU).
   */
  singleInstance?: boolean;
  /**
   * Where a claimed turn's producer runs (src/entries/placement.ts: this process, or the turn's Durable
   * Object). Absent, each app runs its turns in its own process.
   */
  placement?: TurnPlacement;
  /** OpenTelemetry traces (src/telemetry/); createApp makes it from config.tracing when absent, undefined when off. */
  tracing?: Tracing;
  /**
   * What expires calls that wait for a person where no timer outlives a request (docs/approval.md § Expiry on each runtime;
   * absent, Node's timer when singleInstance, else only a late decision): 'request' (Supabase, Deno: the
   * next request that touches the turn or its session), or a Durable Object's alarm, told of each turn
   * that pauses there and handed the app's TurnService to call its approval desk's expire with.
   */
  approvalExpiry?: { kind: 'request' } | { kind: 'alarm'; paused(turnId: string): void; service(turns: TurnService): void };
}
