// What `npm start` runs on, as one function so the browser tests use exactly the same wiring:
// the embedded PGlite database (the Supabase migrations, applied on open) behind storage, the
// activity writer and the dashboard, the configured model (or the demo), the default tools. Opening it
// closes the turns an earlier process left running: this process is the database's only user.
import { createPgliteSink } from '../activity/sinks/pglite.ts';
import { createActivityWriter, type BatchingActivityWriter, type WriterOptions } from '../activity/writer.ts';
import type { Config } from '../config.ts';
import { createPgliteDashboard } from '../dashboard/pglite.ts';
import type { AppDeps, Authenticator } from '../http/deps.ts';
import { createModel } from '../model/index.ts';
import { nodeFetch } from './node-fetch.ts';
import { nodeSseSink } from './node-sse.ts';
import type { PGlite } from '@electric-sql/pglite';
import { closeAllRunning } from '../store/interrupted.ts';
import { createPgliteStorage, openPglite } from '../store/pglite.ts';
import type { TurnRecord } from '../store/types.ts';
import { inThisProcess } from './placement.ts';
import { readMigrations } from './sql-files.ts';
import { mcpToolSource } from '../tools/mcp/index.ts';
import { defaultTools } from '../../functions/index.ts';

export interface LocalOptions {
  /** A folder for the database; undefined keeps it in memory. */
  dataDir?: string;
  auth: Authenticator;
  demoWordDelayMs?: number;
  activity?: WriterOptions;
}

export interface LocalDeps {
  deps: AppDeps;
  activity: BatchingActivityWriter;
  /** The embedded database itself, for tests that check what was persisted. */
  db: PGlite;
  /** Turns an earlier process left running (it was killed), closed as interrupted on open. */
  interrupted: TurnRecord[];
  /** Flushes the activity writer and closes the database. */
  close(): Promise<void>;
}

export async function openLocalDeps(config: Config, options: LocalOptions): Promise<LocalDeps> {
  const db = await openPglite(options.dataDir, readMigrations());
  const activity = createActivityWriter(createPgliteSink(db), options.activity);
  const storage = createPgliteStorage(db);
  // Before serving: nothing of this process runs yet, so every running turn is a zombie.
  const interrupted = await closeAllRunning(storage.sessions);
  const deps: AppDeps = {
    config,
    // Node's own HTTP client for the upstream: fetch's web streams cost ~0.7 ms a request (node-fetch.ts).
    model: createModel(config, { fetch: nodeFetch, demoWordDelayMs: options.demoWordDelayMs }),
    upstreamFetch: nodeFetch,
    // Streamed answers written to Node's response itself, the headers with the first chunk (node-sse.ts).
    sseSink: nodeSseSink,
    storage,
    storageKind: 'pglite',
    activity,
    tools: defaultTools,
    toolSource: mcpToolSource(config),
    auth: options.auth,
    dashboard: createPgliteDashboard(db),
    singleInstance: true,
    placement: inThisProcess(),
  };
  return {
    deps,
    activity,
    db,
    interrupted,
    async close() {
      await activity.flush();
      await db.close();
    },
  };
}
