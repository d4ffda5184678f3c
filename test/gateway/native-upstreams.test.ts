// The native upstream modes, behind the real clients: MESSAGES_UPSTREAM=anthropic (the scripted Anthropic
// Messages API, test/support/scripted-native.ts, with @anthropic-ai/sdk) and RESPONSES_UPSTREAM=responses
// (the scripted Responses API, with openai). The upstream is sent the client's own body (its thinking
// config, previous_response_id) and headers (anthropic-version, the server's key); thinking blocks and
// reasoning items pass untouched; a call is repaired under its id; a blocked one is re-asked in the
// upstream's own shape (tool_use + tool_result is_error; function_call + function_call_output), only it.
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { WEATHER_SCHEMA } from '../support/reask-scripts.ts';
import { type NativeScript, type NativeServer, type ResponsesKeyOrder, startScriptedAnthropic, startScriptedResponses } from '../support/scripted-native.ts';
import { startGateway, type Gateway } from './harness.ts';

let gw: Gateway | undefined;
let native: NativeServer | undefined;
afterEach(async () => {
  await gw?.close();
  await native?.close();
  gw = undefined;
  native = undefined;
});

const paris = { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris","days":2}' };
const rome = { id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' };
const romeFixed = { id: 'call_c', name: 'get_weather', arguments: '{"city":"Rome","days":1}' };
/** The conformance script's answers, natively: a valid call and a blocked one, then the fix, with thinking first. */
const validAndBlocked: NativeScript = (_body, i) => (i === 0 ? { thinking: 'Two cities.', calls: [paris, rome] } : { calls: [romeFixed] });

/**
 * The upstream's finish held back (NativeReply `finishWhen`) until the client has the call (`release`
 * from the client's event), or, should the call not come before the finish, until a deadline that only
 * keeps a failing test from hanging: `byCall` says which released it.
 */
function heldFinish() {
  let release!: () => void;
  const state = { byCall: false, released: false };
  const finish = new Promise<void>((resolve) => {
    release = () => {
      state.released = true;
      resolve();
    };
  });
  const deadline = setTimeout(release, 3_000);
  return {
    finish,
    state,
    /** The client has the complete call: was the finish still held back? */
    callSeen() {
      if (!state.released) state.byCall = true;
      clearTimeout(deadline);
      release();
    },
  };
}

describe('MESSAGES_UPSTREAM=anthropic', () => {
  const TOOLS: Anthropic.Tool[] = [
    { name: 'get_weather', description: 'The forecast for a city', input_schema: WEATHER_SCHEMA as unknown as Anthropic.Tool.InputSchema },
  ];
  async function start(script: NativeScript) {
    native = await startScriptedAnthropic(script);
    gw = await startGateway(() => ({ text: 'the chat upstream is not asked' }), {
      MESSAGES_UPSTREAM: 'anthropic',
      ANTHROPIC_BASE_URL: native.url,
      ANTHROPIC_API_KEY: 'sk-ant-server',
      GATEWAY_RETRIES: '1',
    });
    return new Anthropic({ apiKey: 'sk-ant-client', baseURL: gw.app.url, maxRetries: 0, defaultHeaders: { 'anthropic-beta': 'test-beta-1' } });
  }

  it('messages.create: the client\'s body and headers reach Anthropic; thinking passes untouched; "3" is repaired under the same id', async () => {
    const client = await start(() => ({
      thinking: 'Paris, three days.',
      calls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris","days":"3"}' }],
    }));
    const { data, response } = await client.messages
      .create({
        model: 'claude-test',
        max_tokens: 1024,
        thinking: { type: 'enabled', budget_tokens: 512 },
        tools: TOOLS,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
      })
      .withResponse();
    expect(data.content).toEqual([
      { type: 'thinking', thinking: 'Paris, three days.', signature: expect.stringMatching(/^sig_/) },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', days: 3 } },
    ]);
    expect(response.headers.get('x-rebound-verdict')).toBe('repaired');
    expect(native!.requests[0]).toMatchObject({ model: 'claude-test', max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 512 }, tools: TOOLS });
    expect(native!.headers[0]!['x-api-key']).toBe('sk-ant-server');
    // The SDK's anthropic-version and the client's anthropic-beta, passed on.
    expect(native!.headers[0]!['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(native!.headers[0]!['anthropic-beta']).toBe('test-beta-1');
    expect(gw!.upstream.requests).toHaveLength(0);
  });

  it('messages.stream().finalMessage(): the blocked call alone is re-asked as tool_use + tool_result (is_error); thinking streams through', async () => {
    const client = await start(validAndBlocked);
    const stream = client.messages.stream({
      model: 'claude-test',
      max_tokens: 1024,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
    });
    const events: Anthropic.MessageStreamEvent[] = [];
    stream.on('streamEvent', (e) => events.push(e));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Two cities.', signature: expect.stringMatching(/^sig_/) },
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris', days: 2 } },
      { type: 'tool_use', id: 'call_c', name: 'get_weather', input: { city: 'Rome', days: 1 } },
    ]);
    const reask = native!.requests[1]!.messages as Array<{ role: string; content: unknown }>;
    expect(reask).toHaveLength(3);
    expect(reask[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'call_b', name: 'get_weather', input: { city: 'Rome' } }] });
    expect(reask[2]).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'call_b', is_error: true, content: expect.stringContaining('days') }],
    });
    expect(events.at(-2)).toMatchObject({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, rebound: { attempts: 2, verdict: 'pass' } });
    expect(message.usage).toMatchObject({ input_tokens: 200, output_tokens: 40 });
  });

  it("a call goes out at its tool_use block's end, before message_delta (which comes in a later packet); text before it stays before it", async () => {
    const held = heldFinish();
    const client = await start(() => ({ text: 'Checking. ', calls: [paris], finishWhen: held.finish }));
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 64, tools: TOOLS, messages: [{ role: 'user', content: 'Paris?' }] });
    const types = new Map<number, string>();
    stream.on('streamEvent', (e) => {
      if (e.type === 'content_block_start') types.set(e.index, e.content_block.type);
      if (e.type === 'content_block_stop' && types.get(e.index) === 'tool_use') held.callSeen();
    });
    const message = await stream.finalMessage();
    expect(held.state.byCall).toBe(true);
    expect(message.content).toEqual([
      { type: 'text', text: 'Checking. ' },
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris', days: 2 } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('an Anthropic error is passed on in its shape and status', async () => {
    const client = await start(() => ({ status: 529, message: 'Overloaded' }));
    const err = await client.messages.create({ model: 'claude-test', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });
});

