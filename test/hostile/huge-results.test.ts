// Issue 18 item 4: a tool that returns megabytes. The model gets ~40 KB; the tool_result event, the
// turn's log (in memory and in agent_turn_events) and the activity row carry that same bounded result,
// with the original length, not the megabytes. Real parts: the local app (PGlite), an MCP server of the
// test's own answering 20 MB of text or 5 MB of structuredContent, a functions/ tool returning 20 MB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../../src/config.ts';
import { openLocalDeps, type LocalDeps } from '../../src/entries/local.ts';
import { createApp } from '../../src/http/app.ts';
import { noAuth } from '../../src/http/deps.ts';
import { defineTool } from '../../src/tools/define.ts';
import { listen, type RunningServer } from '../support/browser-server.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { chat } from '../support/sse-client.ts';
import { startHostileMcp, type HostileServer } from './hostile-mcp-server.ts';

const MB = 1024 * 1024;
const TEXT = 'x'.repeat(20 * MB);

let mcp: HostileServer;
let upstream: ScriptedServer;
let local: LocalDeps;
let server: RunningServer;
/** The tool the next turn calls. */
let calling = '';

beforeAll(async () => {
  mcp = await startHostileMcp({
    list: 'answer',
    tools: [
      { name: 'dump', inputSchema: { type: 'object', properties: {} }, result: () => ({ content: [{ type: 'text', text: TEXT }] }) },
      {
        name: 'rows',
        inputSchema: { type: 'object', properties: {} },
        result: () => {
          const rows = Array.from({ length: 50_000 }, (_, i) => ({ id: i, text: 'y'.repeat(90) }));
          return { content: [{ type: 'text', text: 'rows' }], structuredContent: { rows } };
        },
      },
    ],
  });
  upstream = await startScriptedOpenAI((req) =>
    req.messages.some((m) => m.role === 'tool') ? { text: 'Done.' } : { toolCalls: [{ id: 'c1', name: calling, arguments: '{}' }] },
  );
  const config = loadConfig({
    OPENAI_API_KEY: 'sk-huge',
    OPENAI_BASE_URL: upstream.url,
    MODEL: 'huge-1',
    KEEPALIVE_MS: '10000',
    MCP_SERVERS: JSON.stringify([{ name: 'big', url: mcp.url }]),
  });
  local = await openLocalDeps(config, { auth: noAuth, activity: { flushIntervalMs: 50 } });
  const hoard = defineTool({
    name: 'hoard',
    description: 'Returns 20 MB',
    schema: z.object({}),
    annotations: { readOnlyHint: true },
    run: async () => ({ text: TEXT }),
  });
  server = await listen(createApp({ ...local.deps, tools: [...local.deps.tools, hoard] }).fetch);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await local?.close();
  await upstream?.close();
  await mcp?.stop();
});

describe('a tool that returns megabytes', () => {
  it.each([
    ['an MCP tool returning 20 MB of text', 'big__dump', 20 * MB + 2],
    ['an MCP tool returning 5 MB of structuredContent', 'big__rows', undefined],
    ['a functions/ tool returning 20 MB', 'hoard', 20 * MB + 11],
  ])(
    '%s: the event, the stored log and the activity row carry what the model got, with the original length',
    async (_, tool, length) => {
      calling = tool;
      const before = upstream.requests.length;
      const res = await chat(server.url, { message: 'go' });
      const turnId = res.events[0]!.data.turnId as string;
      expect(res.events.at(-1)!.data.reason).toBe('completed');

      // What the model got.
      const message = upstream.requests[before + 1]!.messages.find((m) => m.role === 'tool')!;
      const payload = JSON.parse(message.content!) as { ok: boolean; result: string; truncated: string };
      expect(message.content!.length).toBeLessThanOrEqual(40_200);
      const original = Number(/the result is (\d+) characters of JSON/.exec(payload.truncated)?.[1]);
      if (length !== undefined) expect(original).toBe(length);
      else expect(original).toBeGreaterThan(5 * MB);

      // The event: the same bounded result and note, a few tens of KB.
      const event = res.events.find((e) => e.event === 'tool_result')!;
      expect(event.data).toMatchObject({ name: tool, ok: true, result: payload.result, truncated: payload.truncated });
      expect(JSON.stringify(event.data).length).toBeLessThan(50_000);

      // The stored log (agent_turn_events) and the activity row.
      const stored = await local.db.query<{ bytes: number }>('select sum(length(data::text))::int as bytes from agent_turn_events where turn_id = $1', [
        turnId,
      ]);
      expect(stored.rows[0]!.bytes).toBeLessThan(100_000);
      const storedResult = await local.db.query<{ data: { truncated?: string } }>(
        "select data from agent_turn_events where turn_id = $1 and event = 'tool_result'",
        [turnId],
      );
      expect(storedResult.rows[0]!.data.truncated).toBe(payload.truncated);
      await local.activity.flush();
      const rows = await local.db.query<{ row: string }>('select row_to_json(a)::text as row from agent_activity a where turn_id = $1', [turnId]);
      expect(rows.rows).toHaveLength(1);
      expect(rows.rows[0]!.row.length).toBeLessThan(10_000);
    },
    60_000,
  );
});
