// Traces of the gateway: a request is a `chat {model}` server span under the caller's span, each
// upstream attempt a client span under it carrying its own traceparent upstream, and every gated call
// of the answer a guardrail result event with the gate's verdict. Read as a loopback OTLP endpoint
// decodes them (test/support/otlp-collector.ts), with the `openai` package as the client.
import { afterEach, describe, expect, it } from 'vitest';
import { startCollector, type Collector } from '../support/otlp-collector.ts';
import { ASK, TOOLS, startGateway, type Gateway } from '../gateway/harness.ts';
import { startScriptedAnthropic, type NativeServer } from '../support/scripted-native.ts';

let gw: Gateway | undefined;
let collector: Collector | undefined;
afterEach(async () => {
  await gw?.close();
  await collector?.close();
  gw = collector = undefined;
});

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER = 'b7ad6b7169203331';

describe('tracing the gateway', () => {
  it('traces a request whose blocked call is re-asked: the request span, an attempt span per upstream call, the verdicts', async () => {
    collector = await startCollector();
    gw = await startGateway(
      (_req, i) =>
        i === 0
          ? { toolCalls: [{ id: 'call_bad', name: 'get_weather', arguments: '{"units": "c"}' }], usage: { prompt_tokens: 50, completion_tokens: 10 } }
          : { toolCalls: [{ id: 'call_good', name: 'get_weather', arguments: '{"city": "Paris", "units": "c"}' }] },
      { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '50' },
    );
    const { response } = await gw.openai.chat.completions
      .create({ model: 'client-model', messages: ASK, tools: TOOLS }, { headers: { traceparent: `00-${TRACE}-${CALLER}-01` } })
      .withResponse();
    expect(response.headers.get('x-rebound-attempts')).toBe('2');
    const spans = await collector.waitFor((s) => s.some((x) => x.kind === 2));
    const request = spans.find((s) => s.kind === 2)!;
    expect(request).toMatchObject({ name: 'chat client-model', traceId: TRACE, parentSpanId: CALLER });
    expect(request.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'client-model',
      'rebound.gateway.upstream_model': 'client-model',
      'rebound.gate.verdict': 'pass',
      'rebound.gateway.attempts': 2,
      'http.response.status_code': 200,
    });
    const verdicts = request.events.filter((e) => e.name === 'gen_ai.guardrail.result').map((e) => e.attributes);
    expect(verdicts.map((v) => [v['gen_ai.tool.call.id'], v['rebound.gate.verdict'], v['rebound.gateway.attempt']])).toEqual([
      ['call_bad', 'blocked', 1],
      ['call_good', 'pass', 2],
    ]);
    expect(request.events.filter((e) => e.name === 'rebound.gateway.retry').map((e) => e.attributes)).toEqual([{ 'rebound.retry.attempt': 2 }]);
    const attempts = spans.filter((s) => s.parentSpanId === request.spanId);
    expect(attempts.map((a) => [a.name, a.kind])).toEqual([
      ['chat client-model', 3],
      ['chat client-model', 3],
    ]);
    expect(gw.upstream.traceparents).toEqual(attempts.map((a) => `00-${TRACE}-${a.spanId}-01`));
    expect(JSON.stringify(spans)).not.toContain('Paris');
  });

  it('marks an upstream error on the request span', async () => {
    collector = await startCollector();
    gw = await startGateway(() => ({ status: 429, message: 'slow down' }), { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
    await expect(gw.openai.chat.completions.create({ model: 'm', messages: ASK, tools: TOOLS })).rejects.toThrow();
    const spans = await collector.waitFor((s) => s.some((x) => x.kind === 2));
    const request = spans.find((s) => s.kind === 2)!;
    expect(request.attributes).toMatchObject({ 'http.response.status_code': 429, 'rebound.gate.verdict': 'none' });
    const [attempt] = spans.filter((s) => s.parentSpanId === request.spanId);
    expect(attempt!.attributes['error.type']).toBe('429');
    expect(attempt!.status.code).toBe(2);
  });

  it("names the protocol on the request span, and the native upstream's provider on the attempt span", async () => {
    collector = await startCollector();
    const anthropic: NativeServer = await startScriptedAnthropic(() => ({ text: 'Sunny.' }));
    try {
      gw = await startGateway(() => ({ text: 'Sunny.' }), {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
        MESSAGES_UPSTREAM: 'anthropic',
        ANTHROPIC_BASE_URL: anthropic.url,
        ANTHROPIC_API_KEY: 'sk-ant',
      });
      const post = (path: string, body: unknown) =>
        fetch(`${gw!.app.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify(body) });
      expect((await post('/v1/messages', { model: 'claude-m', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
      expect((await post('/v1/responses', { model: 'gpt-m', input: 'hi' })).status).toBe(200);
      const spans = await collector.waitFor((s) => s.filter((x) => x.kind === 2).length === 2);
      const requests = spans.filter((s) => s.kind === 2);
      const byProtocol = Object.fromEntries(requests.map((r) => [r.attributes['rebound.gateway.protocol'], r]));
      expect(Object.keys(byProtocol).sort()).toEqual(['messages', 'responses']);
      const providerOf = (r: (typeof requests)[number]) => spans.find((s) => s.parentSpanId === r.spanId)!.attributes['gen_ai.provider.name'];
      expect(providerOf(byProtocol.messages!)).toBe('anthropic');
      expect(providerOf(byProtocol.responses!)).toBe('openai');
    } finally {
      await anthropic.close();
    }
  });
});
