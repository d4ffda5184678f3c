// POST /v1/messages behind the real `@anthropic-ai/sdk` (messages.create, messages.stream().finalMessage()),
// translated to the scripted Chat Completions upstream (MESSAGES_UPSTREAM=chat): a call repaired under
// its id, a blocked call re-asked with only it named (the re-ask conformance script), text and tool
// results translated both ways, the verdict in x-rebound-verdict and on message_delta, the key as
// x-api-key, Anthropic-shaped errors, the request bounds, count_tokens.
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createJwtAuthenticator } from '../../src/http/auth/jwt.ts';
import { TEST_JWT_SECRET } from '../support/jwt.ts';
import { expectReaskOfBlockedOnly, validAndBlocked, WEATHER_SCHEMA } from '../support/reask-scripts.ts';
import { startGateway, type Gateway } from './harness.ts';

let gw: Gateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const KEY = 'rk-messages-test';
const TOOLS: Anthropic.Tool[] = [
  { name: 'get_weather', description: 'The forecast for a city', input_schema: WEATHER_SCHEMA as unknown as Anthropic.Tool.InputSchema },
];
const ASK: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris and Rome?' }];

/** A gateway off local mode: only GATEWAY_KEYS (or a user token) gets in. */
async function start(script: Parameters<typeof startGateway>[0]) {
  gw = await startGateway(script, { GATEWAY_KEYS: KEY, GATEWAY_RETRIES: '1' }, { auth: createJwtAuthenticator({ secret: TEST_JWT_SECRET }) });
  return new Anthropic({ apiKey: KEY, baseURL: gw.app.url, maxRetries: 0 });
}

describe('POST /v1/messages, translated to a chat upstream', () => {
  it('messages.create: "3" for an integer is repaired under the same id; the upstream is asked in Chat Completions', async () => {
    const client = await start(() => ({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","days":"3"}' }] }));
    const { data, response } = await client.messages.create({ model: 'claude-test', max_tokens: 256, tools: TOOLS, messages: ASK }).withResponse();
    expect(data.content).toEqual([{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 3 } }]);
    expect(data.stop_reason).toBe('tool_use');
    expect(data.model).toBe('claude-test');
    expect(response.headers.get('x-rebound-verdict')).toBe('repaired');
    const asked = gw!.upstream.requests[0]!;
    expect(asked.messages).toEqual([{ role: 'user', content: 'Weather in Paris and Rome?' }]);
    expect(asked.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'The forecast for a city', parameters: WEATHER_SCHEMA } }]);
  });

  it('messages.stream().finalMessage(): a valid call and a blocked one; only the blocked one re-asked; the verdict on message_delta', async () => {
    const client = await start(validAndBlocked);
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 256, tools: TOOLS, messages: ASK });
    const events: Anthropic.MessageStreamEvent[] = [];
    stream.on('streamEvent', (e) => events.push(e));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris', days: 2 } },
      { type: 'tool_use', id: 'call_c', name: 'get_weather', input: { city: 'Rome', days: 1 } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expectReaskOfBlockedOnly(gw!.upstream.requests[1]!);
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      ...['content_block_start', 'content_block_delta', 'content_block_stop'],
      ...['content_block_start', 'content_block_delta', 'content_block_stop'],
      'message_delta',
      'message_stop',
    ]);
    expect(events.at(-2)).toMatchObject({ type: 'message_delta', rebound: { attempts: 2, verdict: 'pass' } });
  });

  it('text streams as a text block; tool_use and tool_result go upstream as tool_calls and a tool message; the key as a bearer works too', async () => {
    gw = await startGateway(() => ({ text: 'It is sunny in Paris.' }), { GATEWAY_KEYS: KEY }, { auth: createJwtAuthenticator({ secret: TEST_JWT_SECRET }) });
    const client = new Anthropic({ authToken: KEY, apiKey: null, baseURL: gw.app.url, maxRetries: 0 });
    const message = await client.messages
      .stream({
        model: 'claude-test',
        max_tokens: 256,
        system: 'Be brief.',
        tools: TOOLS,
        messages: [
          ...ASK,
          { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 1 } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' }] },
        ],
      })
      .finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'It is sunny in Paris.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(gw.upstream.requests[0]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":1}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ]);
  });

  it("errors in Anthropic's shape: a wrong key (401), a request past the bounds (400), a bad body (400); the upstream never asked", async () => {
    await start(() => ({ text: 'never' }));
    const wrong = new Anthropic({ apiKey: 'rk-wrong', baseURL: gw!.app.url, maxRetries: 0 });
    await expect(wrong.messages.create({ model: 'm', max_tokens: 1, messages: ASK })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    const post = (body: unknown) =>
      fetch(`${gw!.app.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const many = await post({ model: 'm', max_tokens: 1, messages: Array.from({ length: 10_001 }, () => ({ role: 'user', content: 'x' })) });
    expect(many.status).toBe(400);
    expect(await many.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('messages') } });
    const noMax = await post({ model: 'm', messages: ASK });
    expect(noMax.status).toBe(400);
    expect(await noMax.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') } });
    expect(gw!.upstream.requests).toHaveLength(0);
  });

  it('count_tokens is answered by the gateway', async () => {
    const client = await start(() => ({ text: 'never' }));
    const counted = await client.messages.countTokens({ model: 'claude-test', tools: TOOLS, messages: ASK });
    expect(counted.input_tokens).toBeGreaterThan(10);
    expect(gw!.upstream.requests).toHaveLength(0);
  });

  it('Claude Code\'s Write with a body cut short ("// ... rest of the code unchanged") is blocked and re-asked; the whole file goes out', async () => {
    const cut = 'export const a = 1;\n// ... rest of the code unchanged\n';
    const whole = 'export const a = 1;\nexport const b = 2;\n';
    const write = (id: string, content: string) => ({ toolCalls: [{ id, name: 'Write', arguments: JSON.stringify({ file_path: '/w/a.ts', content }) }] });
    const client = await start((_req, i) => (i === 0 ? write('call_1', cut) : write('call_2', whole)));
    const tools: Anthropic.Tool[] = [
      {
        name: 'Write',
        description: 'Write a file',
        input_schema: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } }, required: ['file_path', 'content'] },
      },
    ];
    const message = await client.messages
      .stream({ model: 'claude-test', max_tokens: 256, tools, messages: [{ role: 'user', content: 'Add b.' }] })
      .finalMessage();
    expect(message.content).toEqual([{ type: 'tool_use', id: 'call_2', name: 'Write', input: { file_path: '/w/a.ts', content: whole } }]);
    const told = gw!.upstream.requests[1]!.messages.at(-1)!;
    expect(told).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(JSON.parse(told.content!).error).toMatch(/elides code/);
    // The same record as a Chat Completions call, the protocol named.
    expect(gw!.app.activity.calls.map((r) => [r.source, r.protocol, r.iteration, r.verdict])).toEqual([
      ['gateway', 'messages', 1, 'blocked'],
      ['gateway', 'messages', 2, 'pass'],
    ]);
  });
});
