// Issue 18 item 5: an MCP server that never answers tools/list. Listing is bounded by
// MCP_LIST_TIMEOUT_MS; turn_start goes out before any listing; a server that failed is remembered as
// down, so the next turns and GET /v1/tools neither ask it nor wait for it until its retry time (the
// retry schedule itself, 30 s doubling to 5 minutes, is src/tools/mcp/source.test.ts's). Real parts:
// the app over HTTP, an MCP server of the test's own that holds tools/list open forever.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { mcpToolSource } from '../../src/tools/mcp/index.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { chat, parseSse } from '../support/sse-client.ts';
import { startHostileMcp, type HostileServer } from './hostile-mcp-server.ts';

let mcp: HostileServer;
let upstream: ScriptedServer;
let app: TestApp;

beforeAll(async () => {
  mcp = await startHostileMcp({ list: 'hang', tools: [{ name: 'never', inputSchema: { type: 'object' } }] });
  upstream = await startScriptedOpenAI(() => ({ text: 'Fine without it.' }));
  const vars = {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: upstream.url,
    MODEL: 'm',
    MCP_SERVERS: JSON.stringify([{ name: 'stuck', url: mcp.url }]),
    MCP_LIST_TIMEOUT_MS: '2000',
    MCP_TOOLS_TTL_S: '0',
  };
  app = await startApp(vars, { toolSource: mcpToolSource(loadConfig(vars), () => {}) });
});

afterAll(async () => {
  await app?.close();
  await upstream?.close();
  await mcp?.stop();
});

describe('an MCP server that never answers tools/list', () => {
  it('turn_start comes before the listing; the turn goes on without the server once MCP_LIST_TIMEOUT_MS is over', async () => {
    const res = await fetch(`${app.url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi' }) });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    // The first event is out while the server still holds tools/list: the model has not been asked yet.
    expect(parseSse(text).events[0]!.event).toBe('turn_start');
    expect(upstream.requests).toHaveLength(0);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const events = parseSse(text).events;
    expect(events.at(-1)!.data.reason).toBe('completed');
    // Asked once (on a loaded machine the handshake alone may use up the time: then not even that).
    expect(mcp.count('initialize')).toBe(1);
    expect(mcp.count('tools/list')).toBeLessThanOrEqual(1);
    expect(upstream.requests[0]!.tools?.some((t) => t.function.name.startsWith('stuck__')) ?? false).toBe(false);
  }, 20_000);

  it('is remembered as down: the next turn and GET /v1/tools do not ask it again (nor wait for it)', async () => {
    const initializes = mcp.count('initialize');
    const lists = mcp.count('tools/list');
    const res = await chat(app.url, { message: 'again' });
    expect(res.events.at(-1)!.data.reason).toBe('completed');
    const listed = (await (await fetch(`${app.url}/v1/tools`)).json()) as { servers: Array<Record<string, any>> };
    expect(listed.servers).toEqual([
      { server: 'stuck', url: new URL(mcp.url).origin, ok: false, error: expect.stringContaining('MCP_LIST_TIMEOUT_MS'), retryAt: expect.any(String) },
    ]);
    const retryIn = Date.parse(listed.servers[0]!.retryAt) - Date.now();
    expect(retryIn).toBeGreaterThan(20_000);
    expect(retryIn).toBeLessThanOrEqual(30_000);
    expect(mcp.count('tools/list')).toBe(lists);
    expect(mcp.count('initialize')).toBe(initializes);
  }, 20_000);
});
