// Issue 18 item 2: a tool schema's shape must not multiply the gate's work. Schemas past the gate's
// schema limits (docs/configuration.md § Limits) are handled by where they came from: a gateway request's tool is
// forwarded ungated (never a 4xx/5xx; its calls' verdict `none`; the reason logged once), an MCP
// server's tool is left out at listing time (with the reason, in GET /v1/tools), a tool in functions/
// stops the server from starting. Within the limits the gate checks and repairs as usual. Real parts:
// the gateway behind the `openai` package, an MCP server of the test's own over HTTP.
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../../src/config.ts';
import { MAX_SCHEMA_DEPTH } from 'rebound-gate';
import { createApp } from '../../src/http/app.ts';
import { defineTool } from '../../src/tools/define.ts';
import { mcpToolSource } from '../../src/tools/mcp/index.ts';
import { defaultTools } from '../../functions/index.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { chat } from '../support/sse-client.ts';
import { ASK, TOOLS, fold, startGateway, type Gateway } from '../gateway/harness.ts';
import { startHostileMcp, type HostileServer } from './hostile-mcp-server.ts';
import { depthOf } from '../support/json-depth.ts';

/** `levels` nested anyOf around an integer: `{anyOf: [{type: null}, {anyOf: [… {type: integer}]}]}`. */
function nestedAnyOf(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'integer' };
  for (let i = 0; i < levels; i++) s = { anyOf: [{ type: 'null' }, s] };
  return s;
}

const listOf = (items: Record<string, unknown>) => ({ type: 'object', properties: { list: { type: 'array', items } }, required: ['list'] });

let gw: Gateway | undefined;
let mcp: HostileServer | undefined;
let upstream: ScriptedServer | undefined;
let app: TestApp | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await gw?.close();
  await app?.close();
  await upstream?.close();
  await mcp?.stop();
  gw = app = upstream = mcp = undefined;
});

