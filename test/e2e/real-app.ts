// The real app as `npm start` builds it (src/entries/local.ts), in demo mode, on an in-memory PGlite
// database for sessions, activity rows and the dashboard: what a user of the local server sees.
import { loadConfig } from '../../src/config.ts';
import { openLocalDeps } from '../../src/entries/local.ts';
import { createApp } from '../../src/http/app.ts';
import { noAuth } from '../../src/http/deps.ts';
import { listen, type RunningServer } from '../support/browser-server.ts';

export interface RealApp extends RunningServer {
  /** Every activity row handed to the writer is in PGlite (for assertions that read the dashboard). */
  flush(): Promise<void>;
}

export async function startRealApp(env: Record<string, string> = {}): Promise<RealApp> {
  // No OPENAI_API_KEY: the demo model. Words slow enough that streaming and Stop are observable.
  const config = loadConfig({ MAX_ITERATIONS: '8', KEEPALIVE_MS: '1000', ...env });
  if (!config.demo) throw new Error('the e2e suite expects the demo model');
  const local = await openLocalDeps(config, { auth: noAuth, demoWordDelayMs: 40, activity: { flushIntervalMs: 50 } });
  const app = createApp(local.deps);
  const server = await listen(app.fetch);
  return {
    ...server,
    async flush() {
      await local.activity.flush();
    },
    async close() {
      await server.close();
      await local.close();
    },
  };
}
