// The hostile-model suite, a streamed upstream answer past what the gateway holds (docs/configuration.md
// § Limits): a stream longer than MAX_COMPLETION_BYTES, and a call whose arguments are longer than the
// gate reads (MAX_ARGUMENTS_CHARS), of which the gateway keeps only the start. Against the real app and
// the scripted upstream over loopback, through each protocol: the answer ends with an error event in the
// client's protocol that says why, never a silent cut; a call that is re-asked is told its size. And a
// Responses call item whose end repeats arguments near the event's cap (1 MB): that end is read by its
// tail (the API's key order today) or its head (the older order), or parsed when the head is not certain,
// and the call goes out whole each way. No timing is asserted.
import { MAX_ARGUMENTS_CHARS } from 'rebound-gate';
import { describe, expect, it } from 'vitest';
import { MAX_COMPLETION_BYTES } from '../../src/gateway/upstream.ts';
import { startScriptedAnthropic, startScriptedResponses } from '../support/scripted-native.ts';
import type { Reply } from '../support/scripted-openai.ts';
import { scriptedApps } from '../support/scripted-app.ts';
import { TOOLS } from '../gateway/harness.ts';

const start = scriptedApps({ GATEWAY_RETRIES: '0' });

/** An answer of 10 KB words, `mb` MB in all. */
const text = (mb: number): Reply => ({ text: `${'y'.repeat(10 * 1024 - 1)} `.repeat(mb * 100) });
/** A write_file call whose content is `chars` characters, streamed 64 KB at a time. */
const bigCall = (chars: number): Reply => ({
  toolCalls: [{ id: 'call_big', name: 'write_file', arguments: JSON.stringify({ path: 'big.txt', content: 'z'.repeat(chars) }) }],
  argChunk: 64 * 1024,
});

const functions = TOOLS.flatMap((t) => (t.type === 'function' ? [t.function] : []));
const chat = { model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }], tools: TOOLS };
const messages = {
  model: 'm',
  max_tokens: 64,
  stream: true,
  messages: [{ role: 'user', content: 'go' }],
  tools: functions.map((f) => ({ name: f.name, description: f.description, input_schema: f.parameters })),
};
const responses = {
  model: 'm',
  stream: true,
  input: 'go',
  tools: functions.map((f) => ({ type: 'function', name: f.name, description: f.description, parameters: f.parameters })),
};

/** The SSE events of a streamed answer: name (null: a bare `data:`) and data, in order. */
async function events(url: string, path: string, body: unknown): Promise<Array<{ event: string | null; data: string }>> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const out: Array<{ event: string | null; data: string }> = [];
  for (const block of (await res.text()).split('\n\n')) {
    const lines = block.split('\n').filter((l) => !l.startsWith(':') && l !== '');
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
    if (data.length) out.push({ event: lines.find((l) => l.startsWith('event: '))?.slice(7) ?? null, data: data.join('\n') });
  }
  return out;
}

describe('a streamed answer longer than MAX_COMPLETION_BYTES', () => {
  it('/v1/chat/completions: the text goes out as it comes, then an error chunk (upstream_too_large) ends it, no [DONE]; the upstream is not read on', async () => {
    const { app, upstream } = await start(() => text(48));
    const got = await events(app.url, '/v1/chat/completions', chat);
    const last = JSON.parse(got.at(-1)!.data) as { error: { code: string; message: string } };
    expect(last.error.code).toBe('upstream_too_large');
    expect(last.error.message).toMatch(/stream is longer than 32 MB \(33,554,432 bytes\) \(the stream limit, MAX_COMPLETION_BYTES\)/);
    expect(got.some((e) => e.data === '[DONE]')).toBe(false);
    const shown = got.slice(0, -1).reduce((n, e) => n + ((JSON.parse(e.data).choices?.[0]?.delta?.content as string | undefined)?.length ?? 0), 0);
    expect(shown).toBeGreaterThan(MAX_COMPLETION_BYTES - 1024 * 1024);
    expect(shown).toBeLessThan(MAX_COMPLETION_BYTES);
    // Stopped at the cap (plus what the sockets buffer), not read to its 48 MB end.
    await expect.poll(() => upstream.aborted, { timeout: 10_000 }).toBe(1);
    expect(upstream.sentBytes[0]).toBeLessThan(40 * 1024 * 1024);
  });

  it.each([
    ['/v1/messages', messages, 'error', (d: { error: { type: string; message: string } }) => d.error.message],
    ['/v1/responses', responses, 'error', (d: { code: string; message: string }) => `${d.code}: ${d.message}`],
  ] as const)('%s: the same, as an error event of its protocol', async (path, body, name, message) => {
    const { app } = await start(() => text(40));
    const got = await events(app.url, path, body);
    expect(got.at(-1)!.event).toBe(name);
    expect(message(JSON.parse(got.at(-1)!.data))).toMatch(/stream is longer than 32 MB .*the stream limit, MAX_COMPLETION_BYTES/);
  });
});

