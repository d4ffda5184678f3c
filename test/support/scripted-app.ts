// The app against the scripted OpenAI upstream, the setup most suites share: one call starts both
// (the app's OPENAI_BASE_URL is the upstream, with a test key and model), and the afterEach that
// scriptedApps registers closes whatever a test started, app first, so no suite repeats it.
import { afterEach } from 'vitest';
import type { Env } from '../../src/config.ts';
import type { AppDeps } from '../../src/http/deps.ts';
import { startApp, type TestApp } from './app-server.ts';
import { startScriptedOpenAI, type Script, type ScriptedOptions, type ScriptedServer } from './scripted-openai.ts';

export interface ScriptedApp {
  upstream: ScriptedServer;
  app: TestApp;
}

export interface ScriptedAppOptions {
  /** Variables over the suite's defaults and the upstream's (OPENAI_API_KEY, OPENAI_BASE_URL, MODEL). */
  env?: Env;
  /** startApp's overrides; as a function, of the variables the app starts with (an MCP tool source's config). */
  deps?: Partial<AppDeps> | ((env: Env) => Partial<AppDeps>);
  /** The upstream's own options (the models it lists). */
  upstream?: ScriptedOptions;
}

/**
 * Registers the cleanup (afterEach: each app, then each upstream) and returns the function that
 * starts one scripted app. `defaults` are the suite's variables (MODEL_RETRIES, KEEPALIVE_MS …), under
 * each start's own `env`.
 */
export function scriptedApps(defaults: Env = {}): (script: Script, options?: ScriptedAppOptions) => Promise<ScriptedApp> {
  const started: ScriptedApp[] = [];
  afterEach(async () => {
    for (const { app, upstream } of started.splice(0)) {
      await app.close();
      await upstream.close();
    }
  });
  return async (script, options = {}) => {
    const upstream = await startScriptedOpenAI(script, options.upstream);
    const env: Env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url, MODEL: 'scripted-1', ...defaults, ...options.env };
    let app: TestApp;
    try {
      app = await startApp(env, typeof options.deps === 'function' ? options.deps(env) : options.deps);
    } catch (e) {
      await upstream.close();
      throw e;
    }
    started.push({ app, upstream });
    return { app, upstream };
  };
}
