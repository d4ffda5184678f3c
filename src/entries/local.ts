// What `npm start` runs on, as one function so the browser tests use exactly the same wiring:
// the embedded PGlite database (the Supabase migrations, applied on open) behind storage, the
// activity writer and the dashboard, the configured model (or the demo), the default tools.
import { createPgliteSink } from '../activity/sinks/pglite.ts';
import { createActivityWriter, type BatchingActivityWriter, type WriterOptions } from '../activity/writer.ts';
import type { Config } from '../config.ts';
import { createPgliteDashboard } from '../dashboard/pglite.ts';
import type { AppDeps, Authenticator } from '../http/deps.ts';
import { createModel } from '../model/index.ts';
import type { PGlite } from '@electric-sql/pglite';
import { createPgliteStorage, openPglite } from '../store/pglite.ts';
import { readMigrations } from './sql-files.ts';
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
  /** Flushes the activity writer and closes the database. */
  close(): Promise<void>;
}

export async function openLocalDeps(config: Config, options: LocalOptions): Promise<LocalDeps> {
  const db = await openPglite(options.dataDir, readMigrations());
  const activity = createActivityWriter(createPgliteSink(db), options.activity);
  const deps: AppDeps = {
    config,
    model: createModel(config, { demoWordDelayMs: options.demoWordDelayMs }),
    storage: createPgliteStorage(db),
    activity,
    tools: defaultTools,
    auth: options.auth,
    dashboard: createPgliteDashboard(db),
  };
  return {
    deps,
    activity,
    db,
    async close() {
      await activity.flush();
      await db.close();
    },
  };
}
