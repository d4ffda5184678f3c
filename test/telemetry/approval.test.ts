// Traces of a turn that waits for a person (docs/tracing.md § A turn that waits for a person), as an OTLP/HTTP endpoint on
// loopback receives them: the paused turn's invoke_agent span ends at the pause, saying so; the
// continuation is a new invoke_agent span in the same trace, a child of the paused one and linked to
// it, with one rebound.approval event per decided call (approved, denied, expired; the time the person
// took); each decided call's execute_tool span carries the decision.
import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../src/tools/types.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { startCollector, type CollectedSpan, type Collector } from '../support/otlp-collector.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { openStream, type SseEvent } from '../support/sse-client.ts';

let upstream: ScriptedServer | undefined;
let app: TestApp | undefined;
let collector: Collector | undefined;
afterEach(async () => {
  await app?.close();
  await upstream?.close();
  await collector?.close();
  app = upstream = collector = undefined;
});

const ran: string[] = [];
const send: Tool = {
  name: 'send_note',
  description: 'Sends a note',
  parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'], additionalProperties: false },
  needsApproval: true,
  run: async (args) => {
    ran.push(String(args.to));
    return { sent: args.to };
  },
};

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const byName = (spans: CollectedSpan[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

describe('tracing a turn that waits for approval (Node)', () => {
  it('the pause ends the span; the continuation is a linked child in the same trace, with each decision and the time it took', async () => {
    collector = await startCollector();
    // Three calls that each wait: one approved, one denied, one left to expire; then an answer.
    upstream = await startScriptedOpenAI((req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: 'Noted.' }
        : {
            toolCalls: [
              { id: 'call_a', name: 'send_note', arguments: '{"to":"ann"}' },
              { id: 'call_b', name: 'send_note', arguments: '{"to":"bob"}' },
              { id: 'call_c', name: 'send_note', arguments: '{"to":"cy"}' },
            ],
          },
    );
    app = await startApp(
      {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: upstream.url,
        MODEL: 'scripted-1',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
        APPROVAL_TIMEOUT_MS: '1500',
      },
      { tools: [send], singleInstance: true },
    );
    const stream = await openStream(`${app.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      body: JSON.stringify({ message: 'send the notes' }),
    });
    const asked: SseEvent[] = [];
    for (const id of ['call_a', 'call_b', 'call_c']) asked.push(await stream.until((e) => e.event === 'approval_required' && e.data.toolCallId === id));
    const turnId = stream.events[0]!.data.turnId as string;
    // The paused span is exported at the pause, before any decision.
    const pausedSpans = await collector.waitFor((s) => byName(s, 'invoke_agent').length === 1);
    const [paused] = byName(pausedSpans, 'invoke_agent');
    expect(paused).toMatchObject({
      traceId: CALLER_TRACE,
      parentSpanId: CALLER_SPAN,
      links: [],
      attributes: { 'rebound.turn.reason': 'awaiting_approval', 'rebound.turn.awaiting_approval': 3, 'rebound.turn.iterations': 1 },
    });
    const waited = byName(pausedSpans, 'execute_tool');
    expect(waited.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['rebound.call.outcome'], s.parentSpanId])).toEqual([
      ['call_a', 'awaiting_approval', paused!.spanId],
      ['call_b', 'awaiting_approval', paused!.spanId],
      ['call_c', 'awaiting_approval', paused!.spanId],
    ]);

    await new Promise((r) => setTimeout(r, 300)); // the person takes a moment
    const decide = (approval: SseEvent, body: unknown) =>
      fetch(`${app!.url}/v1/turns/${turnId}/approvals/${approval.data.approvalId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await decide(asked[0]!, { approved: true })).status).toBe(202);
    expect((await decide(asked[1]!, { approved: false, reason: 'not bob' })).status).toBe(202);
    // The third expires by Node's timer; then the turn goes on.
    await stream.until((e) => e.event === 'done', 15_000);
    expect(ran).toEqual(['ann']);

    const spans = await collector.waitFor((s) => byName(s, 'invoke_agent').length === 2);
    const continued = byName(spans, 'invoke_agent').find((s) => s.spanId !== paused!.spanId)!;
    expect(continued).toMatchObject({
      traceId: CALLER_TRACE,
      parentSpanId: paused!.spanId,
      links: [{ traceId: CALLER_TRACE, spanId: paused!.spanId, attributes: { 'rebound.link.type': 'continues_after_approval' } }],
      attributes: { 'rebound.turn.id': turnId, 'rebound.turn.continued': true, 'rebound.turn.reason': 'completed', 'rebound.turn.iterations': 2 },
    });
    expect(continued.attributes['rebound.turn.awaiting_approval']).toBeUndefined();
    const decisions = continued.events.filter((e) => e.name === 'rebound.approval').map((e) => e.attributes);
    expect(decisions.map((d) => [d['rebound.approval.id'], d['gen_ai.tool.call.id'], d['gen_ai.tool.name'], d['rebound.approval.decision']])).toEqual([
      [asked[0]!.data.approvalId, 'call_a', 'send_note', 'approved'],
      [asked[1]!.data.approvalId, 'call_b', 'send_note', 'denied'],
      [asked[2]!.data.approvalId, 'call_c', 'send_note', 'expired'],
    ]);
    // The time to each decision, by the store's clock: the person's moment; the expiry's 1.5 s.
    const waits = decisions.map((d) => d['rebound.approval.wait_ms'] as number);
    expect(waits[0]).toBeGreaterThanOrEqual(250);
    expect(waits[1]).toBeGreaterThanOrEqual(waits[0]!);
    expect(waits[2]).toBeGreaterThanOrEqual(1_500);
    // Each decided call has a span of its own under the continuation, with the decision.
    const decided = byName(spans, 'execute_tool').filter((s) => s.parentSpanId === continued.spanId);
    expect(decided.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['rebound.call.outcome'], s.attributes['rebound.approval.decision']])).toEqual([
      ['call_a', 'executed', 'approved'],
      ['call_b', 'denied', 'denied'],
      ['call_c', 'expired', 'expired'],
    ]);
    expect(byName(spans, 'chat ').map((s) => s.parentSpanId)).toEqual([paused!.spanId, continued.spanId]);
    // Usage: the paused span's up to the pause, the continuation's the whole turn's (two model calls).
    expect(paused!.attributes['gen_ai.usage.input_tokens']).toBe(100);
    expect(continued.attributes['gen_ai.usage.input_tokens']).toBe(200);
  });
});
