// An MCP tool's call in a trace: the execute_tool span carries the MCP conventions' attributes, and the
// call reaches the server (@modelcontextprotocol/server-everything behind a recording proxy) with the
// span's traceparent, as an HTTP header and in params._meta.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { mcpToolSource } from '../../src/tools/mcp/index.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { startEverything, type RunningMcp } from '../support/mcp-servers.ts';
import { type RunningV2, startV2Server } from '../support/mcp-v2-servers.ts';
import { startCollector, type Collector } from '../support/otlp-collector.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { chat, openStream } from '../support/sse-client.ts';

let everything: RunningMcp;
let shop: RunningV2;
let collector: Collector;
let upstream: ScriptedServer;
let app: TestApp;

beforeAll(async () => {
  everything = await startEverything();
  shop = await startV2Server({ legacy: 'reject' });
  collector = await startCollector();
  upstream = await startScriptedOpenAI((req) =>
    req.messages.some((m) => m.role === 'tool')
      ? { text: 'Done.' }
      : req.messages.some((m) => m.role === 'user' && String(m.content).startsWith('order'))
        ? { toolCalls: [{ id: 'call_order', name: 'shop__confirm_order', arguments: '{"item":"mug"}' }] }
        : { toolCalls: [{ id: 'call_sum', name: 'everything__get-sum', arguments: '{"a":2,"b":3}' }] },
  );
  const vars = {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: upstream.url,
    MODEL: 'scripted-1',
    MCP_SERVERS: JSON.stringify([
      { name: 'everything', url: everything.url },
      { name: 'shop', url: shop.url },
    ]),
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
  await shop?.stop();
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
      'mcp.protocol.version': '2025-11-25',
      'rebound.gate.verdict': 'pass',
      'rebound.call.outcome': 'executed',
    });
    const expected = `00-${call.traceId}-${call.spanId}-01`;
    expect(everything.toolCalls().slice(before)).toEqual([
      { method: 'tools/call', tool: 'get-sum', arguments: { a: 2, b: 3 }, traceparent: expected, metaTraceparent: expected },
    ]);
  });

  it('a server’s question: the paused call’s span says asked, the call sent again says accept, both at 2026-07-28, and the answer carries the trace context in _meta', async () => {
    const created = await fetch(`${app.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message": "order a mug"}' });
    const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
    const stream = await openStream(app.url + streamUrl);
    const asked = await stream.until((e) => e.event === 'input_required');
    const res = await fetch(`${app.url}/v1/turns/${turnId}/inputs/${asked.data.inputId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'accept', content: { confirm: true } }),
    });
    expect(res.status).toBe(202);
    await stream.until((e) => e.event === 'done');
    const spans = await collector.waitFor((s) => s.filter((x) => x.attributes['rebound.mcp.elicitation'] !== undefined).length >= 2);
    const order = spans.filter((x) => x.attributes['rebound.mcp.elicitation'] !== undefined);
    expect(order.map((x) => x.attributes['rebound.mcp.elicitation'])).toEqual(['asked', 'accept']);
    for (const x of order)
      expect(x.attributes).toMatchObject({ 'mcp.protocol.version': '2026-07-28', 'rebound.mcp.server': 'shop', 'rebound.mcp.tool': 'confirm_order' });
    const again = shop.toolCalls('confirm_order').at(-1)!;
    expect(again.metaTraceparent).toBe(`00-${order[1]!.traceId}-${order[1]!.spanId}-01`);
  });
});
