// MCP tools through the gate against the reference server nobody here wrote: the app on
// @hono/node-server with the official SDK client, @modelcontextprotocol/server-everything in its
// Streamable HTTP mode on loopback behind a recording proxy (what reached the server is observed, not
// assumed), and a scripted model calling its tools.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { mcpToolSource } from '../../src/tools/mcp/index.ts';
import { startEverything, type RunningMcp } from '../support/mcp-servers.ts';
import { freePort } from '../support/ports.ts';
import { scriptedApps } from '../support/scripted-app.ts';
import { lastToolResult, type Script } from '../support/scripted-openai.ts';
import { chat, openStream, shape, textOf, type SseEvent } from '../support/sse-client.ts';
import { everythingStep } from './everything-script.ts';

let everything: RunningMcp;

beforeAll(async () => {
  everything = await startEverything();
}, 40_000);
afterAll(async () => {
  await everything?.stop();
});
afterEach(() => {
  vi.restoreAllMocks();
});
const start = scriptedApps({ MODEL_RETRIES: '0' });

async function setup(script: Script, servers: unknown[] = [{ name: 'everything', url: everything.url }], env: Record<string, string> = {}) {
  return start(script, {
    env: { MCP_SERVERS: JSON.stringify(servers), ...env },
    // The wiring every entry does (src/entries/local.ts, edge.ts): the tool source from the configuration.
    deps: (vars) => ({ toolSource: mcpToolSource(loadConfig(vars)) }),
  });
}

const results = (events: SseEvent[]) => events.filter((e) => e.event === 'tool_result').map((e) => e.data as Record<string, any>);

