// `npm start`: the local server. Embedded storage, the demo model unless OPENAI_API_KEY is set,
// no auth unless Supabase auth is configured (allowed only on loopback).
import { serve } from '@hono/node-server';
import { ConfigError, loadConfig } from '../config.ts';
import { createApp } from '../http/app.ts';
import { authFromEnv, isLoopbackHost } from '../http/auth-env.ts';
import { createModel } from '../model/index.ts';
import { MemoryActivityWriter } from '../activity/memory-writer.ts';
import { createMemoryStorage } from '../store/memory.ts';
import { defaultTools } from '../../functions/index.ts';

function main() {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const auth = authFromEnv(process.env, { local: isLoopbackHost(config.host) });
  if (auth.mode === 'refuse') {
    console.error(`Refusing to start on ${config.host} without authentication. ${auth.description}`);
    process.exit(1);
  }
  const model = createModel(config);
  const app = createApp({ config, model, storage: createMemoryStorage(), activity: new MemoryActivityWriter(), tools: defaultTools, auth: auth.auth });

  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    const host = info.address.includes(':') ? `[${info.address}]` : info.address;
    console.log(`Rebound listening on http://${host}:${info.port}`);
    console.log(model.demo ? '  model: DEMO (built-in scripted model; set OPENAI_API_KEY to use a real one)' : `  model: ${model.model} via ${config.openai.baseURL ?? 'https://api.openai.com/v1'}`);
    console.log(`  ${auth.description}`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main();
