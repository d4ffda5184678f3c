// The gateway behind the real `openai` package, stream and non-stream: the scripted upstream plays a
// model that invents names, stringifies arrays, sends "true" for booleans, writes calls into its
// text and sends a call that stays invalid after the gate's repairs; the client must receive valid
// calls under the upstream's ids, with the right finish_reason, and an unfixable answer unchanged.
import type OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResult } from '../support/scripted-openai.ts';
import { ASK, TOOLS, fold, startGateway, type Gateway } from './harness.ts';

let gw: Gateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

async function streamed(params: Omit<OpenAI.Chat.ChatCompletionCreateParamsStreaming, 'stream'>) {
  const { data, response } = await gw!.openai.chat.completions.create({ ...params, stream: true }).withResponse();
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of data) chunks.push(chunk);
  return { ...fold(chunks), chunks, headers: response.headers };
}

describe('non-streaming, through the openai package', () => {
  it('repairs an invented name, a stringified array and "true" for a boolean, keeping the ids', async () => {
    gw = await startGateway(() => ({
      toolCalls: [
        { id: 'call_weather1', name: 'getWeather', arguments: '{"city": "Paris", "days": "3"}' },
        { id: 'call_notes1', name: 'search_notes', arguments: '{"query": "rain", "tags": "[\\"trip\\", \\"paris\\"]", "exact": "true"}' },
      ],
    }));
    const { data, response } = await gw.openai.chat.completions.create({ model: 'client-model', messages: ASK, tools: TOOLS }).withResponse();
    const message = data.choices[0]!.message;
    expect(data.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.tool_calls).toEqual([
      { id: 'call_weather1', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city: 'Paris', days: 3 }) } },
      {
        id: 'call_notes1',
        type: 'function',
        function: { name: 'search_notes', arguments: JSON.stringify({ query: 'rain', tags: ['trip', 'paris'], exact: true }) },
      },
    ]);
    expect(response.headers.get('x-rebound-verdict')).toBe('repaired');
    expect(response.headers.get('x-rebound-attempts')).toBe('1');
    expect(gw.upstream.requests).toHaveLength(1);
    // The upstream got the client's request, with the server's key and without the extension field.
    const sent = gw.upstream.requests[0]!;
    expect(sent.model).toBe('client-model');
    expect(JSON.stringify(sent.tools)).not.toContain('x-rebound-code');
    expect(sent.tools).toHaveLength(3);
  });

  it('passes a valid answer through byte for byte', async () => {
    gw = await startGateway(() => ({ text: 'Sunny, 24 degrees.' }));
    const res = await fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: ASK, tools: TOOLS }),
    });
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(body).choices[0].message.content).toBe('Sunny, 24 degrees.');
    expect(gw.upstream.sentBytes[0]).toBe(Buffer.byteLength(body));
    expect(res.headers.get('x-rebound-verdict')).toBe('none');
  });

  it('turns a call written into the text into a real tool call', async () => {
    gw = await startGateway(() => ({ text: 'Let me check.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>' }));
    const data = await gw.openai.chat.completions.create({ model: 'm', messages: ASK, tools: TOOLS });
    const choice = data.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('Let me check.');
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(call.id).toMatch(/^call_/);
  });

  it('re-asks for a call that stays invalid, with the gate message, and returns the corrected answer', async () => {
    gw = await startGateway((_req, i) =>
      i === 0
        ? {
            text: 'Checking.',
            toolCalls: [{ id: 'call_bad', name: 'get_weather', arguments: '{"units": "c"}' }],
            usage: { prompt_tokens: 50, completion_tokens: 10 },
          }
        : {
            toolCalls: [{ id: 'call_good', name: 'get_weather', arguments: '{"city": "Paris", "units": "c"}' }],
            usage: { prompt_tokens: 70, completion_tokens: 12 },
          },
    );
    const { data, response } = await gw.openai.chat.completions.create({ model: 'm', messages: ASK, tools: TOOLS }).withResponse();
    expect(data.choices[0]!.message.tool_calls).toEqual([
      { id: 'call_good', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris", "units": "c"}' } },
    ]);
    expect(data.choices[0]!.message.content).toBe('Checking.');
    expect(data.choices[0]!.finish_reason).toBe('tool_calls');
    expect(data.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 22, total_tokens: 142 });
    expect(response.headers.get('x-rebound-attempts')).toBe('2');
    expect(response.headers.get('x-rebound-verdict')).toBe('pass');

    const retry = gw.upstream.requests[1]!;
    expect(retry.messages.slice(0, ASK.length)).toEqual(ASK);
    expect(retry.messages[1]).toEqual({
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [{ id: 'call_bad', type: 'function', function: { name: 'get_weather', arguments: '{"units": "c"}' } }],
    });
    expect(retry.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_bad' });
    const result = lastToolResult(retry) as { ok: boolean; error: string };
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^Tool call "get_weather" was not executed\./);
    expect(result.error).toMatch(/city/);
  });

  it('passes the last answer on unchanged when no attempt passes, and says so in the headers', async () => {
    gw = await startGateway(() => ({ toolCalls: [{ id: 'call_same', name: 'delete_everything', arguments: '{"really": true}' }] }), { GATEWAY_RETRIES: '2' });
    const { data, response } = await gw.openai.chat.completions.create({ model: 'm', messages: ASK, tools: TOOLS }).withResponse();
    expect(data.choices[0]!.message.tool_calls).toEqual([
      { id: 'call_same', type: 'function', function: { name: 'delete_everything', arguments: '{"really": true}' } },
    ]);
    expect(response.headers.get('x-rebound-verdict')).toBe('blocked');
    expect(response.headers.get('x-rebound-attempts')).toBe('3');
    expect(gw.upstream.requests).toHaveLength(3);
    // Each retry carries the whole exchange so far: two blocked calls and their errors by the third.
    expect(gw.upstream.requests[2]!.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('has nothing to gate without tools (or with tool_choice "none"): a call passes as the upstream sent it', async () => {
    gw = await startGateway(() => ({ toolCalls: [{ id: 'call_free', name: 'made_up', arguments: '{"x": 1}' }] }));
    for (const extra of [{}, { tools: TOOLS, tool_choice: 'none' as const }]) {
      const data = await gw.openai.chat.completions.create({ model: 'm', messages: ASK, ...extra });
      expect(data.choices[0]!.message.tool_calls).toEqual([{ id: 'call_free', type: 'function', function: { name: 'made_up', arguments: '{"x": 1}' } }]);
    }
    expect(gw.upstream.requests).toHaveLength(2);
    expect(gw.app.activity.calls).toEqual([]);
  });

  it('writes an activity row per gated call and attempt, with source gateway', async () => {
    gw = await startGateway((_req, i) =>
      i === 0
        ? {
            toolCalls: [
              { name: 'getWeather', arguments: '{"city": "Oslo"}' },
              { name: 'get_weather', arguments: '{}' },
            ],
          }
        : { toolCalls: [{ name: 'get_weather', arguments: '{"city": "Bergen"}' }] },
    );
    await gw.openai.chat.completions.create({ model: 'client-model', messages: ASK, tools: TOOLS });
    const rows = gw.app.activity.calls;
    expect(rows.map((r) => [r.iteration, r.tool_requested, r.verdict, r.category])).toEqual([
      [1, 'getWeather', 'repaired', 'phantom_tool'],
      [1, 'get_weather', 'blocked', 'missing_required'],
      [2, 'get_weather', 'pass', 'valid'],
    ]);
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(['gateway']));
    expect(new Set(rows.map((r) => r.turn_id)).size).toBe(1);
    expect(rows[0]!.session_id).toBe(rows[0]!.turn_id);
    expect(rows[0]!.model).toBe('client-model');
    // Attempt 1 had a call that passed (repaired): not wasted; each row carries half its usage.
    expect(rows.map((r) => [r.prompt_tokens, r.completion_tokens, r.wasted])).toEqual([
      [50, 10, false],
      [50, 10, false],
      [100, 20, false],
    ]);
  });

  it('records the usage of a retry on its own rows: an attempt whose every call was blocked, saying nothing, is wasted', async () => {
    gw = await startGateway((_req, i) =>
      i === 0
        ? { toolCalls: [{ name: 'get_weather', arguments: '{}' }], usage: { prompt_tokens: 300, completion_tokens: 7 } }
        : { toolCalls: [{ name: 'get_weather', arguments: '{"city": "Bergen"}' }], usage: { prompt_tokens: 340, completion_tokens: 9 } },
    );
    await gw.openai.chat.completions.create({ model: 'client-model', messages: ASK, tools: TOOLS });
    const rows = gw.app.activity.calls;
    expect(rows.map((r) => [r.iteration, r.verdict, r.prompt_tokens, r.completion_tokens, r.wasted])).toEqual([
      [1, 'blocked', 300, 7, true],
      [2, 'pass', 340, 9, false],
    ]);
    expect(rows.every((r) => typeof r.model_ms === 'number' && r.model_ms >= 0)).toBe(true);
  });
});

