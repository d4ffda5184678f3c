// An MCP tool's call in a trace: the execute_tool span carries the MCP conventions' attributes, and the
// call reaches the server (@modelcontextprotocol/server-everything behind a recording proxy) with the
// span's traceparent, as an HTTP header and in params._meta.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { mcpToolSource } from '../../src/tools/mcp/index.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { startEverything, type RunningMcp } from '../support/mcp-servers.ts';
import { startCollector, type Collector } from '../support/otlp-collector.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { chat } from '../support/sse-client.ts';

let everything: RunningMcp;
let collector: Collector;
let upstream: ScriptedServer;
let app: TestApp;

beforeAll(async () => {
  everything = await startEverything();
  collector = await startCollector();
  upstream = await startScriptedOpenAI((req) =>
    req.messages.some((m) => m.role === 'tool')
      ? { text: 'The sum is 5.' }
      : { toolCalls: [{ id: 'call_sum', name: 'everything__get-sum', arguments: '{"a":2,"b":3}' }] },
  );
  const vars = {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: upstream.url,
    MODEL: 'scripted-1',
    MCP_SERVERS: JSON.stringify([{ name: 'everything', url: everything.url }]),
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
  app = await startApp(vars, { toolSource: mcpToolSource(loadConfig(vars)) });
}, 40_000);
afterAll(async () => {
  await app?.close();
  await upstream?.close();
  await collector?.close();
  await everything?.stop();
});

describe('an MCP tool in a trace', () => {
  it('its execute_tool span has the MCP attributes, and the server gets the span as traceparent (header and _meta)', async () => {
    const before = everything.toolCalls().length;
    const res = await chat(app.url, { message: 'add 2 and 3' });
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
    const spans = await collector.waitFor((s) => s.some((x) => x.name.startsWith('invoke_agent')));
    const call = spans.find((s) => s.name.startsWith('execute_tool'))!;
    expect(call.name).toBe('execute_tool everything__get-sum');
    expect(call.attributes).toMatchObject({
      'gen_ai.tool.name': 'everything__get-sum',
      'gen_ai.tool.type': 'extension',
      'mcp.method.name': 'tools/call',
      'rebound.mcp.server': 'everything',
      'rebound.mcp.tool': 'get-sum',
      'rebound.gate.verdict': 'pass',
      'rebound.call.outcome': 'executed',
    });
    const expected = `00-${call.traceId}-${call.spanId}-01`;
    expect(everything.toolCalls().slice(before)).toEqual([
      { method: 'tools/call', tool: 'get-sum', arguments: { a: 2, b: 3 }, traceparent: expected, metaTraceparent: expected },
    ]);
  });
});
