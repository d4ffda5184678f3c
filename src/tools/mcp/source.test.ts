// The source's bookkeeping against an in-memory server (the real SDK client against a real server is
// tested in test/mcp/): caching per isolate, list_changed, the allowlist, failures as data.
import { describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../config.ts';
import type { ToolContext } from '../types.ts';
import { isDestructive } from 'rebound-gate';
import { InputRequired } from '../input.ts';
import { createMcpToolSource, DOWN_RETRY_FIRST_MS, DOWN_RETRY_MAX_MS } from './source.ts';
import type { McpSession, McpToolInfo, OpenSession, SessionOptions } from './session.ts';

const sum: McpToolInfo = {
  name: 'get-sum',
  description: 'Returns the sum',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
};
const echo: McpToolInfo = {
  name: 'echo',
  description: 'Echoes',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};
const task: McpToolInfo = { name: 'research', inputSchema: { type: 'object' }, taskSupport: 'required' };

/** A pretend server: counts what it was asked, can be switched off, can announce a new list. */
function fakeServer(tools: McpToolInfo[]) {
  const state = {
    up: true,
    opened: 0,
    closed: 0,
    lists: 0,
    calls: [] as Array<{ name: string; args: unknown }>,
    tools,
    changed: [] as SessionOptions['onToolsChanged'][],
    /** What the server speaks: 'modern' (2026-07-28) or 'legacy'. */
    era: 'legacy' as 'modern' | 'legacy',
    /** A 2026-07-28 list's ttlMs. */
    ttlMs: undefined as number | undefined,
    /** The prior each connection was opened with. */
    priors: [] as Array<SessionOptions['prior']>,
  };
  const open: OpenSession = async (_server, options) => {
    if (!state.up) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    state.opened++;
    state.priors.push(options.prior);
    state.changed.push(options.onToolsChanged);
    const modern = state.era === 'modern';
    const session: McpSession = {
      protocolVersion: modern ? '2026-07-28' : '2025-11-25',
      verdict: modern ? { kind: 'modern', discover: { supportedVersions: ['2026-07-28'] } } : { kind: 'legacy' },
      async listTools() {
        state.lists++;
        return { tools: state.tools, ...(modern && state.ttlMs !== undefined ? { ttlMs: state.ttlMs, cacheScope: 'private' as const } : {}) };
      },
      async callTool(name, args) {
        if (!state.up) throw new TypeError('fetch failed');
        state.calls.push({ name, args });
        if (name === 'echo') return { kind: 'result', result: { isError: true, content: [{ type: 'text', text: 'echo is broken today' }] } };
        return { kind: 'result', result: { content: [{ type: 'text', text: `The sum is ${(args.a as number) + (args.b as number)}.` }] } };
      },
      async close() {
        state.closed++;
      },
    };
    return session;
  };
  return { state, open };
}

const ctx = (signal = new AbortController().signal) => ({ signal }) as ToolContext;
const server = (extra: Partial<McpServerConfig> = {}): McpServerConfig => ({
  name: 'everything',
  url: 'http://127.0.0.1:9/mcp?key=secret',
  headers: {},
  ...extra,
});
const signal = () => new AbortController().signal;

describe('createMcpToolSource', () => {
  it('offers <server>__<tool> with the inputSchema unchanged, leaving out task-only tools', async () => {
    const { open } = fakeServer([sum, echo, task]);
    const source = createMcpToolSource({ servers: [server()], ttlMs: 60_000, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open });
    const set = await source.open({ signal: signal() });
    expect(set.tools.map((t) => [t.name, t.origin])).toEqual([
      ['everything__get-sum', { server: 'everything', tool: 'get-sum', protocolVersion: '2025-11-25' }],
      ['everything__echo', { server: 'everything', tool: 'echo', protocolVersion: '2025-11-25' }],
    ]);
    expect(set.tools[0]!.parameters).toBe(sum.inputSchema);
    expect(set.sources).toEqual([{ server: 'everything', url: 'http://127.0.0.1:9', ok: true, tools: 2, cached: false, protocolVersion: '2025-11-25' }]);
    await set.close();
  });

  it('carries the server’s annotations, MCP’s defaults for the rest: destructive unless read-only or destructiveHint false', async () => {
    const readOnly = { ...sum, annotations: { readOnlyHint: true } };
    const additive = { ...echo, name: 'add-note', annotations: { destructiveHint: false } };
    const { open } = fakeServer([readOnly, additive, echo]);
    const set = await createMcpToolSource({ servers: [server()], ttlMs: 60_000, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open }).open({
      signal: signal(),
    });
    expect(set.tools.map((t) => [t.name, t.annotations, isDestructive(t)])).toEqual([
      ['everything__get-sum', { readOnlyHint: true }, false],
      ['everything__add-note', { destructiveHint: false }, false],
      ['everything__echo', {}, true],
    ]);
    await set.close();
  });

  it('calls the server under its own tool name; isError and a lost server become thrown errors', async () => {
    const { open, state } = fakeServer([sum, echo]);
    const set = await createMcpToolSource({ servers: [server()], ttlMs: 60_000, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open }).open({
      signal: signal(),
    });
    const [sumTool, echoTool] = set.tools;
    expect(await sumTool!.run({ a: 2, b: 3 }, ctx())).toBe('The sum is 5.');
    await expect(echoTool!.run({ message: 'hi' }, ctx())).rejects.toThrow('echo is broken today');
    expect(state.calls).toEqual([
      { name: 'get-sum', args: { a: 2, b: 3 } },
      { name: 'echo', args: { message: 'hi' } },
    ]);
    expect(state.opened).toBe(1); // one session for the turn: the listing's
    state.up = false;
    await expect(sumTool!.run({ a: 1, b: 1 }, ctx())).rejects.toThrow(/the MCP server "everything" did not answer/);
    await expect(sumTool!.run({ a: 1, b: 1 }, ctx())).rejects.toThrow(/could not be reached \(fetch failed: connect ECONNREFUSED/);
    await set.close();
  });

  it('keeps a list for the TTL, connecting only when a turn calls, and closes what the turn opened', async () => {
    let t = 0;
    const { open, state } = fakeServer([sum]);
    const source = createMcpToolSource({ servers: [server()], ttlMs: 1_000, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open, now: () => t });
    await (await source.open({ signal: signal() })).close();
    expect([state.lists, state.opened, state.closed]).toEqual([1, 1, 1]);

    t = 500;
    const second = await source.open({ signal: signal() });
    expect(second.sources[0]).toMatchObject({ ok: true, cached: true });
    expect(state.opened).toBe(1); // nothing to ask the server yet
    await second.tools[0]!.run({ a: 1, b: 2 }, ctx());
    expect(state.opened).toBe(2);
    await second.close();
    expect(state.closed).toBe(2);

    t = 1_000;
    await (await source.open({ signal: signal() })).close();
    expect(state.lists).toBe(2);
  });

  it('takes a list announced by notifications/tools/list_changed for the next turn, or relists when it could not be fetched', async () => {
    const { open, state } = fakeServer([sum]);
    const source = createMcpToolSource({ servers: [server()], ttlMs: 60_000, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open });
    const first = await source.open({ signal: signal() });
    state.changed[0]!([sum, echo]);
    expect(first.tools.map((t) => t.name)).toEqual(['everything__get-sum']); // this turn keeps its tools
    await first.close();
    const second = await source.open({ signal: signal() });
    expect(second.tools.map((t) => t.name)).toEqual(['everything__get-sum', 'everything__echo']);
    expect(state.lists).toBe(1);
    await second.close();

    const third = await source.open({ signal: signal() });
    await third.tools[0]!.run({ a: 1, b: 1 }, ctx());
    state.changed.at(-1)!(null);
    await third.close();
    await (await source.open({ signal: signal() })).close();
    expect(state.lists).toBe(2);
  });

  it('an allowlist offers only its tools and reports the ones the server lacks', async () => {
    const { open } = fakeServer([sum, echo, task]);
    const set = await createMcpToolSource({
      servers: [server({ tools: ['echo', 'research', 'add'] })],
      ttlMs: 0,
      timeoutMs: 1_000,
      listTimeoutMs: 1_000,
      openSession: open,
    }).open({
      signal: signal(),
    });
    expect(set.tools.map((t) => t.name)).toEqual(['everything__echo']);
    expect(set.sources[0]).toMatchObject({ ok: true, tools: 1, notOffered: ['research', 'add'] });
    await set.close();
  });

  it('an unreachable server is left out with one log line (no secrets), the others still work', async () => {
    let t = 0;
    const down = fakeServer([echo]);
    down.state.up = false;
    const up = fakeServer([sum]);
    const lines: string[] = [];
    const open: OpenSession = (s, o) => (s.name === 'down' ? down.open(s, o) : up.open(s, o));
    const source = createMcpToolSource({
      servers: [server({ name: 'down', url: 'https://down.example/mcp?token=sk-secret', headers: { authorization: 'Bearer sk-secret' } }), server()],
      ttlMs: 60_000,
      timeoutMs: 1_000,
      listTimeoutMs: 1_000,
      openSession: open,
      log: (l) => lines.push(l),
      now: () => t,
    });
    const set = await source.open({ signal: signal() });
    expect(set.tools.map((t) => t.name)).toEqual(['everything__get-sum']);
    expect(set.sources[0]).toEqual({
      server: 'down',
      url: 'https://down.example',
      ok: false,
      error: 'fetch failed: connect ECONNREFUSED 127.0.0.1:9',
      retryAt: expect.any(String),
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/MCP server "down" \(https:\/\/down\.example\) could not list its tools: "fetch failed.*left out until it is asked again in 30 s/);
    expect(lines.join()).not.toContain('sk-secret');
    await set.close();
    // The failure is kept (issue 18): the next turn does not ask the server again before its retry time…
    down.state.up = true;
    const soon = await source.open({ signal: signal() });
    expect(soon.tools.map((t) => t.name)).toEqual(['everything__get-sum']);
    await soon.close();
    // …and does once it has come.
    t += DOWN_RETRY_FIRST_MS;
    const next = await source.open({ signal: signal() });
    expect(next.tools.map((t) => t.name).sort()).toEqual(['down__echo', 'everything__get-sum']);
    await next.close();
  });

  it('serverOf names the server of a tool, and of an invented name with a server prefix', async () => {
    const { open } = fakeServer([sum]);
    const set = await createMcpToolSource({ servers: [server()], ttlMs: 0, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open }).open({
      signal: signal(),
    });
    expect(set.serverOf('everything__get-sum')).toBe('everything');
    expect(set.serverOf('everything__add')).toBe('everything');
    expect(set.serverOf('crm__find')).toBeNull();
    expect(set.serverOf('read_file')).toBeNull();
    await set.close();
  });

  it('sanitises descriptions', async () => {
    const { open } = fakeServer([{ ...sum, description: `Adds\u0000\u202e numbers. ${'x'.repeat(5_000)}` }]);
    const set = await createMcpToolSource({ servers: [server()], ttlMs: 0, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open }).open({
      signal: signal(),
    });
    expect(set.tools[0]!.description!.startsWith('Adds numbers. xxx')).toBe(true);
    expect(set.tools[0]!.description!.length).toBe(1_000);
    await set.close();
  });

  it('a server that failed is remembered as down: not asked again before 30 s, then 60 s, … up to 5 minutes; back once it answers', async () => {
    const fake = fakeServer([sum]);
    fake.state.up = false;
    let t = 0;
    const source = createMcpToolSource({
      servers: [server()],
      ttlMs: 0,
      timeoutMs: 1_000,
      listTimeoutMs: 1_000,
      openSession: fake.open,
      log: () => {},
      now: () => t,
    });
    const attempts: number[] = [];
    let tries = 0;
    const counting: OpenSession = async (s, o) => {
      tries++;
      return fake.open(s, o);
    };
    const counted = createMcpToolSource({
      servers: [server()],
      ttlMs: 0,
      timeoutMs: 1_000,
      listTimeoutMs: 1_000,
      openSession: counting,
      log: () => {},
      now: () => t,
    });
    for (let k = 0; k < 6; k++) {
      const before = tries;
      const set = await counted.open({ signal: signal() });
      expect(set.sources[0]).toMatchObject({ ok: false });
      expect(tries).toBe(before + 1);
      const retryAt = Date.parse((set.sources[0] as { retryAt: string }).retryAt);
      attempts.push(retryAt - t);
      // Just before the retry time: left out at once, the server not asked.
      t = retryAt - 1;
      await counted.open({ signal: signal() });
      expect(tries).toBe(before + 1);
      t = retryAt;
    }
    expect(attempts).toEqual([DOWN_RETRY_FIRST_MS, 60_000, 120_000, 240_000, DOWN_RETRY_MAX_MS, DOWN_RETRY_MAX_MS]);
    fake.state.up = true;
    expect((await counted.open({ signal: signal() })).tools.map((x) => x.name)).toEqual(['everything__get-sum']);
    expect((await source.open({ signal: signal() })).sources[0]).toMatchObject({ ok: true });
  });

  it('a listing that never answers is given up on after listTimeoutMs, even when the session ignores its signal', async () => {
    const hanging: OpenSession = async () => ({
      protocolVersion: undefined,
      verdict: undefined,
      listTools: () => new Promise<never>(() => {}),
      callTool: () => new Promise<never>(() => {}),
      close: async () => {},
    });
    const set = await createMcpToolSource({ servers: [server()], ttlMs: 0, timeoutMs: 60_000, listTimeoutMs: 50, openSession: hanging, log: () => {} }).open({
      signal: signal(),
    });
    expect(set.sources[0]).toMatchObject({ ok: false, error: 'no answer within 50 ms (MCP_LIST_TIMEOUT_MS)' });
  });

  it('a 2026-07-28 list is kept for its ttlMs when shorter than MCP_TOOLS_TTL_S; 0 lists at every turn', async () => {
    const { state, open } = fakeServer([sum]);
    state.era = 'modern';
    state.ttlMs = 1_000;
    let t = 0;
    const source = createMcpToolSource({ servers: [server()], ttlMs: 60_000, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open, now: () => t });
    await (await source.open({ signal: signal() })).close();
    t = 999;
    expect((await source.open({ signal: signal() })).sources[0]).toMatchObject({ cached: true, protocolVersion: '2026-07-28' });
    t = 1_000;
    expect((await source.open({ signal: signal() })).sources[0]).toMatchObject({ cached: false });
    expect(state.lists).toBe(2);
    state.ttlMs = 0;
    t = 2_000;
    await source.open({ signal: signal() });
    await source.open({ signal: signal() });
    expect(state.lists).toBe(4);
  });

  it('what a server speaks is handed to the next connection: a 2026-07-28 verdict always, a 2025 one only while its list is kept', async () => {
    const modern = fakeServer([sum]);
    modern.state.era = 'modern';
    const source = createMcpToolSource({ servers: [server()], ttlMs: 0, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: modern.open });
    await (await source.open({ signal: signal() })).close();
    const set = await source.open({ signal: signal() });
    await set.tools[0]!.run({ a: 2, b: 3 }, ctx());
    expect(modern.state.priors).toEqual([undefined, { kind: 'modern', discover: { supportedVersions: ['2026-07-28'] } }]);

    const legacy = fakeServer([sum]);
    const kept = createMcpToolSource({ servers: [server()], ttlMs: 60_000, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: legacy.open });
    await (await kept.open({ signal: signal() })).close();
    const turn = await kept.open({ signal: signal() });
    await turn.tools[0]!.run({ a: 2, b: 3 }, ctx());
    // Listed by probing; the call (its list kept) connects as a 2025 client straight away.
    expect(legacy.state.priors).toEqual([undefined, { kind: 'legacy' }]);
  });

  it('a tool with an outputSchema: a fitting structuredContent is the value, a misfit or a missing one is an error', async () => {
    const withOutput: McpToolInfo = { ...sum, outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } };
    const answers = [{ sum: 5 }, { sum: '5' }, undefined];
    const open: OpenSession = async () => ({
      protocolVersion: '2026-07-28',
      verdict: undefined,
      listTools: async () => ({ tools: [withOutput] }),
      callTool: async () => {
        const structuredContent = answers.shift();
        return { kind: 'result', result: { content: [{ type: 'text', text: 'five' }], ...(structuredContent ? { structuredContent } : {}) } };
      },
      close: async () => {},
    });
    const set = await createMcpToolSource({ servers: [server()], ttlMs: 0, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open }).open({
      signal: signal(),
    });
    const run = () => set.tools[0]!.run({ a: 2, b: 3 }, ctx());
    expect(await run()).toEqual({ sum: 5 });
    await expect(run()).rejects.toThrow(/does not match the output schema of "get-sum": \$\.sum: .*number/);
    await expect(run()).rejects.toThrow(/sent no structuredContent/);
  });

  it('an input_required becomes the person’s question: a form, a URL (shown, never fetched), or an error the model reads', async () => {
    const ask = (inputRequests: Record<string, unknown>) => {
      const open: OpenSession = async () => ({
        protocolVersion: '2026-07-28',
        verdict: undefined,
        listTools: async () => ({ tools: [sum] }),
        callTool: async () => ({ kind: 'input_required', inputRequests, requestState: 'st-1' }),
        close: async () => {},
      });
      return createMcpToolSource({ servers: [server()], ttlMs: 0, timeoutMs: 1_000, listTimeoutMs: 1_000, openSession: open })
        .open({ signal: signal() })
        .then((set) => set.tools[0]!.run({ a: 2, b: 3 }, ctx()));
    };
    const form = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };
    expect(await ask({ c: { method: 'elicitation/create', params: { mode: 'form', message: 'Sure?', requestedSchema: form } } })).toEqual(
      new InputRequired({ server: 'everything', tool: 'get-sum', key: 'c', mode: 'form', message: 'Sure?', requestedSchema: form, requestState: 'st-1' }),
    );
    expect(await ask({ u: { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.test/login' } } })).toMatchObject({
      question: { mode: 'url', url: 'https://example.test/login', key: 'u' },
    });
    await expect(ask({ u: { method: 'elicitation/create', params: { mode: 'url', message: 'Run', url: 'javascript:alert(1)' } } })).rejects.toThrow(
      /without an http\(s\) URL/,
    );
    await expect(
      ask({ u: { method: 'elicitation/create', params: { mode: 'url', message: 'Go', url: `https://example.test/${'x'.repeat(3_000)}` } } }),
    ).rejects.toThrow(/URL is 3021 characters \(at most 2048\)/);
    await expect(ask({ s: { method: 'sampling/createMessage', params: {} } })).rejects.toThrow(/only elicitation is declared/);
    await expect(
      ask({ c: { method: 'elicitation/create', params: { message: 'Deep?', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } } } }),
    ).rejects.toThrow(/form cannot be shown/);
    await expect(
      ask({
        a: { method: 'elicitation/create', params: { message: 'one', requestedSchema: form } },
        b: { method: 'elicitation/create', params: { message: 'two', requestedSchema: form } },
      }),
    ).rejects.toThrow(/2 requests at once/);
  });
});