describe('server-everything through the gate', () => {
  it('repairs everything__get_sum {"a":"2","b":3} and the real server answers 5; blocks everything__add with get-sum suggested; blocks everything__echo without message and never calls the server', async () => {
    const before = everything.toolCalls().length;
    const { app, upstream } = await setup((_req, i) => everythingStep(i));
    const res = await chat(app.url, { message: 'add 2 and 3' });
    expect(shape(res.events)).toEqual(['turn_start', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'text_delta', 'done']);
    const [sum, add, echo] = results(res.events);

    // The name and the number repaired, the call sent repaired, and the server's answer given to the model.
    expect(sum).toMatchObject({ name: 'everything__get-sum', verdict: 'repaired', ok: true, result: 'The sum of 2 and 3 is 5.' });
    expect(sum!.repairs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'tool_name', from: 'everything__get_sum', to: 'everything__get-sum' }),
        expect.objectContaining({ kind: 'coerce', path: '$.a', from: '"2"', to: '2' }),
      ]),
    );
    expect(JSON.stringify(lastToolResult(upstream.requests[1]!))).toContain('The sum of 2 and 3 is 5.');

    expect(add).toMatchObject({ name: 'everything__add', verdict: 'blocked', category: 'phantom_tool', ok: false });
    expect(add!.suggestions).toContain('everything__get-sum');
    expect(JSON.stringify(lastToolResult(upstream.requests[2]!))).toContain('everything__get-sum');

    expect(echo).toMatchObject({ name: 'everything__echo', verdict: 'blocked', category: 'missing_required', ok: false });
    expect(echo!.error).toMatch(/\$\.message: missing required parameter "message"/);

    // What the server saw: exactly one tools/call, get-sum with the repaired arguments; no add, no echo.
    expect(everything.toolCalls().slice(before)).toEqual([{ method: 'tools/call', tool: 'get-sum', arguments: { a: 2, b: 3 } }]);

    // The model was offered the server's tools under <server>__<tool>, inputSchema unchanged.
    const offered = upstream.requests[0]!.tools!.map((t) => t.function);
    const getSum = offered.find((f) => f.name === 'everything__get-sum')!;
    expect(getSum.parameters).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
    expect(offered.map((f) => f.name)).toContain('read_file');
    for (const f of offered) expect(f.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    // Task-only tools cannot be called by a plain client: not offered.
    expect(offered.map((f) => f.name)).not.toContain('everything__simulate-research-query');

    // Activity rows carry the server, also for the invented everything__add.
    expect(app.activity.calls.map((r) => [r.tool_requested, r.tool_server])).toEqual([
      ['everything__get_sum', 'everything'],
      ['everything__add', 'everything'],
      ['everything__echo', 'everything'],
    ]);
  }, 30_000);

  it('structuredContent becomes the result; an image is summarised, not inlined', async () => {
    const { app, upstream } = await setup((_req, i) => {
      if (i === 0) {
        return {
          toolCalls: [
            { id: 'c_weather', name: 'everything__get-structured-content', arguments: '{"location":"Chicago"}' },
            { id: 'c_image', name: 'everything__get-tiny-image', arguments: '{}' },
          ],
        };
      }
      return { text: 'Done.' };
    });
    const res = await chat(app.url, { message: 'weather and a picture' });
    const [weather, image] = results(res.events);
    expect(weather).toMatchObject({ verdict: 'pass', ok: true, result: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 } });
    expect(image!.result).toMatch(/^Here's the image you requested:\n\[image: image\/png, \d+\.\d KB, not shown\]\nThe image above is the MCP logo\.$/);
    const sent = upstream.requests[1]!.messages.filter((m) => m.role === 'tool')
      .map((m) => m.content ?? '')
      .join('\n');
    expect(sent).not.toContain('iVBORw0KGgo'); // the PNG's base64 never reaches the model
  }, 30_000);

  it('GET /v1/tools lists what the model will see and where each tool comes from', async () => {
    const { app } = await setup(() => ({ text: 'unused' }));
    const res = await fetch(`${app.url}/v1/tools`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: Array<Record<string, unknown>>; servers: Array<Record<string, unknown>> };
    expect(body.tools.find((t) => t.name === 'read_file')).toMatchObject({ source: 'functions' });
    expect(body.tools.find((t) => t.name === 'everything__get-sum')).toMatchObject({
      source: 'mcp',
      server: 'everything',
      serverTool: 'get-sum',
      description: 'Returns the sum of two numbers',
      parameters: { type: 'object', required: ['a', 'b'] },
    });
    // server-everything is a 2025 server (the v1 SDK): it does not answer server/discover, so the client speaks 2025-11-25.
    expect(body.servers).toEqual([
      { server: 'everything', url: new URL(everything.url).origin, ok: true, tools: expect.any(Number), cached: false, protocolVersion: '2025-11-25' },
    ]);
    expect(everything.received.map((m) => m.method).slice(0, 2)).toEqual(['server/discover', 'initialize']);
    // The list is kept per isolate: a second look does not list again.
    const lists = everything.received.filter((m) => m.method === 'tools/list').length;
    const again = (await (await fetch(`${app.url}/v1/tools`)).json()) as typeof body;
    expect(again.servers[0]).toMatchObject({ ok: true, cached: true });
    expect(everything.received.filter((m) => m.method === 'tools/list').length).toBe(lists);
  }, 30_000);

  it('an allowlist offers only its tools; a call to another one of the server is blocked before it leaves', async () => {
    const before = everything.toolCalls().length;
    const { app, upstream } = await setup(
      (_req, i) => (i === 0 ? { toolCalls: [{ id: 'c1', name: 'everything__echo', arguments: '{"message":"hi"}' }] } : { text: 'ok' }),
      [{ name: 'everything', url: everything.url, tools: ['get-sum', 'no-such-tool'] }],
    );
    const res = await chat(app.url, { message: 'echo hi' });
    expect(results(res.events)[0]).toMatchObject({ name: 'everything__echo', verdict: 'blocked', category: 'phantom_tool' });
    expect(upstream.requests[0]!.tools!.map((t) => t.function.name).filter((n) => n.startsWith('everything__'))).toEqual(['everything__get-sum']);
    expect(everything.toolCalls().slice(before)).toEqual([]);
    const listed = (await (await fetch(`${app.url}/v1/tools`)).json()) as { servers: unknown[] };
    expect(listed.servers[0]).toMatchObject({ ok: true, tools: 1, notOffered: ['no-such-tool'] });
  }, 30_000);

  it('an unreachable server at turn start: its tools are absent with one warning, the other server works', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const dead = `http://127.0.0.1:${await freePort()}/mcp`;
    const { app, upstream } = await setup(
      (_req, i) => (i === 0 ? { toolCalls: [{ id: 'c1', name: 'everything__get-sum', arguments: '{"a":1,"b":2}' }] } : { text: 'three' }),
      [
        { name: 'gone', url: dead, headers: { authorization: 'Bearer sk-never-logged' } },
        { name: 'everything', url: everything.url },
      ],
    );
    const res = await chat(app.url, { message: 'one plus two' });
    expect(results(res.events)[0]).toMatchObject({ ok: true, result: 'The sum of 1 and 2 is 3.' });
    const names = upstream.requests[0]!.tools!.map((t) => t.function.name);
    expect(names.some((n) => n.startsWith('gone__'))).toBe(false);
    expect(names).toContain('everything__get-sum');
    const lines = warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('"gone"'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/MCP server "gone" \(http:\/\/127\.0\.0\.1:\d+\) could not list its tools: .*left out until it is asked again in 30 s/);
    expect(warn.mock.calls.flat().join(' ')).not.toContain('sk-never-logged');
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
  }, 30_000);

  it('TOOL_TIMEOUT_MS cancels the MCP request: the server is told (notifications/cancelled) and the model gets an error result', async () => {
    const { app } = await setup(
      (_req, i) =>
        i === 0
          ? { toolCalls: [{ id: 'c_long', name: 'everything__trigger-long-running-operation', arguments: '{"duration":5,"steps":5}' }] }
          : { text: 'It took too long.' },
      undefined,
      { TOOL_TIMEOUT_MS: '400' },
    );
    const res = await chat(app.url, { message: 'run the long thing' });
    expect(results(res.events)[0]).toMatchObject({ ok: false, error: expect.stringMatching(/did not finish within 400 ms/) });
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed' });
    const call = everything.received.findLast((m) => m.method === 'tools/call' && m.tool === 'trigger-long-running-operation');
    expect(call).toBeTruthy();
    await vi.waitFor(() => expect(everything.received.some((m) => m.method === 'notifications/cancelled')).toBe(true), { timeout: 5_000 });
  }, 30_000);
});

