// The real app as `npm start` builds it (src/entries/node.ts), in demo mode, on an in-memory PGlite
// database for sessions, activity rows and the dashboard: what a user of the local server sees.
import { createPgliteSink } from '../../src/activity/sinks/pglite.ts';
import { BatchingActivityWriter } from '../../src/activity/writer.ts';
import { loadConfig } from '../../src/config.ts';
import { createPgliteDashboard } from '../../src/dashboard/pglite.ts';
import { readMigrations } from '../../src/entries/sql-files.ts';
import { createApp } from '../../src/http/app.ts';
import { noAuth } from '../../src/http/deps.ts';
import { createModel } from '../../src/model/index.ts';
import { createPgliteStorage, openPglite } from '../../src/store/pglite.ts';
import { defaultTools } from '../../functions/index.ts';
import { listen, type RunningServer } from '../support/browser-server.ts';

export interface RealApp extends RunningServer {
  /** Every activity row handed to the writer is in PGlite (for assertions that read the dashboard). */
  flush(): Promise<void>;
}

export async function startRealApp(env: Record<string, string> = {}): Promise<RealApp> {
  // No OPENAI_API_KEY: the demo model. Words slow enough that streaming and Stop are observable.
  const config = loadConfig({ MAX_ITERATIONS: '8', KEEPALIVE_MS: '1000', ...env });
  if (!config.demo) throw new Error('the e2e suite expects the demo model');
  const db = await openPglite(undefined, readMigrations());
  const activity = new BatchingActivityWriter(createPgliteSink(db), { flushIntervalMs: 50 });
  const app = createApp({
    config,
    model: createModel(config, { demoWordDelayMs: 40 }),
    storage: createPgliteStorage(db),
    activity,
    tools: defaultTools,
    auth: noAuth,
    dashboard: createPgliteDashboard(db),
  });
  const server = await listen(app.fetch);
  return {
    ...server,
    async flush() {
      await activity.flush();
    },
    async close() {
      await server.close();
      await activity.flush();
      await db.close();
    },
  };
}
