// POST /v1/responses behind the real `openai` package (responses.create, responses.stream()) and the
// Agents SDK with its default Responses model (setDefaultOpenAIClient, the model by name), translated to
// the scripted Chat Completions upstream (RESPONSES_UPSTREAM=chat): a call repaired under its call_id, a blocked call re-asked with only it named
// (the re-ask conformance script), a freeform tool's call as a custom_tool_call, function_call items and
// their outputs translated both ways, the verdict in x-rebound-verdict and on response.completed,
// previous_response_id a clear 400, the request bounds.
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { expectReaskOfBlockedOnly, validAndBlocked, WEATHER_SCHEMA } from '../support/reask-scripts.ts';
import { startGateway, type Gateway } from './harness.ts';

beforeAll(() => setTracingDisabled(true));

let gw: Gateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const TOOLS: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'The forecast for a city',
    parameters: WEATHER_SCHEMA as unknown as Record<string, unknown>,
    strict: false,
  },
];

async function start(script: Parameters<typeof startGateway>[0]) {
  gw = await startGateway(script, { GATEWAY_RETRIES: '1' });
  return gw.openai;
}

describe('POST /v1/responses, translated to a chat upstream', () => {
  it('responses.create: "3" for an integer is repaired under the same call_id; the upstream is asked in Chat Completions', async () => {
    const client = await start(() => ({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","days":"3"}' }] }));
    const { data, response } = await client.responses
      .create({ model: 'gpt-test', instructions: 'Be brief.', input: 'Weather in Paris?', tools: TOOLS })
      .withResponse();
    expect(data.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","days":3}' }),
    ]);
    expect(data.status).toBe('completed');
    expect(response.headers.get('x-rebound-verdict')).toBe('repaired');
    const asked = gw!.upstream.requests[0]!;
    expect(asked.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
    ]);
    expect(asked.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'The forecast for a city', parameters: WEATHER_SCHEMA } }]);
  });

  it('structured output (text.format) goes upstream as response_format', async () => {
    const client = await start(() => ({ text: '{"city":"Paris"}' }));
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const created = await client.responses.create({
      model: 'gpt-test',
      input: 'Which city?',
      text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } },
    });
    expect(created.output_text).toBe('{"city":"Paris"}');
    expect((gw!.upstream.requests[0] as unknown as { response_format: unknown }).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema, strict: true },
    });
  });

  it('responses.stream(): a valid call and a blocked one; only the blocked one re-asked; the verdict on response.completed', async () => {
    const client = await start(validAndBlocked);
    const stream = client.responses.stream({ model: 'gpt-test', input: 'Weather in Paris and Rome?', tools: TOOLS });
    const events: Array<{ type: string; sequence_number: number }> = [];
    stream.on('event', (e) => events.push(e));
    const final = await stream.finalResponse();
    expect(final.output.map((o) => (o.type === 'function_call' ? [o.call_id, JSON.parse(o.arguments)] : o.type))).toEqual([
      ['call_a', { city: 'Paris', days: 2 }],
      ['call_c', { city: 'Rome', days: 1 }],
    ]);
    expectReaskOfBlockedOnly(gw!.upstream.requests[1]!);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0]!.type).toBe('response.created');
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', rebound: { attempts: 2, verdict: 'pass' } });
  });

  it('text streams as a message item; function_call and function_call_output items go upstream as tool_calls and a tool message', async () => {
    const client = await start(() => ({ text: 'It is sunny in Paris.' }));
    const final = await client.responses
      .stream({
        model: 'gpt-test',
        tools: TOOLS,
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","days":1}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        ],
      })
      .finalResponse();
    expect(final.output_text).toBe('It is sunny in Paris.');
    expect(gw!.upstream.requests[0]!.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":1}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ]);
  });

  it("a freeform tool (Codex's apply_patch) goes upstream as a function with one string parameter and comes back as a custom_tool_call", async () => {
    const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n';
    const client = await start(() => ({ toolCalls: [{ id: 'call_p', name: 'apply_patch', arguments: JSON.stringify({ input: patch }) }] }));
    const tools: OpenAI.Responses.Tool[] = [{ type: 'custom', name: 'apply_patch', description: 'Edit files with a patch', format: { type: 'text' } }];
    const created = await client.responses.create({ model: 'gpt-test', input: 'Add hello.txt', tools });
    expect(created.output).toEqual([expect.objectContaining({ type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: patch })]);
    const streamed = await client.responses.stream({ model: 'gpt-test', input: 'Add hello.txt', tools }).finalResponse();
    expect(streamed.output).toEqual([expect.objectContaining({ type: 'custom_tool_call', call_id: 'call_p', input: patch })]);
    expect(gw!.upstream.requests[0]!.tools).toEqual([
      expect.objectContaining({
        type: 'function',
        function: expect.objectContaining({ name: 'apply_patch', parameters: expect.objectContaining({ required: ['input'] }) }),
      }),
    ]);
  });

  it('previous_response_id is a 400 that says what to do; the request bounds hold; the upstream never asked', async () => {
    const client = await start(() => ({ text: 'never' }));
    const stored = await client.responses.create({ model: 'gpt-test', input: 'Go on.', previous_response_id: 'resp_1' }).catch((e: unknown) => e);
    expect(stored).toBeInstanceOf(OpenAI.BadRequestError);
    expect((stored as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/RESPONSES_UPSTREAM=responses/);
    const many = await client.responses
      .create({ model: 'gpt-test', input: Array.from({ length: 10_001 }, () => ({ role: 'user' as const, content: 'x' })) })
      .catch((e: unknown) => e);
    expect(many).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((many as Error).message)).toMatch(/input/);
    expect(gw!.upstream.requests).toHaveLength(0);
  });

  it('the Agents SDK with its default Responses model: a repaired call runs, streamed or not', async () => {
    const client = await start((req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: 'Sunny.' }
        : { toolCalls: [{ id: 'call_1', name: 'get_wether', arguments: '{"city":"Paris","days":"2"}' }] },
    );
    // The SDK's defaults: the model named, the default provider's own Responses model, over this client.
    setDefaultOpenAIClient(client);
    for (const stream of [false, true]) {
      const ran: unknown[] = [];
      const getWeather = tool({
        name: 'get_weather',
        description: 'The forecast for a city',
        parameters: z.object({ city: z.string(), days: z.number().int() }),
        execute: async (input) => {
          ran.push(input);
          return 'sunny';
        },
      });
      const agent = new Agent({ name: 'weather', model: 'gpt-test', tools: [getWeather] });
      const result = stream ? await run(agent, 'Weather in Paris?', { stream: true }) : await run(agent, 'Weather in Paris?');
      if ('completed' in result) {
        for await (const _ of result);
        await result.completed;
      }
      expect(ran).toEqual([{ city: 'Paris', days: 2 }]);
      expect(result.finalOutput).toBe('Sunny.');
    }
    // Through /v1/responses (the rows name the protocol): two turns of two model requests each.
    expect(gw!.upstream.requests).toHaveLength(4);
    expect(gw!.app.activity.calls.map((r) => [r.protocol, r.verdict])).toEqual([
      ['responses', 'repaired'],
      ['responses', 'repaired'],
    ]);
  });

  it("Codex's apply_patch adding a file with a placeholder is blocked and re-asked; the whole patch goes out", async () => {
    const patch = (body: string) => `*** Begin Patch\n*** Add File: a.py\n${body}\n*** End Patch\n`;
    const cut = patch('+def f():\n+    # ... rest of the implementation');
    const whole = patch('+def f():\n+    return 1');
    const client = await start((_req, i) => ({
      toolCalls: [{ id: `call_${i}`, name: 'apply_patch', arguments: JSON.stringify({ input: i === 0 ? cut : whole }) }],
    }));
    const tools: OpenAI.Responses.Tool[] = [{ type: 'custom', name: 'apply_patch', description: 'Edit files with a patch' }];
    const final = await client.responses.stream({ model: 'gpt-test', input: 'Add a.py', tools }).finalResponse();
    expect(final.output).toEqual([expect.objectContaining({ type: 'custom_tool_call', call_id: 'call_1', input: whole })]);
    const told = gw!.upstream.requests[1]!.messages.at(-1)!;
    expect(told).toMatchObject({ role: 'tool', tool_call_id: 'call_0' });
    expect(JSON.parse(told.content!).error).toMatch(/a\.py/);
    expect(gw!.app.activity.calls.map((r) => [r.source, r.protocol, r.verdict])).toEqual([
      ['gateway', 'responses', 'blocked'],
      ['gateway', 'responses', 'pass'],
    ]);
  });
});