describe('a server that goes down mid-turn', () => {
  it('gives the model an error result and the loop goes on to its answer', async () => {
    const own = await startEverything();
    try {
      const { app, upstream } = await setup(
        async (_req, i) => {
          if (i === 0) return { toolCalls: [{ id: 'c1', name: 'own__get-sum', arguments: '{"a":1,"b":1}' }] };
          if (i === 1) {
            await own.kill(); // between two calls of the same turn
            return { toolCalls: [{ id: 'c2', name: 'own__get-sum', arguments: '{"a":2,"b":2}' }] };
          }
          return { text: 'The server went away after 1 + 1 = 2.' };
        },
        [{ name: 'own', url: own.url }],
      );
      const res = await chat(app.url, { message: 'sums' });
      const [first, second] = results(res.events);
      expect(first).toMatchObject({ ok: true, result: 'The sum of 1 and 1 is 2.' });
      expect(second).toMatchObject({ name: 'own__get-sum', ok: false, category: 'execution_error' });
      expect(second!.error).toMatch(/the MCP server "own" (did not answer|could not be reached)/);
      expect(JSON.stringify(lastToolResult(upstream.requests[2]!))).toMatch(/MCP server \\"own\\"/);
      expect(textOf(res.events)).toBe('The server went away after 1 + 1 = 2.');
      expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 3 });
    } finally {
      await own.stop();
    }
  }, 40_000);
});

describe('a server whose entry says needsApproval', () => {
  it('its call waits for a person and never reaches the server before; approved with edited arguments (gated against its listing), the server runs them', async () => {
    const before = everything.toolCalls().length;
    const { app, upstream } = await setup(
      (req) =>
        req.messages.some((m) => m.role === 'tool')
          ? { text: 'The sum is 9.' }
          : { toolCalls: [{ id: 'c_sum', name: 'everything__get_sum', arguments: '{"a":"2","b":3}' }] },
      [{ name: 'everything', url: everything.url, needsApproval: true }],
    );
    const created = await fetch(`${app.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message": "add"}' });
    const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
    const stream = await openStream(app.url + streamUrl);
    const asked = await stream.until((e) => e.event === 'approval_required');
    // The call as it will run: the name and the number repaired; an MCP tool's effects cannot be previewed.
    expect(asked.data).toMatchObject({ toolCallId: 'c_sum', name: 'everything__get-sum', arguments: { a: 2, b: 3 } });
    expect(asked.data.diffs).toBeUndefined();
    expect(everything.toolCalls().slice(before)).toEqual([]);

    const res = await fetch(`${app.url}/v1/turns/${turnId}/approvals/${asked.data.approvalId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true, arguments: { a: '4', b: 5 } }),
    });
    expect(res.status).toBe(202);
    await stream.until((e) => e.event === 'done');
    expect(results(stream.events)).toEqual([expect.objectContaining({ id: 'c_sum', ok: true, approval: 'approved', result: 'The sum of 4 and 5 is 9.' })]);
    expect(everything.toolCalls().slice(before)).toEqual([{ method: 'tools/call', tool: 'get-sum', arguments: { a: 4, b: 5 } }]);
    expect(upstream.requests).toHaveLength(2);
    expect(app.activity.calls.map((r) => [r.tool_resolved, r.tool_server, r.approval])).toEqual([['everything__get-sum', 'everything', 'approved']]);
  }, 40_000);
});