describe('a gateway request whose tool schema is past the limits', () => {
  // 1,000 levels: as deep as the openai package itself can serialise (JSON.stringify); deeper below, by fetch.
  const deep = {
    type: 'function' as const,
    function: { name: 'deep_list', description: 'A list of 1,000 nested anyOf', parameters: listOf(nestedAnyOf(1_000)) },
  };
  // 60 items for the deep tool, and a call to another tool under a misspelt name: nothing is gated.
  const calls = [
    { id: 'call_deep', name: 'deep_list', arguments: JSON.stringify({ list: Array.from({ length: 60 }, (_, i) => String(i)) }) },
    { id: 'call_weather', name: 'getWeather', arguments: '{"city": "Paris", "days": "3"}' },
  ];

  it('is forwarded ungated: 200, the calls as the model wrote them, verdict none, the reason logged once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    gw = await startGateway(() => ({ toolCalls: calls }));
    const { data, response } = await gw.openai.chat.completions.create({ model: 'm', messages: ASK, tools: [deep, ...TOOLS] }).withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-rebound-verdict')).toBe('none');
    expect(data.choices[0]!.message.tool_calls!.map((c) => (c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : []))).toEqual(
      calls.map((c) => [c.id, c.name, c.arguments]),
    );
    // The upstream got the tool whole: 1,000 levels of anyOf are 2,000 levels of JSON and more.
    const sent = gw.upstream.requests[0]!.tools!.find((t) => t.function.name === 'deep_list')!;
    expect(depthOf(sent.function.parameters)).toBeGreaterThan(2_000);
    const lines = warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('forwarded ungated'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"deep_list"');
    expect(lines[0]).toContain(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    expect(gw.app.activity.calls).toHaveLength(0);
  }, 30_000);

  it('streaming too: the calls go out as they came', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    gw = await startGateway(() => ({ toolCalls: calls }));
    const { data, response } = await gw.openai.chat.completions.create({ model: 'm', messages: ASK, tools: [deep, ...TOOLS], stream: true }).withResponse();
    const chunks = [];
    for await (const chunk of data) chunks.push(chunk);
    expect(response.status).toBe(200);
    expect(fold(chunks).calls.map((c) => [c.name, c.arguments])).toEqual(calls.map((c) => [c.name, c.arguments]));
  }, 30_000);

  it('nested 2,500 levels (past what JSON.stringify can write): still forwarded, not a 500', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    gw = await startGateway(() => ({ toolCalls: [calls[0]!] }));
    const levels = 2_500;
    const schema = `{"type":"object","properties":{"list":{"type":"array","items":${'{"anyOf":[{"type":"null"},'.repeat(levels)}{"type":"integer"}${']}'.repeat(levels)}}}}`;
    const tool = `{"type":"function","function":{"name":"deep_list","parameters":${schema}}}`;
    const body = `{"model":"m","messages":${JSON.stringify(ASK)},"tools":[${tool}]}`;
    const res = await fetch(`${gw.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-rebound-verdict')).toBe('none');
    const sent = gw.upstream.requests[0]!.tools![0]!;
    expect(depthOf(sent.function.parameters)).toBeGreaterThan(2 * levels);
  }, 30_000);

  it.each([
    [
      '/messages',
      (schema: string) => `{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"go"}],"tools":[{"name":"deep_list","input_schema":${schema}}]}`,
    ],
    ['/responses', (schema: string) => `{"model":"m","input":"go","tools":[{"type":"function","name":"deep_list","parameters":${schema}}]}`],
    ['/responses', (schema: string) => `{"model":"m","input":"go","stream":true,"tools":[{"type":"function","name":"deep_list","parameters":${schema}}]}`],
  ])(
    'through %s, nested 2,500 levels: still forwarded to the chat upstream and answered, not a 500',
    async (path, bodyOf) => {
      vi.spyOn(console, 'warn').mockImplementation(() => {});
      gw = await startGateway(() => ({ toolCalls: [calls[0]!] }));
      const levels = 2_500;
      const schema = `{"type":"object","properties":{"list":{"type":"array","items":${'{"anyOf":[{"type":"null"},'.repeat(levels)}{"type":"integer"}${']}'.repeat(levels)}}}}`;
      const res = await fetch(`${gw.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodyOf(schema) });
      expect(res.status).toBe(200);
      // The answer, whole or streamed, echoes the schema (Responses) and carries the call as the model wrote it.
      const answer = await res.text();
      expect(answer).toContain('call_deep');
      expect(answer).not.toContain('event: error');
      const sent = gw.upstream.requests[0]!.tools![0]!;
      expect(depthOf(sent.function.parameters)).toBeGreaterThan(2 * levels);
    },
    30_000,
  );

  it('within the limits, the same shape is gated: items under the deepest anyOf allowed are repaired', async () => {
    const levels = Math.floor((MAX_SCHEMA_DEPTH - 4) / 2);
    const fits = { type: 'function' as const, function: { name: 'deep_list', parameters: listOf(nestedAnyOf(levels)) } };
    const list = Array.from({ length: 5_000 }, (_, i) => String(i));
    gw = await startGateway(() => ({ toolCalls: [{ id: 'call_deep', name: 'deep_list', arguments: JSON.stringify({ list }) }] }));
    const { data, response } = await gw.openai.chat.completions.create({ model: 'm', messages: ASK, tools: [fits] }).withResponse();
    expect(response.headers.get('x-rebound-verdict')).toBe('repaired');
    const call = data.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ list: list.map(Number) });
  }, 30_000);
});

