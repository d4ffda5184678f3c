// A turn paused on an MCP server's question survives its process, as one paused for approval does
// (docs/approval.md § A server's question): the real Node server (embedded PGlite) is killed with -9
// while confirm_order's "Order mug?" waits, a new one on the same data folder takes the answer, and the
// call goes back to the v2 server from a fresh connection with inputResponses and the requestState.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type RuntimeServer } from '../runtimes/servers.ts';
import { ORDER_STATE, type RunningV2, startV2Server } from '../support/mcp-v2-servers.ts';
import { lastToolResult, startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { openStream } from '../support/sse-client.ts';

let model: ScriptedServer;
let shop: RunningV2;
let root: string;
const servers: Array<RuntimeServer & { kill(): Promise<void> }> = [];

beforeAll(async () => {
  model = await startScriptedOpenAI((req) =>
    req.messages.some((m) => m.role === 'tool') ? { text: 'Done.' } : { toolCalls: [{ name: 'shop__confirm_order', arguments: '{"item":"mug"}' }] },
  );
  shop = await startV2Server({ legacy: 'reject' });
  root = mkdtempSync(join(tmpdir(), 'rebound-input-restart-'));
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await shop?.stop();
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function start(dataDir: string) {
  const server = await startNode(
    { OPENAI_API_KEY: 'sk-scripted', OPENAI_BASE_URL: model.url, MODEL_RETRIES: '0', MCP_SERVERS: JSON.stringify([{ name: 'shop', url: shop.url }]) },
    { dataDir },
  );
  servers.push(server);
  return server;
}

describe('a server’s question across a restart', () => {
  it('kill -9 while "Order mug?" waits; the next process takes {confirm: true} and the call goes back with it', { timeout: 300_000 }, async () => {
    const dataDir = join(root, 'answer');
    let server = await start(dataDir);
    const created = await fetch(`${server.baseUrl}/v1/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.localAuth },
      body: JSON.stringify({ message: 'order me a mug' }),
    });
    expect(created.status).toBe(201);
    const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
    const stream = await openStream(server.baseUrl + streamUrl);
    const asked = await stream.until((e) => e.event === 'input_required', 60_000);
    expect(asked.data).toMatchObject({ server: 'shop', tool: 'confirm_order', message: 'Order mug?' });
    await server.kill();

    server = await start(dataDir);
    const answered = await fetch(`${server.baseUrl}/v1/turns/${turnId}/inputs/${asked.data.inputId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.localAuth },
      body: JSON.stringify({ action: 'accept', content: { confirm: true } }),
    });
    expect(answered.status).toBe(202);
    const { streamUrl: fresh } = (await answered.json()) as { streamUrl: string };
    const rest = await openStream(`${server.baseUrl}${fresh}&lastEventId=${asked.id}`);
    await rest.until((e) => e.event === 'done', 60_000);
    expect(rest.events[0]!.data).toMatchObject({ id: asked.data.toolCallId, name: 'shop__confirm_order', ok: true, result: 'ordered mug' });
    expect(lastToolResult(model.requests.at(-1)!)).toMatchObject({ ok: true, result: 'ordered mug' });
    // The new process's own connection: a 2026-07-28 request with the answer and the state echoed.
    expect(shop.toolCalls('confirm_order').at(-1)).toMatchObject({
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      requestState: ORDER_STATE,
      protocolVersion: '2026-07-28',
    });
    const whole = await openStream(server.baseUrl + fresh);
    await whole.ended;
    expect(whole.events.map((e) => e.event)).toEqual(['turn_start', 'tool_call', 'input_required', 'tool_result', 'text_delta', 'done']);
  });
});
