import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, supabaseSettings } from './config.ts';

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

  it.each(['http://dev.example.test', 'dev.example.test:8787', 'dev.example.test/app', 'a b', 'fd00::1'])(
    'refuses ALLOWED_HOSTS=%s with a message that shows the form',
    (value) => {
      expect(() => loadConfig({ ALLOWED_HOSTS: value })).toThrow(/ALLOWED_HOSTS=.*bare host name such as dev\.example\.test/);
    },
  );

  it('splits CORS origins', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example' }).corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });

  it('refuses CORS_ORIGINS entries that would not say what they do: "*", "null", and what is not an origin', () => {
    expect(() => loadConfig({ CORS_ORIGINS: '*' })).toThrow(
      /^Invalid configuration:\n {2}CORS_ORIGINS="\*": a wildcard is not accepted: list the origins allowed to call \/v1\/\* from a browser/,
    );
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example,null' })).toThrow(
      /^Invalid configuration:\n {2}CORS_ORIGINS="https:\/\/a.example,null": "null" is the origin of sandboxed iframes and file: pages, which any site can open, so it is never allowed/,
    );
    for (const bad of ['https://a.example/', 'https://a.example/app', 'a.example', 'HTTPS://A.example', 'ftp://a.example']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(
        /is not an origin: write scheme:\/\/host\[:port\] in lower case, without a path or trailing slash/,
      );
    }
    expect(loadConfig({ CORS_ORIGINS: 'http://localhost:5173,https://[::1]:8443' }).corsOrigins).toEqual(['http://localhost:5173', 'https://[::1]:8443']);
  });
});

