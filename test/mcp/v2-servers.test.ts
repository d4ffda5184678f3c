// MCP's current revision (2026-07-28) against servers built with the v2 SDK (@modelcontextprotocol/server,
// test/support/mcp-v2-servers.ts): one in the SDK's default posture (it also serves 2025 clients) and one
// that rejects them (legacy: 'reject'). Rebound lists both, runs get_sum through the gate, and speaks
// 2026-07-28 to both: server/discover, then requests that carry their version in _meta; never initialize.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { MAX_INPUT_KEY, MAX_INPUT_STATE } from '../../src/tools/input.ts';
import { mcpToolSource } from '../../src/tools/mcp/index.ts';
import { ORDER_SCHEMA, ORDER_STATE, type RunningV2, startV2Server } from '../support/mcp-v2-servers.ts';
import { scriptedApps } from '../support/scripted-app.ts';
import { lastToolResult, type Script } from '../support/scripted-openai.ts';
import { chat, openStream, type SseEvent } from '../support/sse-client.ts';
import { parseUiStream } from '../support/ui-chunks.ts';
import { NodeChat, partsOf } from '../ui-chat/client.ts';

let open: RunningV2;
let strict: RunningV2;

beforeAll(async () => {
  open = await startV2Server({ name: 'shop' });
  strict = await startV2Server({ name: 'strict-shop', legacy: 'reject' });
}, 30_000);
afterAll(async () => {
  await open?.stop();
  await strict?.stop();
});
const start = scriptedApps({ MODEL_RETRIES: '0' });

async function setup(script: Script, env: Record<string, string> = {}, singleInstance = false) {
  return start(script, {
    env: {
      MCP_SERVERS: JSON.stringify([
        { name: 'shop', url: open.url },
        { name: 'strict', url: strict.url },
      ]),
      ...env,
    },
    // singleInstance: Node's timer expires what waits (turns/approval-clock.ts).
    deps: (vars) => ({ toolSource: mcpToolSource(loadConfig(vars)), ...(singleInstance ? { singleInstance } : {}) }),
  });
}

