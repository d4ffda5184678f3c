// The real app as `npm start` builds it (src/entries/local.ts) on an in-memory PGlite database for
// sessions, turns, activity rows and the dashboard: what a user of the local server sees. By default
// it answers with the demo model; given `upstream`, with that OpenAI-compatible server (the scripted
// one in test/support/scripted-openai.ts), so a test can see its requests and their aborts.
import type { PGlite } from '@electric-sql/pglite';
import { loadConfig } from '../../src/config.ts';
import { openLocalDeps } from '../../src/entries/local.ts';
import { createApp } from '../../src/http/app.ts';
import { noAuth } from '../../src/http/deps.ts';
import { listen, type RunningServer } from '../support/browser-server.ts';

export interface RealAppOptions {
  /** Base URL of an OpenAI-compatible server (…/v1); absent, the demo model answers. */
  upstream?: string;
  env?: Record<string, string>;
}

export interface RealApp extends RunningServer {
  /** Every activity row handed to the writer is in PGlite (for assertions that read the dashboard). */
  flush(): Promise<void>;
  /** The embedded database, for assertions on what was persisted (agent_turns, agent_messages). */
  db: PGlite;
}

export async function startRealApp(options: RealAppOptions = {}): Promise<RealApp> {
  const upstream = options.upstream ? { OPENAI_API_KEY: 'sk-e2e', OPENAI_BASE_URL: options.upstream, MODEL: 'scripted-e2e' } : {};
  // Words slow enough (demo) that streaming and Stop are observable.
  const config = loadConfig({ MAX_ITERATIONS: '8', KEEPALIVE_MS: '1000', ...upstream, ...options.env });
  if (config.demo === Boolean(options.upstream)) {
    throw new Error(options.upstream ? 'an upstream was given but the config chose the demo model' : 'the e2e suite expects the demo model');
  }
  const local = await openLocalDeps(config, { auth: noAuth, demoWordDelayMs: 40, activity: { flushIntervalMs: 50 } });
  const app = createApp(local.deps);
  const server = await listen(app.fetch);
  return {
    ...server,
    db: local.db,
    async flush() {
      await local.activity.flush();
    },
    async close() {
      await server.close();
      await local.close();
    },
  };
}
