// Traces of a turn on Node: the app on @hono/node-server, the scripted upstream, and the spans as an
// OTLP/HTTP endpoint on loopback receives them, decoded with protobufjs and the opentelemetry-proto
// files (or JSON.parse for http/json), never with the exporter's own code.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startApp, type TestApp } from '../support/app-server.ts';
import { startCollector, type CollectedSpan, type Collector } from '../support/otlp-collector.ts';
import { startScriptedOpenAI, type Script, type ScriptedServer } from '../support/scripted-openai.ts';
import { chat, shape } from '../support/sse-client.ts';
import type { Tool } from '../../src/tools/types.ts';
import { freePort } from '../support/ports.ts';

let upstream: ScriptedServer | undefined;
let app: TestApp | undefined;
let collector: Collector | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await app?.close();
  await upstream?.close();
  await collector?.close();
  app = upstream = collector = undefined;
});

const echo: Tool = {
  name: 'echo_text',
  description: 'Echoes its input',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  run: async (args) => ({ echoed: args.text }),
};

/** One answer with three calls (executed as proposed, repaired then executed, blocked), then a reply. */
const threeCalls: Script = (req) =>
  !afterTools(req)
    ? {
        text: 'Working on it.',
        toolCalls: [
          { id: 'call_pass', name: 'echo_text', arguments: '{"text":"the secret words"}' },
          { id: 'call_repaired', name: 'echo_tex', arguments: '{"text":"more secret words"}' },
          { id: 'call_blocked', name: 'echo_text', arguments: '{"txt_missing":"secret again"}' },
        ],
      }
    : { text: 'All done.' };

/** Whether the turn's calls were answered already: a tool message after the turn's own user message. */
function afterTools(req: Parameters<Script>[0]): boolean {
  const start = req.messages.findLastIndex((m) => m.role === 'user' && m.content === 'echo please');
  return req.messages.slice(start).some((m) => m.role === 'tool');
}

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

async function setup(script: Script, env: Record<string, string> = {}) {
  collector ??= await startCollector();
  upstream = await startScriptedOpenAI(script);
  app = await startApp(
    {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: upstream.url,
      MODEL: 'scripted-1',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      ...env,
    },
    { tools: [echo] },
  );
  return { app, upstream, collector };
}

const byName = (spans: CollectedSpan[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));
const turnDone = (spans: CollectedSpan[]) => byName(spans, 'invoke_agent').length > 0;

