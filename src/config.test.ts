import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('defaults to the demo model on loopback', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8787, host: '127.0.0.1', demo: true, maxIterations: 10, timeBudgetMs: 120_000, keepaliveMs: 10_000 });
  });

  it('uses the real model when a key is set, unless DEMO_MODEL forces the demo', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'sk-x' }).demo).toBe(false);
    expect(loadConfig({ OPENAI_API_KEY: 'sk-x', DEMO_MODEL: 'true' }).demo).toBe(true);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ OPENAI_API_KEY: '', PORT: '' })).toMatchObject({ demo: true, port: 8787 });
  });

  it('names every bad variable and its value', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', MAX_ITERATIONS: '0', OPENAI_BASE_URL: 'not a url', DEMO_MODEL: 'maybe' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/PORT="eighty"/);
    expect(message).toMatch(/MAX_ITERATIONS="0"/);
    expect(message).toMatch(/OPENAI_BASE_URL="not a url"/);
    expect(message).toMatch(/DEMO_MODEL="maybe"/);
  });

  it('reads ALLOWED_HOSTS as lower-case bare host names', () => {
    expect(loadConfig({}).allowedHosts).toEqual([]);
    expect(loadConfig({ ALLOWED_HOSTS: 'Dev.Example.test, [fd00::1] ,box' }).allowedHosts).toEqual(['dev.example.test', '[fd00::1]', 'box']);
  });

  it.each(['http://dev.example.test', 'dev.example.test:8787', 'dev.example.test/app', 'a b', 'fd00::1'])('refuses ALLOWED_HOSTS=%s with a message that shows the form', (value) => {
    expect(() => loadConfig({ ALLOWED_HOSTS: value })).toThrow(/ALLOWED_HOSTS=.*bare host name such as dev\.example\.test/);
  });

  it('splits CORS origins', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example' }).corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });
});