/** A turn that orders a mug from `server` (shop: the default posture; strict: legacy rejected), read until the question is asked. */
async function ordering(server: 'shop' | 'strict', env: Record<string, string> = {}) {
  const { upstream, app } = await setup(
    (req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: 'Done.' }
        : { toolCalls: [{ id: `o-${server}`, name: `${server}__confirm_order`, arguments: '{"item":"mug"}' }] },
    env,
    env.APPROVAL_TIMEOUT_MS !== undefined,
  );
  const created = await fetch(`${app.url}/v1/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"message": "order me a mug"}',
  });
  const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
  const stream = await openStream(app.url + streamUrl);
  const asked = await stream.until((e) => e.event === 'input_required');
  return { upstream, app, stream, asked, turnId, url: `${app.url}/v1/turns/${turnId}/inputs/${asked.data.inputId}` };
}

const results = (events: SseEvent[]) => events.filter((e) => e.event === 'tool_result').map((e) => e.data as Record<string, any>);

describe('2026-07-28 servers built with the v2 SDK', () => {
  it('lists both servers’ tools, repairs get_sum {"a":"2","b":3} to 5 on each, and speaks 2026-07-28 to both (no initialize)', async () => {
    const { upstream, app } = await setup((_req, i) =>
      i === 0
        ? {
            toolCalls: [
              { id: 'c1', name: 'shop__get_sum', arguments: '{"a":"2","b":3}' },
              { id: 'c2', name: 'strict__get_sum', arguments: '{"a":"2","b":3}' },
            ],
          }
        : { text: 'Both say 5.' },
    );
    const listed = (await (await fetch(`${app.url}/v1/tools`)).json()) as { tools: Array<{ name: string }>; servers: Array<Record<string, unknown>> };
    expect(listed.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['shop__get_sum', 'shop__confirm_order', 'strict__get_sum', 'strict__confirm_order']),
    );
    expect(listed.servers).toEqual([
      expect.objectContaining({ server: 'shop', ok: true, protocolVersion: '2026-07-28' }),
      expect.objectContaining({ server: 'strict', ok: true, protocolVersion: '2026-07-28' }),
    ]);

    const res = await chat(app.url, { message: 'add 2 and 3 twice' });
    const [a, b] = results(res.events);
    for (const r of [a, b]) expect(r).toMatchObject({ verdict: 'repaired', ok: true, result: { sum: 5 } });
    expect(JSON.stringify(lastToolResult(upstream.requests[1]!))).toContain('"sum":5');
    for (const server of [open, strict]) {
      expect(server.toolCalls('get_sum')).toEqual([expect.objectContaining({ arguments: { a: 2, b: 3 }, protocolVersion: '2026-07-28' })]);
      const methods = server.received.map((m) => m.method);
      expect(methods).not.toContain('initialize');
      expect(methods[0]).toBe('server/discover');
      // Probed once: the turn's connection took the kept verdict (ConnectOptions.prior), no second probe.
      expect(methods.filter((m) => m === 'server/discover')).toHaveLength(1);
      for (const m of server.received) expect(m.protocolVersion).toBe('2026-07-28');
    }
  }, 30_000);

  it('a result that does not match the tool’s outputSchema is an execution error the model reads, and the loop goes on', async () => {
    const { upstream, app } = await setup((_req, i) =>
      i === 0 ? { toolCalls: [{ id: 't1', name: 'shop__get_total', arguments: '{}' }] } : { text: 'The total could not be read.' },
    );
    const res = await chat(app.url, { message: 'what is the total?' });
    expect(results(res.events)[0]).toMatchObject({
      name: 'shop__get_total',
      verdict: 'pass',
      category: 'execution_error',
      ok: false,
      error: expect.stringContaining('does not match the output schema of "get_total"'),
    });
    const told = JSON.stringify(lastToolResult(upstream.requests[1]!));
    expect(told).toMatch(/total.*number/);
    expect(told).not.toContain('"total":"5"');
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
    expect(open.toolCalls('get_total')).toHaveLength(1);
  }, 30_000);

  it('confirm_order pauses the turn with the server’s question and schema; {confirm: true} goes back in inputResponses with requestState, and "ordered mug" reaches the model', async () => {
    const { upstream, app, stream, asked, turnId, url } = await ordering('strict');
    expect(asked.data).toMatchObject({
      toolCallId: 'o-strict',
      name: 'strict__confirm_order',
      server: 'strict',
      tool: 'confirm_order',
      mode: 'form',
      message: 'Order mug?',
      requestedSchema: ORDER_SCHEMA,
    });
    expect(asked.data.inputId).toMatch(/^inp_[0-9a-f]{32}$/);
    expect(strict.orderRounds).toEqual([{ requestState: undefined }]);
    const post = (body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    // What does not fit the schema decides nothing.
    const wrong = await post({ action: 'accept', content: { confirm: 'yes' } });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(/confirm/);
    expect((await post({ action: 'accept', content: { confirm: true, colour: 'red' } })).status).toBe(400);
    expect(
      (
        await fetch(`${app.url}/v1/turns/${turnId}/approvals/${asked.data.inputId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"approved": true}',
        })
      ).status,
    ).toBe(404);

    const res = await post({ action: 'accept', content: { confirm: true } });
    expect(res.status).toBe(202);
    await stream.until((e) => e.event === 'done');
    expect((await post({ action: 'accept', content: { confirm: true } })).status).toBe(409);
    expect(results(stream.events)).toEqual([expect.objectContaining({ id: 'o-strict', ok: true, result: 'ordered mug' })]);
    const again = strict.toolCalls('confirm_order').at(-1)!;
    expect(again).toMatchObject({
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      requestState: ORDER_STATE,
      protocolVersion: '2026-07-28',
    });
    expect(strict.orderRounds.at(-1)).toEqual({ requestState: ORDER_STATE, action: 'accept' });
    expect(JSON.stringify(lastToolResult(upstream.requests.at(-1)!))).toContain('ordered mug');
    expect(strict.received.map((m) => m.method)).not.toContain('initialize');
    expect(app.activity.calls.map((r) => [r.tool_resolved, r.tool_server, r.mcp_protocol, r.elicitation])).toEqual([
      ['strict__confirm_order', 'strict', '2026-07-28', 'accept'],
    ]);
  }, 30_000);

  it.each([
    ['requestState', { orderState: 's'.repeat(MAX_INPUT_STATE + 1) }, `a requestState of ${MAX_INPUT_STATE + 1} characters (at most ${MAX_INPUT_STATE})`],
    ['request key', { orderKey: 'k'.repeat(MAX_INPUT_KEY + 1) }, `a request key of ${MAX_INPUT_KEY + 1} characters (at most ${MAX_INPUT_KEY})`],
  ] as const)(
    'a question whose %s is past its cap is not put to the person: the call fails with the reason, the turn goes on',
    async (_, options, reason) => {
      const big = await startV2Server({ name: 'big-shop', ...options });
      try {
        const { app } = await start(
          (req) =>
            req.messages.some((m) => m.role === 'tool')
              ? { text: 'Done.' }
              : { toolCalls: [{ id: 'o-big', name: 'big__confirm_order', arguments: '{"item":"mug"}' }] },
          { env: { MCP_SERVERS: JSON.stringify([{ name: 'big', url: big.url }]) }, deps: (vars) => ({ toolSource: mcpToolSource(loadConfig(vars)) }) },
        );
        const res = await chat(app.url, { message: 'order me a mug' });
        expect(res.events.some((e) => e.event === 'input_required')).toBe(false);
        expect(results(res.events)).toEqual([
          expect.objectContaining({ id: 'o-big', ok: false, error: expect.stringContaining(`asked for input Rebound cannot put to the person: ${reason}`) }),
        ]);
        expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
        expect(big.orderRounds).toEqual([{ requestState: undefined }]);
      } finally {
        await big.stop();
      }
    },
    30_000,
  );

  it('declined: the call goes back with the decline, and the model reads an error saying so with what the server answered', async () => {
    const { upstream, app, stream, url } = await ordering('shop');
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action": "decline"}' });
    expect(res.status).toBe(202);
    await stream.until((e) => e.event === 'done');
    expect(open.toolCalls('confirm_order').at(-1)).toMatchObject({ inputResponses: { confirm: { action: 'decline' } }, requestState: ORDER_STATE });
    const told = lastToolResult(upstream.requests.at(-1)!) as { ok: boolean; error: string };
    expect(told.ok).toBe(false);
    expect(told.error).toMatch(/asked the user "Order mug\?".*they chose decline/s);
    expect(told.error).toMatch(/the person chose decline/);
    expect(app.activity.calls.map((r) => r.elicitation)).toEqual(['decline']);
  }, 30_000);

  it('unanswered past APPROVAL_TIMEOUT_MS: 410 for a late answer, the call is not sent again, and the model is told nobody answered', async () => {
    const before = open.toolCalls('confirm_order').length;
    const { upstream, app, stream, url } = await ordering('shop', { APPROVAL_TIMEOUT_MS: '1000' });
    await stream.until((e) => e.event === 'done', 10_000);
    const late = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"action": "accept", "content": {"confirm": true}}',
    });
    expect(late.status).toBe(410);
    expect(open.toolCalls('confirm_order')).toHaveLength(before + 1);
    const told = lastToolResult(upstream.requests.at(-1)!) as { ok: boolean; error: string };
    expect(told).toMatchObject({ ok: false, error: expect.stringMatching(/asked the user "Order mug\?".*nobody answered in time: the tool did not run/s) });
    expect(app.activity.calls.map((r) => r.elicitation)).toEqual(['expired']);
  }, 30_000);

  it('through useChat: the stream ends at the question with a data-rebound-input part; answered, the rest streams on a resume', async () => {
    const { app } = await setup((req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: 'Ordered.' }
        : { toolCalls: [{ id: 'u1', name: 'strict__confirm_order', arguments: '{"item":"mug"}' }] },
    );
    const chat = new NodeChat({ id: 'order-chat', baseUrl: app.url });
    await chat.sendMessage({ text: 'order me a mug' });
    await chat.settled();
    expect(chat.status).toBe('ready');
    const paused = chat.lastMessage!;
    const part = partsOf(paused).find((p) => p.type === 'data-rebound-input');
    expect(part?.data).toMatchObject({ server: 'strict', tool: 'confirm_order', message: 'Order mug?', requestedSchema: ORDER_SCHEMA });
    const res = await fetch(`${app.url}/v1/turns/${paused.id}/inputs/${part!.data.inputId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'accept', content: { confirm: true } }),
    });
    expect(res.status).toBe(202);
    const rest = await fetch(`${app.url}/v1/ui/chat/order-chat/stream`);
    const text = await rest.text();
    const output = parseUiStream(text).chunks.find((c) => c.type === 'tool-output-available') as { output?: unknown } | undefined;
    expect(output?.output).toBe('ordered mug');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  }, 30_000);
});
