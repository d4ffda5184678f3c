// Traces from each runtime: the Node entry, workerd (`wrangler dev`: the turn runs in its Durable
// Object, which gets the request forwarded and exports within its waitUntil) and Deno (the Supabase
// entry), each sending to one OTLP/HTTP endpoint on loopback, decoded with protobufjs and the
// opentelemetry-proto files. A turn with an executed, a repaired and a blocked call, started with a
// caller's traceparent: the span tree, the verdicts, the upstream's traceparent, no content. A turn that
// waits for approval: the paused span exported at the pause, the continuation (in the Durable Object on
// workerd) a child of it in the same trace, linked to it, with the decision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector, type CollectedSpan, type Collector } from '../support/otlp-collector.ts';
import { startScriptedOpenAI, type ChatRequest, type Reply, type ScriptedServer } from '../support/scripted-openai.ts';
import { readSse } from '../runtimes/sse-client.ts';
import { openStream } from '../support/sse-client.ts';
import { startDeno, startNode, startWorkerd, type RuntimeName, type RuntimeServer } from '../runtimes/servers.ts';

const RUNTIMES: RuntimeName[] = ['node', 'workerd', 'deno'];
const userText = (req: ChatRequest) => req.messages.find((m) => m.role === 'user')?.content ?? '';

/** Keyed on the conversation, so the runtimes can share it: three calls, then an answer. */
function script(req: ChatRequest): Reply {
  const answered = req.messages.some((m) => m.role === 'tool');
  if (answered) return { text: 'Done.' };
  const tag = userText(req).split(' ')[1];
  if (userText(req).startsWith('WAIT')) return { toolCalls: [{ id: `call_wait_${tag}`, name: 'write_file', arguments: `{"path":"${tag}.md","content":"x"}` }] };
  return {
    toolCalls: [
      { id: `call_pass_${tag}`, name: 'list_files', arguments: '{}' },
      { id: `call_repaired_${tag}`, name: 'list_file', arguments: '{}' },
      { id: `call_blocked_${tag}`, name: 'fetch_url', arguments: '{"url":"https://example.com/secret-page"}' },
    ],
  };
}

let model: ScriptedServer;
let collector: Collector;
const servers = new Map<RuntimeName, RuntimeServer>();

beforeAll(async () => {
  model = await startScriptedOpenAI(script);
  collector = await startCollector();
  const vars = {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: model.url,
    MODEL: 'scripted-1',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    APPROVAL_TOOLS: 'write_file',
  };
  const start = { node: startNode, workerd: startWorkerd, deno: startDeno } as const;
  await Promise.all(RUNTIMES.map(async (name) => servers.set(name, await start[name]({ ...vars, OTEL_SERVICE_NAME: `rebound-${name}` }))));
}, 180_000);

afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.stop()));
  await model?.close();
  await collector?.close();
});

const hex = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 16).toString(16)).join('');