describe('streaming, through the openai package', () => {
  it('passes text through as it arrives and sends repaired parallel calls whole, ids kept', async () => {
    gw = await startGateway(() => ({
      text: 'Looking that up for you now.',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: '{"city": "Paris", "units": "c"}' },
        { id: 'call_b', name: 'search-notes', arguments: '{"query": "umbrella", "tags": "[\\"rain\\"]"}' },
      ],
      argChunk: 4,
    }));
    const out = await streamed({ model: 'm', messages: ASK, tools: TOOLS, stream_options: { include_usage: true } });
    expect(out.content).toBe('Looking that up for you now.');
    // One text chunk per upstream word: passed on as they came.
    expect(out.chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(6);
    expect(out.calls).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: '{"city": "Paris", "units": "c"}' },
      { id: 'call_b', name: 'search_notes', arguments: JSON.stringify({ query: 'umbrella', tags: ['rain'] }) },
    ]);
    // Each call in one delta: complete and gated.
    expect(out.indexDeltas).toEqual([0, 1]);
    expect(out.finishReason).toBe('tool_calls');
    expect(out.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 20 });
    const finish = out.chunks.find((c) => c.choices[0]?.finish_reason) as unknown as { rebound: unknown };
    expect(finish.rebound).toEqual({ attempts: 1, verdict: 'repaired' });
    expect(out.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(out.headers.get('x-rebound-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('retries a blocked call invisibly: one answer, the corrected call, usage of both attempts', async () => {
    gw = await startGateway((_req, i) =>
      i === 0
        ? { text: 'One moment.', toolCalls: [{ id: 'call_x', name: 'get_weather', arguments: '{"town": "Paris"}' }] }
        : { text: 'Sorry, fixing that.', toolCalls: [{ id: 'call_y', name: 'get_weather', arguments: '{"city": "Paris"}' }] },
    );
    const out = await streamed({ model: 'm', messages: ASK, tools: TOOLS, stream_options: { include_usage: true } });
    expect(out.content).toBe('One moment.');
    expect(out.calls).toEqual([{ id: 'call_y', name: 'get_weather', arguments: '{"city": "Paris"}' }]);
    expect(out.finishReason).toBe('tool_calls');
    expect(out.usage).toMatchObject({ prompt_tokens: 200, completion_tokens: 40, total_tokens: 240 });
    expect(new Set(out.chunks.map((c) => c.id)).size).toBe(1);
    const finish = out.chunks.find((c) => c.choices[0]?.finish_reason) as unknown as { rebound: unknown };
    expect(finish.rebound).toEqual({ attempts: 2, verdict: 'pass' });
    const retry = gw.upstream.requests[1]!;
    expect(retry.stream).toBe(true);
    expect(retry.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_x' });
    expect((lastToolResult(retry) as { error: string }).error).toMatch(/city/);
  });

  it('sends a call that passed at once and re-asks only for the blocked one', async () => {
    gw = await startGateway((_req, i) =>
      i === 0
        ? {
            toolCalls: [
              { id: 'call_ok', name: 'get_weather', arguments: '{"city": "Rome"}' },
              { id: 'call_bad', name: 'get_weather', arguments: '{"days": 2}' },
            ],
          }
        : {
            toolCalls: [
              { id: 'call_ok2', name: 'get_weather', arguments: '{"city": "Rome"}' },
              { id: 'call_fixed', name: 'get_weather', arguments: '{"city": "Milan", "days": 2}' },
            ],
          },
    );
    const out = await streamed({ model: 'm', messages: ASK, tools: TOOLS });
    // The repeat of the call already sent is not sent twice.
    expect(out.calls.map((c) => c.id)).toEqual(['call_ok', 'call_fixed']);
    expect(out.indexDeltas).toEqual([0, 1]);
    expect(gw.upstream.requests[1]!.messages.find((m) => m.role === 'assistant')!.tool_calls).toEqual([
      { id: 'call_bad', type: 'function', function: { name: 'get_weather', arguments: '{"days": 2}' } },
    ]);
  });

  it('passes the last answer on unchanged when no attempt passes', async () => {
    gw = await startGateway(
      () => ({ toolCalls: [{ id: 'call_never', name: 'get_weather', arguments: '{"city": ["not", "a", "string"], "units": "kelvin"}' }] }),
      { GATEWAY_RETRIES: '1' },
    );
    const out = await streamed({ model: 'm', messages: ASK, tools: TOOLS });
    expect(out.calls).toEqual([{ id: 'call_never', name: 'get_weather', arguments: '{"city": ["not", "a", "string"], "units": "kelvin"}' }]);
    expect(out.finishReason).toBe('tool_calls');
    const finish = out.chunks.find((c) => c.choices[0]?.finish_reason) as unknown as { rebound: unknown };
    expect(finish.rebound).toEqual({ attempts: 2, verdict: 'blocked' });
    expect(gw.upstream.requests).toHaveLength(2);
  });

  it('extracts a call written into the text and holds only the text that may be the call', async () => {
    gw = await startGateway(() => ({ text: 'Sure, I will look. ```json\n{"name": "get_weather", "arguments": {"city": "Lima", "units": "f"}}\n```' }));
    const out = await streamed({ model: 'm', messages: ASK, tools: TOOLS });
    expect(out.content).toBe('Sure, I will look. ');
    expect(out.calls).toHaveLength(1);
    expect(out.calls[0]).toMatchObject({ name: 'get_weather', arguments: '{"city":"Lima","units":"f"}' });
    expect(out.finishReason).toBe('tool_calls');
  });

  it('runs the content check on parameters marked as code', async () => {
    gw = await startGateway((_req, i) =>
      i === 0
        ? {
            toolCalls: [
              {
                id: 'call_w1',
                name: 'write_file',
                arguments: JSON.stringify({ path: 'src/app.ts', content: 'export function a() {\n  return 1;\n}\n// ... rest of code unchanged\n' }),
              },
            ],
          }
        : {
            toolCalls: [
              { id: 'call_w2', name: 'write_file', arguments: JSON.stringify({ path: 'src/app.ts', content: 'export function a() {\n  return 1;\n}\n' }) },
            ],
          },
    );
    const out = await streamed({ model: 'm', messages: ASK, tools: TOOLS });
    expect(out.calls.map((c) => c.id)).toEqual(['call_w2']);
    expect((lastToolResult(gw.upstream.requests[1]!) as { error: string }).error).toMatch(/placeholder|rest of/i);
  });

  it('sends keepalive comments while the upstream is silent', async () => {
    gw = await startGateway(() => ({ text: 'late answer', stallMs: 400 }), { KEEPALIVE_MS: '100' });
    const res = await fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: ASK, stream: true }),
    });
    const raw = await res.text();
    expect(raw.match(/^: keepalive$/gm)!.length).toBeGreaterThanOrEqual(1);
    expect(raw.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});