describe('MCP_SERVERS', () => {
  const server = { name: 'crm', url: 'https://crm.example/mcp' };
  const load = (value: unknown) => loadConfig({ MCP_SERVERS: typeof value === 'string' ? value : JSON.stringify(value) });
  const problem = (value: unknown): string => {
    try {
      load(value);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('is empty by default and reads servers with headers and an allowlist', () => {
    expect(loadConfig({}).mcp).toEqual({ servers: [], toolsTtlMs: 300_000, listTimeoutMs: 3_000 });
    const c = loadConfig({
      MCP_SERVERS: JSON.stringify([server, { name: 'docs_2', url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer x' }, tools: ['search'] }]),
      MCP_TOOLS_TTL_S: '0',
      MCP_LIST_TIMEOUT_MS: '500',
    });
    expect(c.mcp).toEqual({
      servers: [
        { name: 'crm', url: 'https://crm.example/mcp', headers: {} },
        { name: 'docs_2', url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer x' }, tools: ['search'] },
      ],
      toolsTtlMs: 0,
      listTimeoutMs: 500,
    });
    expect(() => loadConfig({ MCP_LIST_TIMEOUT_MS: '50' })).toThrow(/MCP_LIST_TIMEOUT_MS="50"/);
  });

  it('refuses text that is not JSON without quoting it (headers hold credentials)', () => {
    const message = problem('[{"name":"crm","headers":{"authorization":"Bearer sk-secret"}');
    expect(message).toMatch(/MCP_SERVERS: not valid JSON .*write a JSON array such as/);
    expect(message).not.toContain('sk-secret');
  });

  it.each([
    [{ ...server }, 'must be a JSON array'],
    [[{ ...server, name: 'a__b' }], 'MCP_SERVERS[0].name: must be 1–24 letters'],
    [[{ ...server, name: 'crm_' }], 'MCP_SERVERS[0].name'],
    [[{ ...server, name: 'x'.repeat(25) }], 'MCP_SERVERS[0].name'],
    [[{ ...server, name: 'has space' }], 'MCP_SERVERS[0].name'],
    [[server, { ...server }], 'MCP_SERVERS[1].name: "crm" is used by an earlier server'],
    [[{ ...server, url: 'ftp://crm.example/mcp' }], 'MCP_SERVERS[0].url: must be the http(s) URL'],
    [[{ name: 'crm' }], 'MCP_SERVERS[0].url'],
    [[{ ...server, headers: { authorization: 42 } }], 'MCP_SERVERS[0].headers: must be an object of string values'],
    [[{ ...server, tools: [] }], 'MCP_SERVERS[0].tools: must be a non-empty array'],
    [[{ ...server, tool: ['x'] }], 'MCP_SERVERS[0].tool: unknown field'],
    [['crm'], 'MCP_SERVERS[0]: must be an object with name and url'],
  ])('refuses %j with a message naming the field', (value, expected) => {
    expect(problem(value)).toContain(expected);
  });

  it('reports MCP_SERVERS together with the other bad variables', () => {
    expect(() => loadConfig({ PORT: 'eighty', MCP_SERVERS: '{}' })).toThrow(/PORT="eighty"[\s\S]*MCP_SERVERS: must be a JSON array/);
  });

  it('reads the gateway settings: retries, keys, forwarding off by default, the model mapping', () => {
    expect(loadConfig({}).gateway).toEqual({
      retries: 2,
      keys: [],
      forwardClientKey: false,
      models: {},
      modelsOnly: false,
      users: [],
      limits: { requestsPerMinute: null, tokensPerDay: null },
      messagesUpstream: 'chat',
      responsesUpstream: 'chat',
      anthropic: { baseURL: 'https://api.anthropic.com' },
    });
    const c = loadConfig({
      GATEWAY_RETRIES: '0',
      GATEWAY_KEYS: ' key-aaaaaaaaaaaaaaaa , key-bbbbbbbbbbbbbbbb',
      GATEWAY_FORWARD_CLIENT_KEY: 'true',
      GATEWAY_MODELS: 'gpt-4o=llama-3.3-70b, *=qwen2.5',
      GATEWAY_USERS: 'authenticated',
      GATEWAY_RPM: '60',
      GATEWAY_TOKENS_PER_DAY: '1000000',
      MESSAGES_UPSTREAM: 'anthropic',
      RESPONSES_UPSTREAM: 'responses',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:8082',
      ANTHROPIC_API_KEY: 'sk-ant-test',
    });
    expect(c.gateway).toEqual({
      retries: 0,
      keys: ['key-aaaaaaaaaaaaaaaa', 'key-bbbbbbbbbbbbbbbb'],
      forwardClientKey: true,
      models: { 'gpt-4o': 'llama-3.3-70b', '*': 'qwen2.5' },
      modelsOnly: false,
      users: ['authenticated'],
      limits: { requestsPerMinute: 60, tokensPerDay: 1_000_000 },
      messagesUpstream: 'anthropic',
      responsesUpstream: 'responses',
      anthropic: { baseURL: 'http://127.0.0.1:8082', apiKey: 'sk-ant-test' },
    });
    expect(() => loadConfig({ MESSAGES_UPSTREAM: 'openai' })).toThrow(/MESSAGES_UPSTREAM="openai": use "chat" .* or "anthropic"/);
  });

  it('reads GATEWAY_USERS: none by default, anonymous sign-ins only when named beside authenticated', () => {
    expect(loadConfig({ GATEWAY_USERS: 'none' }).gateway.users).toEqual([]);
    expect(loadConfig({ GATEWAY_USERS: ' authenticated , anonymous ' }).gateway.users).toEqual(['authenticated', 'anonymous']);
    for (const bad of ['anonymous', 'all', 'authenticated,none', 'yes']) {
      expect(() => loadConfig({ GATEWAY_USERS: bad })).toThrow(
        new RegExp(
          `^Invalid configuration:\\n  GATEWAY_USERS=${JSON.stringify(bad)}: use "none" \\(the default: no Supabase user reaches the gateway\\), "authenticated" .*"authenticated,anonymous" \\(anonymous sign-ins too\\)$`,
        ),
      );
    }
  });

  it('reads GATEWAY_MODELS_ONLY: bare names serve as themselves; without a list, or with "*", it refuses the start in one line', () => {
    const c = loadConfig({ GATEWAY_MODELS: 'gpt-4o-mini,fast=gpt-4o-mini', GATEWAY_MODELS_ONLY: 'true' }).gateway;
    expect(c).toMatchObject({ models: { 'gpt-4o-mini': 'gpt-4o-mini', fast: 'gpt-4o-mini' }, modelsOnly: true });
    expect(() => loadConfig({ GATEWAY_MODELS_ONLY: 'true' })).toThrow(
      /^Invalid configuration:\n {2}GATEWAY_MODELS_ONLY=true: GATEWAY_MODELS lists no model, so every request would be refused; list the names to serve/,
    );
    expect(() => loadConfig({ GATEWAY_MODELS_ONLY: 'true', GATEWAY_MODELS: 'a,*=b' })).toThrow(
      /GATEWAY_MODELS_ONLY=true: GATEWAY_MODELS has a "\*" entry, which serves every name/,
    );
  });

  it('refuses limits that are not positive whole numbers', () => {
    expect(() => loadConfig({ GATEWAY_RPM: '0' })).toThrow(/GATEWAY_RPM="0"/);
    expect(() => loadConfig({ GATEWAY_TOKENS_PER_DAY: 'lots' })).toThrow(/GATEWAY_TOKENS_PER_DAY="lots"/);
  });

  it('refuses short gateway keys, a mapping that is not pairs and more than 5 retries, saying what to write', () => {
    expect(() => loadConfig({ GATEWAY_KEYS: 'short' })).toThrow(/GATEWAY_KEYS="short": every key must be at least 16 characters/);
    expect(() => loadConfig({ GATEWAY_MODELS: 'a=b=c' })).toThrow(/GATEWAY_MODELS="a=b=c": write client=upstream pairs or bare model names/);
    expect(() => loadConfig({ GATEWAY_MODELS: 'a,*' })).toThrow(/GATEWAY_MODELS="a,\*": write client=upstream pairs/);
    expect(() => loadConfig({ GATEWAY_RETRIES: '9' })).toThrow(/GATEWAY_RETRIES="9"/);
  });
});

describe('approval settings', () => {
  it('default to no tool (with the demo model: delete_file, what its "demo approval" proposes) and 15 minutes; read names and globs, comma-separated', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'sk-test' }).approval).toEqual({ tools: [], timeoutMs: 900_000 });
    expect(loadConfig({}).approval).toEqual({ tools: ['delete_file'], timeoutMs: 900_000 });
    expect(loadConfig({ OPENAI_API_KEY: 'sk-test', DEMO_MODEL: 'true' }).approval.tools).toEqual(['delete_file']);
    expect(loadConfig({ APPROVAL_TOOLS: 'write_file' }).approval.tools).toEqual(['write_file']);
    const c = loadConfig({ APPROVAL_TOOLS: ' write_file, delete_file ,crm__*', APPROVAL_TIMEOUT_MS: '60000' });
    expect(c.approval).toEqual({ tools: ['write_file', 'delete_file', 'crm__*'], timeoutMs: 60_000 });
  });

  it('refuses what is not a name or glob, and a timeout out of range, saying what to write', () => {
    expect(() => loadConfig({ APPROVAL_TOOLS: 'write_file,crm.add' })).toThrow(
      /APPROVAL_TOOLS="write_file,crm.add": write tool names or globs, comma-separated/,
    );
    expect(() => loadConfig({ APPROVAL_TOOLS: 'a b' })).toThrow(/APPROVAL_TOOLS="a b"/);
    expect(() => loadConfig({ APPROVAL_TIMEOUT_MS: '999' })).toThrow(/APPROVAL_TIMEOUT_MS="999"/);
    expect(() => loadConfig({ APPROVAL_TIMEOUT_MS: 'soon' })).toThrow(/APPROVAL_TIMEOUT_MS="soon"/);
  });

  it("reads an MCP server's needsApproval, and refuses one that is not a boolean", () => {
    const server = { name: 'crm', url: 'https://crm.example/mcp' };
    expect(loadConfig({ MCP_SERVERS: JSON.stringify([{ ...server, needsApproval: true }]) }).mcp.servers[0]).toEqual({
      ...server,
      headers: {},
      needsApproval: true,
    });
    expect(loadConfig({ MCP_SERVERS: JSON.stringify([{ ...server, needsApproval: false }]) }).mcp.servers[0]).toEqual({ ...server, headers: {} });
    expect(() => loadConfig({ MCP_SERVERS: JSON.stringify([{ ...server, needsApproval: 'yes' }]) })).toThrow(
      /MCP_SERVERS\[0\]\.needsApproval: must be true .* or false; for some tools, use APPROVAL_TOOLS/,
    );
  });
});

describe('supabaseSettings', () => {
  it('reads the default entry of the new key dictionaries first, then the single keys, then the legacy JWT keys', () => {
    const all = {
      SUPABASE_URL: 'https://ref.supabase.co/',
      SUPABASE_SECRET_KEYS: '{"default":"sb_secret_a","other":"sb_secret_b"}',
      SUPABASE_SECRET_KEY: 'sb_secret_single',
      SUPABASE_SERVICE_ROLE_KEY: 'eyJ.service',
      SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_a"}',
      SUPABASE_ANON_KEY: 'eyJ.anon',
    };
    expect(supabaseSettings(all)).toEqual({
      url: 'https://ref.supabase.co',
      secretKey: 'sb_secret_a',
      publishableKey: 'sb_publishable_a',
      from: { secretKey: 'SUPABASE_SECRET_KEYS.default', publishableKey: 'SUPABASE_PUBLISHABLE_KEYS.default' },
    });
    const { SUPABASE_SECRET_KEYS: _s, SUPABASE_PUBLISHABLE_KEYS: _p, ...older } = all;
    expect(supabaseSettings(older)).toMatchObject({ secretKey: 'sb_secret_single', publishableKey: 'eyJ.anon' });
    expect(supabaseSettings({ SUPABASE_SERVICE_ROLE_KEY: 'eyJ.service' })).toMatchObject({
      secretKey: 'eyJ.service',
      from: { secretKey: 'SUPABASE_SERVICE_ROLE_KEY' },
    });
    expect(supabaseSettings({})).toEqual({ url: undefined, secretKey: undefined, publishableKey: undefined, from: {} });
  });

  it('refuses a dictionary that is not JSON or has no default, naming entries but never a value', () => {
    expect(() => supabaseSettings({ SUPABASE_SECRET_KEYS: 'sb_secret_oops' })).toThrow(ConfigError);
    expect(() => supabaseSettings({ SUPABASE_SECRET_KEYS: 'sb_secret_oops' })).toThrow(/SUPABASE_SECRET_KEYS: not valid JSON/);
    const noDefault = () => supabaseSettings({ SUPABASE_PUBLISHABLE_KEYS: '{"web":"sb_publishable_x"}' });
    expect(noDefault).toThrow(/needs a "default" entry .* \(it has "web"\); or set SUPABASE_PUBLISHABLE_KEY instead/);
    try {
      noDefault();
    } catch (err) {
      expect((err as Error).message).not.toContain('sb_publishable_x');
    }
  });

  it('reads STORAGE as memory or supabase only', () => {
    expect(loadConfig({ STORAGE: 'memory' }).storage).toBe('memory');
    expect(loadConfig({}).storage).toBeUndefined();
    expect(() => loadConfig({ STORAGE: 'disk' })).toThrow(/STORAGE="disk": use "supabase" .* or "memory"/);
  });
});
