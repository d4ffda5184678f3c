// Serves createApp over real HTTP on loopback with @hono/node-server, for the suites that test the
// app as a client sees it.
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import { loadConfig, type Env } from '../../src/config.ts';
import { createApp } from '../../src/http/app.ts';
import type { AppDeps, Authenticator } from '../../src/http/deps.ts';
import { noAuth } from '../../src/http/deps.ts';
import { AuthError } from '../../src/auth-error.ts';
import { createModel } from '../../src/model/index.ts';
import { MemoryActivityWriter } from '../../src/activity/memory-writer.ts';
import { createMemoryStorage } from '../../src/store/memory.ts';
import { defaultTools } from '../../functions/index.ts';
import { createTracing } from '../../src/telemetry/index.ts';
import { nodeSseSink } from '../../src/entries/node-sse.ts';

export interface TestApp {
  url: string;
  /** The HTTP server, for suites that look at its connections. */
  server: ServerType;
  deps: AppDeps;
  activity: MemoryActivityWriter;
  close(): Promise<void>;
}

export async function startApp(env: Env, overrides: Partial<AppDeps> = {}): Promise<TestApp> {
  const config = loadConfig({ KEEPALIVE_MS: '10000', ...env });
  const activity = new MemoryActivityWriter();
  const deps: AppDeps = {
    config,
    model: createModel(config, { demoWordDelayMs: 0 }),
    storage: createMemoryStorage(),
    activity,
    tools: defaultTools,
    auth: noAuth,
    // Made here rather than by createApp so that a test can flush it and read its counts.
    tracing: createTracing(config.tracing),
    // As `npm start` (src/entries/local.ts): streamed answers written to Node's response itself.
    sseSink: nodeSseSink,
    ...overrides,
  };
  const served = await serveApp(createApp(deps));
  return { ...served, deps, activity: (overrides.activity as MemoryActivityWriter | undefined) ?? activity };
}

/** Any app (createApp's, or one an entry built) over HTTP on a free loopback port. */
export async function serveApp(app: Hono): Promise<{ url: string; server: ServerType; close(): Promise<void> }> {
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        (server as import('node:http').Server).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Test auth: the user is whatever the X-Test-User header says; no header is a 401. */
export const headerAuth: Authenticator = {
  async authenticate(request) {
    const user = request.headers.get('x-test-user');
    if (!user) throw new AuthError('Missing credentials: send a bearer token.');
    return { userId: user };
  },
};
