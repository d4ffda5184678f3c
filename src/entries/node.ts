// `npm start`: the local server. The embedded PGlite database (same migrations as Supabase) under
// DATA_DIR, the demo model unless OPENAI_API_KEY is set, Supabase auth where it is configured, else
// (on loopback only) the local access token kept in DATA_DIR/local-token and printed in the chat URL.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { createApp } from '../http/app.ts';
import { authFromEnv, isLoopbackHost } from '../http/auth/env.ts';
import { LOCAL_TOKEN_MIN_CHARS } from '../http/auth/local-token.ts';
import { firstLine, checkCatalog } from '../store/pglite-damage.ts';
import { acquireDataLock, describeRefusal } from './data-lock.ts';
import { keptSecret } from './kept-secret.ts';
import { listenFirst } from './listen-first.ts';
import { openLocalDeps } from './local.ts';
import { describeOpenFailure } from './open-failure.ts';

async function main() {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const dataDir = process.env.DATA_DIR || '.data/pglite';
  mkdirSync(dataDir, { recursive: true });
  // One server per data folder: its lock before anything reads or writes the folder, then the port, then
  // the database (docs/configuration.md § One server per data folder). A refusal is one message, exit 1.
  const locked = acquireDataLock(dataDir, config.port);
  if (!locked.ok) {
    console.error(describeRefusal(dataDir, locked));
    process.exit(1);
  }
  process.on('exit', () => locked.lock.release());
  if (locked.tookOver) console.log(`(took over ${locked.lock.file}, left by pid ${locked.tookOver.pid}, which is no longer running)`);
  const bound = await listenFirst(config.host, config.port);
  if (!bound.ok) {
    console.error(bound.message);
    process.exit(1);
  }
  locked.lock.listening(bound.address.port);
  const tokenFile = join(dataDir, 'local-token');
  const auth = authFromEnv(process.env, {
    local: isLoopbackHost(config.host) && {
      token: () => keptSecret(tokenFile, { minChars: LOCAL_TOKEN_MIN_CHARS }),
      where: "kept in the file local-token of the server's data folder: DATA_DIR, default .data/pglite",
    },
  });
  // Off loopback without Supabase auth, GATEWAY_KEYS alone may guard the gateway (the rest answers 503).
  if (auth.mode === 'refuse' && config.gateway.keys.length === 0) {
    console.error(`Refusing to start on ${config.host} without authentication (or GATEWAY_KEYS for the gateway alone). ${auth.description}`);
    process.exit(1);
  }
  if (!config.turnTokenSecret) config = { ...config, turnTokenSecret: localTurnSecret(dataDir) };
  let local: Awaited<ReturnType<typeof openLocalDeps>>;
  try {
    local = await openLocalDeps(config, { dataDir, auth: auth.auth });
  } catch (err) {
    console.error(describeOpenFailure(dataDir, firstLine(err), await checkCatalog(dataDir)));
    process.exit(1);
  }
  const { model } = local.deps;
  bound.serve(createApp(local.deps).fetch);

  const info = bound.address;
  const host = info.address.includes(':') ? `[${info.address}]` : info.address;
  console.log(`Rebound listening on http://${host}:${info.port}`);
  console.log(
    model.demo
      ? '  model: DEMO (built-in scripted model; set OPENAI_API_KEY to use a real one)'
      : `  model: ${model.model} via ${config.openai.baseURL ?? 'https://api.openai.com/v1'}`,
  );
  console.log(`  ${auth.description}`);
  console.log(`  database: embedded PGlite in ${dataDir}`);
  console.log(`  ${gatewayLine(config)}`);
  if (config.mcp.servers.length)
    console.log(`  MCP servers: ${config.mcp.servers.map((s) => `${s.name} (${new URL(s.url).origin})`).join(', ')}; GET /v1/tools lists their tools`);
  if (local.interrupted.length > 0) console.log(`  closed ${local.interrupted.length} turn(s) left running by an earlier process as interrupted`);
  // The local token rides in the URLs, as Jupyter's does: the page keeps it and takes it out of the address bar.
  const query = auth.localToken ? `?token=${auth.localToken}` : '';
  if (auth.localToken) console.log(`  local access token: in ${tokenFile} (API clients send it as their bearer key)`);
  console.log(`  chat: http://${host}:${info.port}/${query}   dashboard: http://${host}:${info.port}/dashboard${query}`);
  const stop = () =>
    bound.close(async () => {
      await local.close();
      process.exit(0);
    });
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** The banner's gateway line: where it forwards, or, with no upstream key, what it answers and what to set. */
function gatewayLine(config: Config): string {
  if (!config.openai.apiKey && !config.gateway.forwardClientKey) {
    return "gateway: not configured (POST /v1/chat/completions answers 503 gateway_not_configured): set OPENAI_API_KEY and OPENAI_BASE_URL for its upstream, or GATEWAY_FORWARD_CLIENT_KEY=true to pass on each client's key";
  }
  return `gateway: POST /v1/chat/completions → ${config.openai.baseURL ?? 'https://api.openai.com/v1'} (${config.gateway.keys.length} gateway key(s), ${config.gateway.retries} retries${config.gateway.forwardClientKey ? ', client keys forwarded' : ''})`;
}

/**
 * The local server's TURN_TOKEN_SECRET when none is set: made once and kept in the data folder, so that
 * stream URLs issued before a restart (a crash, kill -9) still open after it, and a reader of an
 * interrupted turn gets its replay, ending in done{interrupted}, instead of a 403.
 */
function localTurnSecret(dataDir: string): string {
  return keptSecret(join(dataDir, 'rebound-turn-token-secret'), { minChars: 32, instead: 'set TURN_TOKEN_SECRET instead' });
}

await main();