describe('RESPONSES_UPSTREAM=responses', () => {
  const TOOLS = [
    {
      type: 'function' as const,
      name: 'get_weather',
      description: 'The forecast for a city',
      parameters: WEATHER_SCHEMA as unknown as Record<string, unknown>,
      strict: false,
    },
  ];
  async function start(script: NativeScript, keyOrder: ResponsesKeyOrder = 'today') {
    native = await startScriptedResponses(script, { keyOrder });
    gw = await startGateway(() => ({ text: 'not asked' }), { RESPONSES_UPSTREAM: 'responses', OPENAI_BASE_URL: native.url, GATEWAY_RETRIES: '1' });
    return gw.openai;
  }

  it('responses.create: previous_response_id reaches the upstream; the reasoning item passes untouched; "3" is repaired under the same call_id', async () => {
    const client = await start(() => ({ thinking: 'Paris.', calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","days":"3"}' }] }));
    const { data, response } = await client.responses
      .create({ model: 'gpt-test', input: 'And in Paris?', previous_response_id: 'resp_before', reasoning: { effort: 'low' }, tools: TOOLS })
      .withResponse();
    expect(data.output).toEqual([
      expect.objectContaining({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Paris.' }], encrypted_content: expect.stringMatching(/^enc_/) }),
      expect.objectContaining({ type: 'function_call', call_id: 'call_1', arguments: '{"city":"Paris","days":3}' }),
    ]);
    expect(response.headers.get('x-rebound-verdict')).toBe('repaired');
    expect(native!.requests[0]).toMatchObject({ model: 'gpt-test', input: 'And in Paris?', previous_response_id: 'resp_before', reasoning: { effort: 'low' } });
    expect(native!.headers[0]!.authorization).toBe('Bearer sk-upstream-secret');
  });

  it('responses.stream(): the blocked call alone is re-asked as function_call + function_call_output items; the reasoning item streams through', async () => {
    const client = await start(validAndBlocked);
    const stream = client.responses.stream({ model: 'gpt-test', input: 'Weather in Paris and Rome?', tools: TOOLS });
    const events: Array<{ type: string; sequence_number: number }> = [];
    stream.on('event', (e) => events.push(e));
    const final = await stream.finalResponse();
    expect(final.output.map((o) => (o.type === 'function_call' ? o.call_id : o.type))).toEqual(['reasoning', 'call_a', 'call_c']);
    const input = native!.requests[1]!.input as Array<Record<string, unknown>>;
    expect(input.slice(1)).toEqual([
      { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
      { type: 'function_call_output', call_id: 'call_b', output: expect.stringContaining('days') },
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', rebound: { attempts: 2, verdict: 'pass' } });
  });

  for (const keyOrder of ['today', 'older'] as const)
    it(`a call goes out at its output_item.done, before response.completed (which comes in a later packet): the API's key order of ${keyOrder}`, async () => {
      const held = heldFinish();
      const client = await start(() => ({ text: 'Checking the forecast for Paris. ', calls: [paris], finishWhen: held.finish }), keyOrder);
      const stream = client.responses.stream({ model: 'gpt-test', input: 'Paris?', tools: TOOLS });
      stream.on('event', (e) => {
        if (e.type === 'response.output_item.done' && e.item.type === 'function_call') held.callSeen();
      });
      const final = await stream.finalResponse();
      expect(held.state.byCall).toBe(true);
      expect(final.output.map((o) => (o.type === 'function_call' ? [o.call_id, o.arguments] : o.type))).toEqual(['message', ['call_a', paris.arguments]]);
      expect(final.status).toBe('completed');
      expect(final.output_text).toBe('Checking the forecast for Paris. ');
    });

  it('a custom tool call streams through as a custom_tool_call with its input', async () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n';
    const client = await start(() => ({ calls: [{ id: 'call_p', name: 'apply_patch', arguments: patch, custom: true }] }));
    const tools = [{ type: 'custom' as const, name: 'apply_patch', description: 'Edit files' }];
    const final = await client.responses.stream({ model: 'gpt-test', input: 'Add a.txt', tools }).finalResponse();
    expect(final.output).toEqual([expect.objectContaining({ type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: patch })]);
  });
});
