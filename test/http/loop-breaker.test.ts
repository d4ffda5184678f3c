// The loop breaker over real HTTP: a scripted model that sends the same failed call again and again
// is shown the tool's schema and a valid example, then loses the tool for the rest of the turn, and
// the turn still ends with an answer.
import { describe, expect, it } from 'vitest';
import { lastToolResult, type ChatRequest, type Script } from '../support/scripted-openai.ts';
import { scriptedApps } from '../support/scripted-app.ts';
import { chat, textOf } from '../support/sse-client.ts';
import { gate } from 'rebound-gate';
import type { Tool } from '../../src/tools/types.ts';

const start = scriptedApps({ MODEL_RETRIES: '0' });
const setup = (script: Script, tools: Tool[], env: Record<string, string> = {}) => start(script, { env, deps: { tools } });

function tools() {
  const ran: unknown[] = [];
  const echo: Tool = {
    name: 'echo',
    description: 'Echoes text a number of times',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1 }, loud: { type: 'boolean' } },
      required: ['text', 'times'],
    },
    run: async (args) => {
      ran.push(args);
      return { echoed: String(args.text).repeat(Number(args.times)) };
    },
  };
  const list: Tool = { name: 'list', description: 'Lists things', parameters: { type: 'object', properties: {} }, run: async () => ({ items: [] }) };
  return { echo, list, ran };
}

const offered = (request: ChatRequest) => (request.tools ?? []).map((t) => t.function.name);
const results = (events: Array<{ event: string; data: any }>) => events.filter((e) => e.event === 'tool_result').map((e) => e.data);