describe("an MCP server's tool whose schema is past the limits", () => {
  it("is left out at listing time, with the reason in GET /v1/tools; the server's other tools are offered", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    mcp = await startHostileMcp({
      list: 'answer',
      tools: [
        { name: 'deep', inputSchema: listOf(nestedAnyOf(2_000)) },
        { name: 'wide', inputSchema: listOf({ anyOf: Array.from({ length: 40 }, (_, i) => ({ const: i })) }) },
        { name: 'fine', inputSchema: listOf(nestedAnyOf(3)) },
      ],
    });
    upstream = await startScriptedOpenAI((_req, i) =>
      i === 0 ? { toolCalls: [{ id: 'c1', name: 'evil__fine', arguments: '{"list": ["1", null]}' }] } : { text: 'done' },
    );
    const vars = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url, MODEL: 'm', MCP_SERVERS: JSON.stringify([{ name: 'evil', url: mcp.url }]) };
    app = await startApp(vars, { toolSource: mcpToolSource(loadConfig(vars)) });

    const listed = (await (await fetch(`${app.url}/v1/tools`)).json()) as { tools: Array<{ name: string }>; servers: Array<Record<string, any>> };
    expect(listed.tools.map((t) => t.name).filter((n) => n.startsWith('evil__'))).toEqual(['evil__fine']);
    expect(listed.servers[0]).toMatchObject({ server: 'evil', ok: true, tools: 1 });
    expect(listed.servers[0]!.unreadable).toEqual([
      { tool: 'deep', reason: expect.stringContaining(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`) },
      { tool: 'wide', reason: expect.stringContaining('more than 32 subschemas') },
    ]);
    expect(warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('is left out'))).toHaveLength(2);

    const res = await chat(app.url, { message: 'go' });
    expect(upstream.requests[0]!.tools!.map((t) => t.function.name).filter((n) => n.startsWith('evil__'))).toEqual(['evil__fine']);
    const result = res.events.find((e) => e.event === 'tool_result')!.data as Record<string, unknown>;
    expect(result).toMatchObject({ name: 'evil__fine', verdict: 'repaired', ok: true });
  }, 30_000);
});

describe("an MCP server's tool nested 50,000 levels (past what JSON.stringify or any recursive walk can read)", () => {
  // The MCP client walks a listing with recursive zod schemas (2025) and a recursive x-mcp-header scan
  // (2026-07-28): the tool is cut to the gate's depth before it does (src/tools/mcp/listing-depth.ts).
  it.each(['legacy', 'modern'] as const)(
    '%s server: that tool is left out with the reason, the server stays up with its other tools',
    async (era) => {
      vi.spyOn(console, 'warn').mockImplementation(() => {});
      const levels = 50_000;
      const items = `${'{"anyOf":[{"type":"null"},'.repeat(levels)}{"type":"integer"}${']}'.repeat(levels)}`;
      mcp = await startHostileMcp({
        list: 'answer',
        era,
        tools: [
          { name: 'deep', inputSchema: null, inputSchemaText: `{"type":"object","properties":{"list":{"type":"array","items":${items}}}}` },
          { name: 'fine', inputSchema: listOf(nestedAnyOf(3)) },
        ],
      });
      const vars = {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: 'http://127.0.0.1:9',
        MODEL: 'm',
        MCP_SERVERS: JSON.stringify([{ name: 'evil', url: mcp.url }]),
      };
      app = await startApp(vars, { toolSource: mcpToolSource(loadConfig(vars)) });
      const listed = (await (await fetch(`${app.url}/v1/tools`)).json()) as { tools: Array<{ name: string }>; servers: Array<Record<string, any>> };
      expect(listed.tools.map((t) => t.name).filter((n) => n.startsWith('evil__'))).toEqual(['evil__fine']);
      expect(listed.servers[0]).toMatchObject({ server: 'evil', ok: true, tools: 1 });
      expect(listed.servers[0]!.unreadable).toEqual([{ tool: 'deep', reason: expect.stringContaining(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`) }]);
      // The era the client spoke: 2026-07-28 asks server/discover and never initialize.
      expect([mcp.count('initialize'), mcp.count('tools/list')]).toEqual([era === 'modern' ? 0 : 1, 1]);
    },
    30_000,
  );
});

describe('a tool in functions/ whose schema is past the limits', () => {
  it('stops the server from starting, naming the tool', () => {
    let schema: z.ZodType = z.number();
    for (let i = 0; i < MAX_SCHEMA_DEPTH; i++) schema = z.object({ inner: schema });
    const tooDeep = defineTool({
      name: 'nest_egg',
      description: 'Nested too deep',
      schema: z.object({ egg: schema }),
      annotations: { readOnlyHint: true },
      run: async () => 'ok',
    });
    const config = loadConfig({});
    const deps = { config, tools: [...defaultTools, tooDeep] } as unknown as Parameters<typeof createApp>[0];
    expect(() => createApp(deps)).toThrow(/the tool "nest_egg" \(functions\/\) cannot be served: its parameters schema nests deeper than 32 levels/);
  });
});