describe('tracing a turn (Node)', () => {
  it('continues the caller trace: invoke_agent → chat and execute_tool spans with the gate verdict of a passed, a repaired and a blocked call', async () => {
    const { app, upstream, collector } = await setup(threeCalls);
    const res = await chat(app.url, { message: 'echo please' }, { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: 'vendor=x' } });
    expect(shape(res.events)).toEqual([
      'turn_start',
      'text_delta',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'text_delta',
      'done',
    ]);
    const spans = await collector.waitFor(turnDone);

    const [turn] = byName(spans, 'invoke_agent');
    expect(turn).toMatchObject({
      name: 'invoke_agent rebound',
      kind: 1,
      traceId: CALLER_TRACE,
      parentSpanId: CALLER_SPAN,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'rebound',
        'gen_ai.conversation.id': (res.events[0]!.data as { sessionId: string }).sessionId,
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'scripted-1',
        'gen_ai.usage.input_tokens': 200,
        'gen_ai.usage.output_tokens': 40,
        'rebound.turn.reason': 'completed',
        'rebound.turn.iterations': 2,
      },
    });
    expect(turn!.resource['service.name']).toBe('rebound');

    const chats = byName(spans, 'chat ');
    expect(chats.map((s) => s.name)).toEqual(['chat scripted-1', 'chat scripted-1']);
    for (const c of chats) {
      expect(c).toMatchObject({ kind: 3, traceId: CALLER_TRACE, parentSpanId: turn!.spanId });
      expect(c.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'scripted-1',
        'gen_ai.response.model': 'scripted-1',
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 20,
        'server.address': '127.0.0.1',
        'rebound.model.attempts': 1,
      });
    }
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']]);
    // The upstream saw each model call's own span as its parent.
    expect(upstream.traceparents).toEqual(chats.map((c) => `00-${CALLER_TRACE}-${c.spanId}-01`));

    const calls = byName(spans, 'execute_tool');
    expect(calls.map((s) => [s.name, s.attributes['gen_ai.tool.call.id'], s.attributes['rebound.gate.verdict'], s.attributes['rebound.call.outcome']])).toEqual(
      [
        ['execute_tool echo_text', 'call_pass', 'pass', 'executed'],
        ['execute_tool echo_text', 'call_repaired', 'repaired', 'executed'],
        ['execute_tool echo_text', 'call_blocked', 'blocked', 'blocked'],
      ],
    );
    for (const c of calls) {
      expect(c).toMatchObject({ kind: 1, traceId: CALLER_TRACE, parentSpanId: turn!.spanId });
      expect(c.attributes['gen_ai.operation.name']).toBe('execute_tool');
      expect(c.events.find((e) => e.name === 'gen_ai.guardrail.result')?.attributes).toMatchObject({
        'gen_ai.guardrail.component.name': 'rebound.gate',
        'gen_ai.guardrail.result.value': c.attributes['rebound.gate.verdict'],
      });
    }
    const [passed, repaired, blocked] = calls;
    expect(passed!.attributes).toMatchObject({ 'gen_ai.tool.name': 'echo_text', 'gen_ai.tool.type': 'function', 'rebound.gate.category': 'valid' });
    expect(repaired!.attributes['rebound.gate.category']).toBe(res.events.filter((e) => e.event === 'tool_result')[1]!.data.category);
    expect(repaired!.events.filter((e) => e.name === 'rebound.gate.repair').length).toBeGreaterThan(0);
    const problems = blocked!.events.filter((e) => e.name === 'rebound.gate.problem');
    expect(problems.length).toBeGreaterThan(0);
    expect(blocked!.attributes['rebound.gate.problems']).toBe(problems.length);
    expect(problems[0]!.attributes).toMatchObject({ 'rebound.problem.category': blocked!.attributes['rebound.gate.category'] });
    expect(String(problems[0]!.attributes['rebound.problem.path'])).toMatch(/^\$/);
    expect(blocked!.attributes['gen_ai.tool.type']).toBeUndefined(); // nothing ran

    // Content is off by default: no message, argument, result or gate message in any span.
    const everything = JSON.stringify(spans);
    expect(everything).not.toContain('secret');
    expect(everything).not.toContain('echo please');
    expect(everything).not.toContain('gen_ai.input.messages');
    expect(collector.contentTypes.every((t) => t === 'application/x-protobuf')).toBe(true);
  });

  it('adds content when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, bounded (http/json)', async () => {
    const { app, collector } = await setup(threeCalls, {
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    const res = await chat(app.url, { message: 'echo please' });
    expect(res.events.at(-1)!.event).toBe('done');
    const spans = await collector.waitFor(turnDone);
    expect(collector.contentTypes.every((t) => t.startsWith('application/json'))).toBe(true);
    const [first] = byName(spans, 'chat ');
    const input = JSON.parse(first!.attributes['gen_ai.input.messages'] as string);
    expect(input.at(-1)).toEqual({ role: 'user', parts: [{ type: 'text', content: 'echo please' }] });
    const output = JSON.parse(first!.attributes['gen_ai.output.messages'] as string);
    expect(output[0].parts.filter((p: { type: string }) => p.type === 'tool_call').map((p: { id: string }) => p.id)).toEqual([
      'call_pass',
      'call_repaired',
      'call_blocked',
    ]);
    const [passed, , blocked] = byName(spans, 'execute_tool');
    expect(passed!.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"the secret words"}');
    expect(JSON.parse(passed!.attributes['gen_ai.tool.call.result'] as string)).toEqual({ echoed: 'the secret words' });
    expect(blocked!.events.some((e) => typeof e.attributes['rebound.problem.message'] === 'string')).toBe(true);
  });

  it('records the forced summary and the loop breaker as events of the turn', async () => {
    // The same blocked call again and again: the loop breaker escalates, then the iteration limit forces the summary.
    const { app, collector } = await setup(
      (req) => (req.tool_choice === 'none' ? { text: 'Summary.' } : { toolCalls: [{ name: 'echo_text', arguments: '{}' }] }),
      {
        MAX_ITERATIONS: '3',
      },
    );
    const res = await chat(app.url, { message: 'loop' });
    const reason = (res.events.find((e) => e.event === 'forced_summary')!.data as { reason: string }).reason;
    const spans = await collector.waitFor(turnDone);
    const [turn] = byName(spans, 'invoke_agent');
    expect(turn!.events.find((e) => e.name === 'rebound.forced_summary')?.attributes).toMatchObject({ 'rebound.summary.reason': reason });
    expect(turn!.events.filter((e) => e.name === 'rebound.loop_breaker').length).toBeGreaterThan(0);
    expect(turn!.attributes['rebound.turn.reason']).toBe(reason);
    // The summary is a model call of its own: one chat span per iteration, and the summary's.
    const iterations = (res.events.at(-1)!.data as { iterations: number }).iterations;
    expect(byName(spans, 'chat ')).toHaveLength(iterations + 1);
  });

  it('shows a retried model call as one chat span with a retry event', async () => {
    const { app, collector } = await setup((_req, i) => (i === 0 ? { status: 503, message: 'overloaded' } : { text: 'Fine now.' }));
    const res = await chat(app.url, { message: 'hi' });
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
    const spans = await collector.waitFor(turnDone);
    const [call] = byName(spans, 'chat ');
    expect(call!.attributes['rebound.model.attempts']).toBe(2);
    expect(call!.events.find((e) => e.name === 'rebound.model.retry')?.attributes).toEqual({ 'rebound.retry.attempt': 1, 'error.type': '503' });
  });

  it('marks a failed model call with error.type', async () => {
    const { app, collector } = await setup(() => ({ status: 401, message: 'bad key' }));
    const res = await chat(app.url, { message: 'hi' });
    expect(res.events.some((e) => e.event === 'agent_error')).toBe(true);
    const spans = await collector.waitFor(turnDone);
    const [call] = byName(spans, 'chat ');
    expect(call!.attributes['error.type']).toBe('401');
    expect(call!.status.code).toBe(2);
    expect(byName(spans, 'invoke_agent')[0]!.attributes['error.type']).toBe('rebound.turn.error');
  });

  it('a collector that is down leaves the turn as it is, and the dropped spans are logged once', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const down = `http://127.0.0.1:${await freePort()}`;
    upstream = await startScriptedOpenAI(threeCalls);
    app = await startApp(
      { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url, MODEL: 'scripted-1', OTEL_EXPORTER_OTLP_ENDPOINT: down },
      { tools: [echo] },
    );
    for (let i = 0; i < 2; i++) {
      const res = await chat(app.url, { message: 'echo please' });
      expect(shape(res.events).at(-1)).toBe('done');
      expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 2 });
    }
    await app.deps.tracing!.flush();
    const dropped = errors.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('spans dropped'));
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toContain(down);
    expect(app.deps.tracing!.stats!().dropped).toBe(12); // two turns of six spans each
  });

  it('a collector that does not answer costs the turn nothing: the export times out and is dropped', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    collector = await startCollector({ stallMs: 5_000 });
    const { app } = await setup(threeCalls, { OTEL_EXPORTER_OTLP_TIMEOUT: '200' });
    const res = await chat(app.url, { message: 'echo please' });
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
    await app.deps.tracing!.flush();
    expect(errors.mock.calls.some((c) => String(c[0]).includes('spans dropped'))).toBe(true);
  });

  it('ignores a bad OTEL_* value with one warning and traces with the default', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { app, collector } = await setup(() => ({ text: 'Hello.' }), { OTEL_TRACES_SAMPLER: 'sometimes', OTEL_BSP_SCHEDULE_DELAY: 'soon' });
    await chat(app.url, { message: 'hi' });
    await chat(app.url, { message: 'hi again' });
    const spans = await collector.waitFor((s) => byName(s, 'invoke_agent').length === 2);
    expect(spans.length).toBeGreaterThan(0);
    const lines = warn.mock.calls.map((c) => String(c[0]));
    expect(lines.filter((l) => l.includes('OTEL_TRACES_SAMPLER="sometimes" ignored'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('OTEL_BSP_SCHEDULE_DELAY="soon" ignored'))).toHaveLength(1);
  });

  it('ignores an invalid traceparent as the W3C spec says: the turn starts a trace of its own', async () => {
    const { app, collector } = await setup(() => ({ text: 'Hello.' }));
    const res = await chat(app.url, { message: 'hi' }, { headers: { traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`, tracestate: 'x'.repeat(10_000) } });
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
    const [turn] = byName(await collector.waitFor(turnDone), 'invoke_agent');
    expect(turn!.parentSpanId).toBe('');
    expect(turn!.traceId).not.toBe('0'.repeat(32));
  });

  it('is off without an endpoint: no tracing object, no SDK loaded', async () => {
    upstream = await startScriptedOpenAI(() => ({ text: 'Hello.' }));
    app = await startApp({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url }, { tools: [echo] });
    expect(app.deps.tracing).toBeUndefined();
    await chat(app.url, { message: 'hi' }, { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    expect(upstream.traceparents).toEqual([null]);
  });
});