describe.concurrent.each(RUNTIMES)('%s', (name) => {
  it('exports the turn: invoke_agent under the caller span, chat and execute_tool under it, the verdicts, traceparent to the upstream, no content', async () => {
    const server = servers.get(name)!;
    const traceId = hex(32, RUNTIMES.indexOf(name) * 5 + 1);
    const callerSpan = hex(16, RUNTIMES.indexOf(name) * 5 + 3);
    const message = `TRACE ${name} please`;
    const transcript = await readSse(
      `${server.baseUrl}/v1/chat`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...server.localAuth, traceparent: `00-${traceId}-${callerSpan}-01` },
        body: JSON.stringify({ message }),
      },
      { timeoutMs: 30_000 },
    );
    expect(transcript.events.at(-1)?.event, server.log()).toBe('done');
    const mine = (spans: CollectedSpan[]) => spans.filter((s) => s.traceId === traceId);
    const spans = mine(await collector.waitFor((all) => mine(all).some((s) => s.name.startsWith('invoke_agent')), 20_000));

    const turn = spans.find((s) => s.name === 'invoke_agent rebound')!;
    expect(turn.parentSpanId).toBe(callerSpan);
    expect(turn.resource['service.name']).toBe(`rebound-${name}`);
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.request.model': 'scripted-1',
      'rebound.turn.reason': 'completed',
    });

    const chats = spans.filter((s) => s.name === 'chat scripted-1');
    expect(chats).toHaveLength(2);
    expect(chats.every((c) => c.parentSpanId === turn.spanId && c.kind === 3)).toBe(true);
    const seen = model.requests.flatMap((r, i) => (userText(r) === message ? [model.traceparents[i]] : []));
    expect(seen.sort()).toEqual(chats.map((c) => `00-${traceId}-${c.spanId}-01`).sort());

    const calls = spans.filter((s) => s.name.startsWith('execute_tool'));
    expect(calls.every((c) => c.parentSpanId === turn.spanId)).toBe(true);
    const byId = Object.fromEntries(calls.map((c) => [String(c.attributes['gen_ai.tool.call.id']).split('_')[1], c]));
    expect(byId.pass!.attributes).toMatchObject({ 'gen_ai.tool.name': 'list_files', 'rebound.gate.verdict': 'pass', 'rebound.call.outcome': 'executed' });
    expect(byId.repaired!.attributes).toMatchObject({
      'gen_ai.tool.name': 'list_files',
      'rebound.gate.verdict': 'repaired',
      'rebound.call.outcome': 'executed',
    });
    expect(byId.repaired!.name).toBe('execute_tool list_files');
    expect(byId.blocked!.attributes).toMatchObject({ 'gen_ai.tool.name': 'fetch_url', 'rebound.gate.verdict': 'blocked', 'rebound.call.outcome': 'blocked' });
    expect(JSON.stringify(spans)).not.toContain('secret-page');
    expect(JSON.stringify(spans)).not.toContain('please');
  });

  it('a turn that waits for approval: the paused span ends at the pause; the continuation is its linked child in the same trace, with the decision', async () => {
    const server = servers.get(name)!;
    const traceId = hex(32, RUNTIMES.indexOf(name) * 5 + 2);
    const callerSpan = hex(16, RUNTIMES.indexOf(name) * 5 + 4);
    const stream = await openStream(`${server.baseUrl}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.localAuth, traceparent: `00-${traceId}-${callerSpan}-01` },
      body: JSON.stringify({ message: `WAIT ${name}` }),
    });
    const asked = await stream.until((e) => e.event === 'approval_required', 30_000);
    const turnId = stream.events[0]!.data.turnId as string;
    const mine = (spans: CollectedSpan[]) => spans.filter((s) => s.traceId === traceId && s.name === 'invoke_agent rebound');
    const [paused] = mine(await collector.waitFor((all) => mine(all).length === 1, 20_000));
    expect(paused).toMatchObject({ parentSpanId: callerSpan, attributes: { 'rebound.turn.reason': 'awaiting_approval', 'rebound.turn.awaiting_approval': 1 } });
    const decided = await fetch(`${server.baseUrl}/v1/turns/${turnId}/approvals/${asked.data.approvalId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.localAuth },
      body: JSON.stringify({ approved: false, reason: 'no' }),
    });
    expect(decided.status, server.log()).toBe(202);
    await stream.until((e) => e.event === 'done', 30_000);
    stream.close();
    const continued = mine(await collector.waitFor((all) => mine(all).length === 2, 20_000)).find((s) => s.spanId !== paused!.spanId)!;
    expect(continued).toMatchObject({
      parentSpanId: paused!.spanId,
      links: [{ traceId, spanId: paused!.spanId }],
      attributes: { 'rebound.turn.continued': true, 'rebound.turn.reason': 'completed', 'rebound.turn.id': turnId },
    });
    expect(continued.events.find((e) => e.name === 'rebound.approval')?.attributes).toMatchObject({
      'rebound.approval.decision': 'denied',
      'gen_ai.tool.call.id': `call_wait_${name}`,
    });
  });
});