// Each native upstream's text deltas are read by the decoder's lane (src/gateway/codecs/native-lane.ts): the caps hold for them as for any event.
describe.each([
  {
    mode: 'MESSAGES_UPSTREAM=anthropic',
    start: startScriptedAnthropic,
    path: '/v1/messages',
    body: messages,
    env: (url: string) => ({ MESSAGES_UPSTREAM: 'anthropic', ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-test' }),
  },
  {
    mode: 'RESPONSES_UPSTREAM=responses',
    start: startScriptedResponses,
    path: '/v1/responses',
    body: responses,
    env: (url: string) => ({ RESPONSES_UPSTREAM: 'responses', OPENAI_BASE_URL: url }),
  },
])('a native upstream ($mode) that streams past MAX_COMPLETION_BYTES', ({ start: startNative, path, body, env }) => {
  it(`is stopped by the same decoder: ${path} ends with an error event that says why`, async () => {
    const native = await startNative(() => ({ text: `${'y'.repeat(10 * 1024 - 1)} `.repeat(4_000) }));
    try {
      const { app } = await start(() => ({ text: 'the chat upstream is not asked' }), { env: env(native.url) });
      const got = await events(app.url, path, body);
      expect(got.at(-1)!.event).toBe('error');
      expect(got.at(-1)!.data).toMatch(/stream is longer than 32 MB .*the stream limit, MAX_COMPLETION_BYTES/);
      expect(native.requests).toHaveLength(1);
    } finally {
      await native.close();
    }
  });
});

describe('a streamed call whose arguments are longer than the gate reads (the gateway keeps only their start)', () => {
  const whole = JSON.stringify({ path: 'big.txt', content: 'z'.repeat(3_000_000) }).length;

  it('no retry left: an error chunk (tool_call_too_large) that gives its size ends the answer, never the call cut short', async () => {
    const { app } = await start(() => bigCall(3_000_000));
    const got = await events(app.url, '/v1/chat/completions', chat);
    expect(got.some((e) => e.data.includes('tool_calls'))).toBe(false);
    const last = JSON.parse(got.at(-1)!.data) as { error: { code: string; message: string } };
    expect(last.error.code).toBe('tool_call_too_large');
    expect(last.error.message).toContain(
      `call to "write_file" has arguments of ${whole.toLocaleString('en-US')} characters, past the gateway's limit of 1,000,000`,
    );
    expect(got.some((e) => e.data === '[DONE]')).toBe(false);
  });

  it('/v1/messages: the same, as an error event, and no tool_use block', async () => {
    const { app } = await start(() => bigCall(3_000_000));
    const got = await events(app.url, '/v1/messages', messages);
    expect(got.some((e) => e.data.includes('"tool_use"'))).toBe(false);
    expect(got.at(-1)!.event).toBe('error');
    expect(got.at(-1)!.data).toContain(`has arguments of ${whole.toLocaleString('en-US')} characters`);
  });

  it('with a retry: the re-ask tells the model the size and the limit, and its smaller call goes out', async () => {
    const small = { toolCalls: [{ id: 'call_small', name: 'write_file', arguments: '{"path": "big.txt", "content": "part 1"}' }] };
    const { app, upstream } = await start((_req, i) => (i === 0 ? bigCall(3_000_000) : small), { env: { GATEWAY_RETRIES: '1' } });
    const got = await events(app.url, '/v1/chat/completions', chat);
    expect(got.at(-1)!.data).toBe('[DONE]');
    const calls = got.flatMap((e) => (e.data === '[DONE]' ? [] : (JSON.parse(e.data).choices?.[0]?.delta?.tool_calls ?? [])));
    expect(calls).toEqual([
      expect.objectContaining({ id: 'call_small', function: { name: 'write_file', arguments: '{"path": "big.txt", "content": "part 1"}' } }),
    ]);
    const reask = upstream.requests[1]!.messages;
    const tool = reask.at(-1)!;
    expect(tool).toMatchObject({ role: 'tool', tool_call_id: 'call_big' });
    expect(tool.content).toContain(`${whole.toLocaleString('en-US')} characters long, over the limit of 1,000,000: they were not read`);
    // The call as the assistant message repeats it: what the gateway kept of it, the gate's limit.
    const assistant = reask.at(-2)! as { tool_calls: Array<{ function: { arguments: string } }> };
    expect(assistant.tool_calls[0]!.function.arguments.length).toBe(MAX_ARGUMENTS_CHARS);
  });
});

describe("a native Responses call whose item's end repeats arguments near the event cap (RESPONSES_UPSTREAM=responses)", () => {
  // ~900 KB of content: each of the call's `arguments.done`, `output_item.done` and `response.completed` events repeats it, under 1 MB.
  const content = 'z'.repeat(900_000);
  it.each([
    ["read by its tail (the API's key order today)", content, 'today'],
    // A control character: the arguments' JSON has a \u escape, which the tail does not mind.
    ["read by its tail (today's order, a \\u escape in it)", `${content}\u0001`, 'today'],
    ['read by its head (the older key order)', content, 'older'],
    // The same in the older order: the event's head is not certain and it is parsed.
    ['parsed (the older key order, a \\u escape in it)', `${content}\u0001`, 'older'],
  ] as const)('the end %s: the call goes out whole, once, and the answer finishes', async (_how, body, keyOrder) => {
    const args = JSON.stringify({ path: 'big.txt', content: body });
    const native = await startScriptedResponses(() => ({ calls: [{ id: 'call_big', name: 'write_file', arguments: args }], argChunk: 64 * 1024 }), {
      keyOrder,
    });
    try {
      const { app } = await start(() => ({ text: 'the chat upstream is not asked' }), {
        env: { RESPONSES_UPSTREAM: 'responses', OPENAI_BASE_URL: native.url },
      });
      const got = await events(app.url, '/v1/responses', responses);
      const done = got.filter((e) => e.event === 'response.output_item.done').map((e) => JSON.parse(e.data).item as { call_id: string; arguments: string });
      expect(done).toHaveLength(1);
      expect(done[0]!.call_id).toBe('call_big');
      expect(done[0]!.arguments).toBe(args);
      expect(got.at(-1)!.event).toBe('response.completed');
    } finally {
      await native.close();
    }
  });
});