describe('the loop breaker', () => {
  it('escalates the same bad call: schema and example, then the tool is withheld, and the turn still answers', async () => {
    const { echo, list, ran } = tools();
    // The same call three times, spaced differently each time, then the withheld tool once more.
    const sent = ['{"times": 2}', '{ "times":2 }', '{"times":\n2}', '{"text": "hi", "times": 1}'];
    // The no-progress stop (NO_PROGRESS_ITERATIONS, 2 by default) would end this turn after the third
    // call; raised here so that the breaker's last step, the withheld tool, is seen on its own.
    const { app, upstream } = await setup(
      (_req, i) => (i < sent.length ? { toolCalls: [{ name: 'echo', arguments: sent[i]! }] } : { text: 'Final answer.' }),
      [echo, list],
      { NO_PROGRESS_ITERATIONS: '5' },
    );
    const res = await chat(app.url, { message: 'echo twice' });

    expect(results(res.events).map((r) => [r.verdict, r.category])).toEqual([
      ['blocked', 'missing_required'],
      ['blocked', 'repeated_failure'],
      ['blocked', 'repeated_failure'],
      ['blocked', 'repeated_failure'],
    ]);

    const first = lastToolResult(upstream.requests[1]!) as Record<string, unknown>;
    expect(first).not.toHaveProperty('schema');
    const second = lastToolResult(upstream.requests[2]!) as { error: string; schema: unknown; example: unknown };
    expect(second.error).toMatch(/missing required parameter "text"[\s\S]*failed 2 times/);
    expect(second.schema).toEqual(echo.parameters);
    expect(gate({ id: 'check', name: 'echo', arguments: JSON.stringify(second.example) }, [echo, list])).toMatchObject({ verdict: 'pass' });

    const third = lastToolResult(upstream.requests[3]!) as { error: string };
    expect(third.error).toMatch(/failed 3 times[\s\S]*"echo" is now withheld for the rest of this turn/);
    expect(third).not.toHaveProperty('schema');
    expect(upstream.requests.slice(0, 3).map(offered)).toEqual([
      ['echo', 'list'],
      ['echo', 'list'],
      ['echo', 'list'],
    ]);
    expect(upstream.requests.slice(3).map(offered)).toEqual([['list'], ['list']]);

    // Valid arguments, but the tool is gone for this turn: refused, not run.
    const fourth = lastToolResult(upstream.requests[4]!) as { ok: boolean; error: string };
    expect(fourth).toMatchObject({ ok: false });
    expect(fourth.error).toMatch(/^Tool "echo" was not executed: it was withheld .*\(list\)/);
    expect(ran).toEqual([]);

    expect(textOf(res.events)).toBe('Final answer.');
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 5 });

    const rows = app.activity.calls;
    expect(rows.map((r) => [r.verdict, r.category])).toEqual([
      ['blocked', 'missing_required'],
      ['blocked', 'repeated_failure'],
      ['blocked', 'repeated_failure'],
      ['blocked', 'repeated_failure'],
    ]);
    expect(rows[1]!.problems).toEqual([
      '$.text: missing required parameter "text"',
      '$: the same call failed with missing_required 2 times in this turn; the schema and an example were sent',
    ]);
    expect(rows[2]!.problems.at(-1)).toMatch(/3 times in this turn; the tool was withheld/);
    expect(rows[3]!.problems).toEqual(['$name: the tool was withheld for the rest of the turn after repeated identical failures']);
  });

  it('does not escalate a different bad call (other arguments)', async () => {
    const { echo, list } = tools();
    const sent = ['{"times": 1}', '{"times": 2}', '{"times": 3}'];
    const { app, upstream } = await setup(
      (_req, i) => (i < sent.length ? { toolCalls: [{ name: 'echo', arguments: sent[i]! }] } : { text: 'Gave up.' }),
      [echo, list],
    );
    const res = await chat(app.url, { message: 'x' });
    expect(results(res.events).map((r) => r.category)).toEqual(['missing_required', 'missing_required', 'missing_required']);
    for (const request of upstream.requests.slice(1)) {
      expect(lastToolResult(request)).not.toHaveProperty('schema');
      expect((lastToolResult(request) as { error: string }).error).not.toMatch(/Repeated/);
    }
    expect(upstream.requests.map(offered).every((names) => names.includes('echo'))).toBe(true);
    expect(app.activity.calls.map((r) => r.category)).not.toContain('repeated_failure');
    expect(textOf(res.events)).toBe('Gave up.');
  });

  it('escalates a call that keeps failing when it runs, and counts identical calls within one reply', async () => {
    let runs = 0;
    const flaky: Tool = {
      name: 'fetch_page',
      description: 'Fetches a page',
      parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
      run: async () => {
        runs++;
        throw new Error('host not found');
      },
    };
    const { list } = tools();
    const call = { name: 'fetch_page', arguments: '{"url": "http://nowhere.invalid"}' };
    const { app, upstream } = await setup(
      (_req, i) => (i === 0 ? { toolCalls: [call, call, call, call] } : { text: 'The page cannot be reached.' }),
      [flaky, list],
    );
    const res = await chat(app.url, { message: 'fetch it' });

    expect(results(res.events).map((r) => [r.verdict, r.category, r.ok])).toEqual([
      ['pass', 'execution_error', false],
      ['pass', 'repeated_failure', false],
      ['pass', 'repeated_failure', false],
      ['blocked', 'repeated_failure', false],
    ]);
    expect(runs).toBe(3);
    const sent = upstream.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content!));
    expect(sent[0].hint).toMatch(/correct the arguments/);
    expect(sent[1]).toMatchObject({ error: expect.stringContaining('host not found'), schema: flaky.parameters, example: { url: 'example' } });
    expect(sent[2].hint).toMatch(/"fetch_page" is now withheld/);
    expect(sent[3].error).toMatch(/was not executed: it was withheld/);
    expect(offered(upstream.requests[1]!)).toEqual(['list']);
    expect(app.activity.calls.map((r) => r.category)).toEqual(['execution_error', 'repeated_failure', 'repeated_failure', 'repeated_failure']);
    expect(res.events.at(-1)!.data.reason).toBe('completed');
  });
});
