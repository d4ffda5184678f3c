// The agent loop over real HTTP: the app on @hono/node-server, the real `openai` client talking to
// the scripted OpenAI-compatible server on loopback, and the turn read as an SSE stream.
import { describe, expect, it } from 'vitest';
import { lastToolResult, type Script } from '../support/scripted-openai.ts';
import { scriptedApps } from '../support/scripted-app.ts';
import { chat, shape, textOf } from '../support/sse-client.ts';
import type { Tool } from '../../src/tools/types.ts';
import { defaultTools } from '../../functions/index.ts';
import { NARRATION_NUDGE } from '../../src/loop/nudges.ts';

const start = scriptedApps({ MODEL_RETRIES: '2' });
const setup = (script: Script, env: Record<string, string> = {}, tools: Tool[] = defaultTools) => start(script, { env, deps: { tools } });

const echoTool: Tool = {
  name: 'echo',
  description: 'Echoes its input',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: async (args) => ({ echoed: args.text }),
};

function tool(name: string, run: Tool['run']): Tool {
  return { name, description: name, parameters: { type: 'object', properties: {} }, run };
}

describe('a turn', () => {
  it('streams text deltas in order and ends with done', async () => {
    const { app } = await setup(() => ({ text: 'Hello there, how can I help?', delayMs: 5 }));
    const res = await chat(app.url, { message: 'hi' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(shape(res.events)).toEqual(['turn_start', 'text_delta', 'done']);
    expect(res.events.filter((e) => e.event === 'text_delta').length).toBeGreaterThan(3);
    expect(textOf(res.events)).toBe('Hello there, how can I help?');
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 1, usage: { promptTokens: 100, completionTokens: 20 } });
    expect(res.events.map((e) => Number(e.id))).toEqual(res.events.map((_, i) => i + 1));
    expect(res.events[0]!.data).toMatchObject({ model: 'scripted-1', demo: false });
  });

  it('assembles a tool call split across chunks, runs it and sends the result back', async () => {
    const { app, upstream } = await setup(
      (_req, i) =>
        i === 0 ? { text: 'Echoing.', toolCalls: [{ name: 'echo', arguments: '{"text": "split across many chunks"}' }], argChunk: 3 } : { text: 'Done.' },
      {},
      [echoTool],
    );
    const res = await chat(app.url, { message: 'echo something' });
    expect(shape(res.events)).toEqual(['turn_start', 'text_delta', 'tool_call', 'tool_result', 'text_delta', 'done']);
    const call = res.events.find((e) => e.event === 'tool_call')!.data;
    expect(call).toMatchObject({ name: 'echo', arguments: '{"text": "split across many chunks"}', iteration: 1 });
    const result = res.events.find((e) => e.event === 'tool_result')!.data;
    expect(result).toMatchObject({ id: call.id, verdict: 'pass', category: 'valid', ok: true, result: { echoed: 'split across many chunks' } });
    expect(lastToolResult(upstream.requests[1]!)).toEqual({ ok: true, result: { echoed: 'split across many chunks' } });
    const assistant = upstream.requests[1]!.messages.find((m) => m.role === 'assistant')!;
    expect(assistant.tool_calls).toEqual([{ id: call.id, type: 'function', function: { name: 'echo', arguments: '{"text": "split across many chunks"}' } }]);
    expect(app.activity.calls).toHaveLength(1);
    expect(app.activity.calls[0]).toMatchObject({ tool_requested: 'echo', tool_resolved: 'echo', verdict: 'pass', category: 'valid', model: 'scripted-1' });
  });

  it('runs parallel calls keyed by index', async () => {
    const { app, upstream } = await setup(
      (_req, i) =>
        i === 0
          ? {
              toolCalls: [
                { name: 'echo', arguments: '{"text":"one"}' },
                { name: 'echo', arguments: '{"text":"two"}' },
              ],
              argChunk: 2,
            }
          : { text: 'ok' },
      {},
      [echoTool],
    );
    const res = await chat(app.url, { message: 'two echoes' });
    const results = res.events.filter((e) => e.event === 'tool_result').map((e) => e.data.result);
    expect(results).toEqual([{ echoed: 'one' }, { echoed: 'two' }]);
    expect(upstream.requests[1]!.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('turns a phantom tool into a blocked result with suggestions, and goes on', async () => {
    const { app, upstream } = await setup((_req, i) =>
      i === 0
        ? {
            toolCalls: [
              { name: 'read_files', arguments: '{"path": "a.txt"}' },
              { name: 'fly_to_moon', arguments: '{}' },
            ],
          }
        : { text: 'Recovered.' },
    );
    const res = await chat(app.url, { message: 'read a.txt' });
    const results = res.events.filter((e) => e.event === 'tool_result').map((e) => e.data);
    const phantom = results.find((r) => r.name === 'fly_to_moon')!;
    expect(phantom).toMatchObject({ verdict: 'blocked', category: 'phantom_tool', ok: false });
    expect(typeof phantom.error).toBe('string');
    const sent = upstream.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content!));
    expect(sent[1]).toMatchObject({ ok: false });
    expect(sent[1].error).toBe(phantom.error);
    expect(res.events.at(-1)!.data.reason).toBe('completed');
    expect(app.activity.calls.map((r) => r.category)).toContain('phantom_tool');
  });

  it('blocks arguments that are not JSON and tells the model', async () => {
    const { app, upstream } = await setup((_req, i) => (i === 0 ? { toolCalls: [{ name: 'echo', arguments: '{"text": "cut off' }] } : { text: 'ok' }), {}, [
      echoTool,
    ]);
    const res = await chat(app.url, { message: 'x' });
    const result = res.events.find((e) => e.event === 'tool_result')!.data;
    expect(result).toMatchObject({ verdict: 'blocked', category: 'malformed_json', ok: false });
    expect((lastToolResult(upstream.requests[1]!) as { error: string }).error).toMatch(/JSON/i);
  });
});

describe('calls written into the text', () => {
  it('extracts a <tool_call> from the reply, runs it, and keeps it out of the visible text', async () => {
    const { app, upstream } = await setup(
      (_req, i) =>
        i === 0 ? { text: 'Let me echo that. <tool_call>{"name": "echo", "arguments": {"text": "from prose"}}</tool_call>', delayMs: 2 } : { text: 'Echoed.' },
      {},
      [echoTool],
    );
    const res = await chat(app.url, { message: 'echo from prose' });
    const result = res.events.find((e) => e.event === 'tool_result')!.data;
    expect(result).toMatchObject({ name: 'echo', verdict: 'repaired', category: 'text_embedded_call', ok: true, result: { echoed: 'from prose' } });
    expect(textOf(res.events)).not.toContain('tool_call');
    expect(textOf(res.events)).toContain('Let me echo that.');
    const assistant = upstream.requests[1]!.messages.find((m) => m.role === 'assistant')!;
    expect(assistant.tool_calls).toHaveLength(1);
    expect(app.activity.calls[0]).toMatchObject({ category: 'text_embedded_call', verdict: 'repaired' });
  });

  it('leaves JSON shown as an example in prose alone', async () => {
    const text = 'A config file looks like this:\n```json\n{"name": "echo", "arguments": {"text": "x"}}\n```\nThat is all.';
    const { app, upstream } = await setup(() => ({ text }), {}, [echoTool]);
    const res = await chat(app.url, { message: 'show me an example config' });
    expect(res.events.some((e) => e.event === 'tool_call')).toBe(false);
    expect(textOf(res.events)).toBe(text);
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('error-as-result', () => {
  it('a tool that throws becomes {error, hint} and the loop goes on', async () => {
    const boom = tool('boom', async () => {
      throw new Error('disk on fire');
    });
    const { app, upstream } = await setup((_req, i) => (i === 0 ? { toolCalls: [{ name: 'boom', arguments: '{}' }] } : { text: 'I saw the error.' }), {}, [
      boom,
    ]);
    const res = await chat(app.url, { message: 'x' });
    const result = res.events.find((e) => e.event === 'tool_result')!.data;
    expect(result).toMatchObject({ verdict: 'pass', category: 'execution_error', ok: false });
    const sent = lastToolResult(upstream.requests[1]!) as { ok: boolean; error: string; hint: string };
    expect(sent.ok).toBe(false);
    expect(sent.error).toContain('disk on fire');
    expect(sent.hint).toBeTruthy();
    expect(textOf(res.events)).toBe('I saw the error.');
    expect(app.activity.calls[0]).toMatchObject({ category: 'execution_error', error: expect.stringContaining('disk on fire') });
  });

  it('a tool past its timeout becomes an error result', async () => {
    const slow = tool('slow', () => new Promise(() => {}));
    const { app, upstream } = await setup(
      (_req, i) => (i === 0 ? { toolCalls: [{ name: 'slow', arguments: '{}' }] } : { text: 'moving on' }),
      { TOOL_TIMEOUT_MS: '100' },
      [slow],
    );
    const res = await chat(app.url, { message: 'x' });
    expect(res.events.find((e) => e.event === 'tool_result')!.data).toMatchObject({ ok: false, category: 'execution_error' });
    expect((lastToolResult(upstream.requests[1]!) as { error: string }).error).toMatch(/did not finish within 100 ms/);
    expect(res.events.at(-1)!.data.reason).toBe('completed');
  });

  it('a result that cannot be serialised becomes an error result', async () => {
    const circular = tool('circular', async () => {
      const o: Record<string, unknown> = {};
      o.self = o;
      return o;
    });
    const big = tool('bigint', async () => ({ n: 10n }));
    const { app, upstream } = await setup(
      (_req, i) =>
        i === 0
          ? {
              toolCalls: [
                { name: 'circular', arguments: '{}' },
                { name: 'bigint', arguments: '{}' },
              ],
            }
          : { text: 'fine' },
      {},
      [circular, big],
    );
    const res = await chat(app.url, { message: 'x' });
    const results = res.events.filter((e) => e.event === 'tool_result').map((e) => e.data);
    expect(results.map((r) => r.ok)).toEqual([false, false]);
    const sent = upstream.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content!));
    for (const s of sent) expect(s.error).toMatch(/cannot be serialised/);
  });
});

describe('nudges', () => {
  it('turns _next_action into MANDATORY NEXT STEP and tolerates results that are not JSON', async () => {
    const plain = tool('plain', async () => 'just text, not JSON {');
    const chained = tool('chained', async () => ({ ok: true, _next_action: { instruction: 'call verify with the new id' } }));
    const odd = tool('odd', async () => ({ _next_action: 'not an object' }));
    const { app, upstream } = await setup(
      (_req, i) =>
        i === 0
          ? {
              toolCalls: [
                { name: 'plain', arguments: '{}' },
                { name: 'chained', arguments: '{}' },
                { name: 'odd', arguments: '{}' },
              ],
            }
          : { text: 'ok' },
      {},
      [plain, chained, odd],
    );
    const res = await chat(app.url, { message: 'x' });
    expect(res.events.filter((e) => e.event === 'tool_result').map((e) => e.data.ok)).toEqual([true, true, true]);
    const last = upstream.requests[1]!.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content).toBe('MANDATORY NEXT STEP: call verify with the new id');
  });

  it('nudges to call the next tool after results without a directive', async () => {
    const { app, upstream } = await setup((_req, i) => (i === 0 ? { toolCalls: [{ name: 'echo', arguments: '{"text":"a"}' }] } : { text: 'ok' }), {}, [
      echoTool,
    ]);
    await chat(app.url, { message: 'x' });
    const last = upstream.requests[1]!.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content).toMatch(/call the next tool now/);
  });

  it('answers narration without a call with one nudge round, then accepts the text', async () => {
    const { app, upstream } = await setup(() => ({ text: "I'll now read the file to check the imports." }), {}, [echoTool]);
    const res = await chat(app.url, { message: 'check imports' });
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: NARRATION_NUDGE });
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'completed', iterations: 2 });
  });

  it('does not nudge a final answer', async () => {
    const { app, upstream } = await setup(() => ({ text: 'The imports are fine. Nothing to change.' }), {}, [echoTool]);
    await chat(app.url, { message: 'check imports' });
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('forced summary', () => {
  it('after the iteration limit: one more call with tools kept and tool_choice none', async () => {
    const { app, upstream } = await setup(
      (req) =>
        req.tool_choice === 'none'
          ? { text: 'Done: echoed twice. Failed: nothing. Next: stop.' }
          : { toolCalls: [{ name: 'echo', arguments: '{"text":"again"}' }] },
      { MAX_ITERATIONS: '2' },
      [echoTool],
    );
    const res = await chat(app.url, { message: 'loop' });
    expect(shape(res.events)).toEqual(['turn_start', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'forced_summary', 'text_delta', 'done']);
    expect(res.events.find((e) => e.event === 'forced_summary')!.data).toEqual({ reason: 'iteration_limit' });
    const summaryReq = upstream.requests[2]!;
    expect(summaryReq.tool_choice).toBe('none');
    expect(summaryReq.tools?.map((t) => t.function.name)).toEqual(['echo']);
    // The prompt prefix is unchanged: the summary request extends the previous one.
    expect(summaryReq.messages.slice(0, upstream.requests[1]!.messages.length)).toEqual(upstream.requests[1]!.messages);
    expect(summaryReq.messages.at(-1)!.content).toMatch(/at most 6 short lines/);
    expect(textOf(res.events)).toBe('Done: echoed twice. Failed: nothing. Next: stop.');
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'iteration_limit', iterations: 2 });
  });

  it('after no progress: the fallback text names what kept failing (the summary call failed)', async () => {
    const { app, upstream } = await setup(
      (req) => (req.tool_choice === 'none' ? { status: 500 } : { toolCalls: [{ name: 'update_customer_profile', arguments: '{"id":7}' }] }),
      { MODEL_RETRIES: '0' },
      [echoTool],
    );
    const res = await chat(app.url, { message: 'update Ada' });
    expect(upstream.requests).toHaveLength(4);
    expect(res.events.find((e) => e.event === 'forced_summary')!.data).toEqual({ reason: 'no_progress' });
    expect(textOf(res.events)).toMatch(/the same tool calls kept failing: "update_customer_profile" \(no such tool, 3 times\)/);
    expect(res.events.at(-1)!.data).toMatchObject({ reason: 'no_progress', iterations: 3 });
  });

  it('falls back to an honest fixed text when the summary call fails', async () => {
    const { app } = await setup(
      (req) => (req.tool_choice === 'none' ? { status: 500 } : { toolCalls: [{ name: 'echo', arguments: '{"text":"x"}' }] }),
      { MAX_ITERATIONS: '1', MODEL_RETRIES: '0' },
      [echoTool],
    );
    const res = await chat(app.url, { message: 'loop' });
    expect(textOf(res.events)).toMatch(/I reached the step limit before finishing/);
    expect(textOf(res.events)).toMatch(/Tool calls made: 1/);
    expect(res.events.at(-1)!.data.reason).toBe('iteration_limit');
  });

  it('when the time budget runs out while the model is silent', async () => {
    const { app } = await setup((req) => (req.tool_choice === 'none' ? { text: 'Out of time; nothing done.' } : { text: 'late', stallMs: 5_000 }), {
      TIME_BUDGET_MS: '1000',
      MODEL_RETRIES: '0',
    });
    const started = Date.now();
    const res = await chat(app.url, { message: 'slow' });
    expect(Date.now() - started).toBeLessThan(4_500);
    expect(res.events.find((e) => e.event === 'forced_summary')!.data).toEqual({ reason: 'time_budget' });
    expect(textOf(res.events)).toBe('Out of time; nothing done.');
    expect(res.events.at(-1)!.data.reason).toBe('time_budget');
  });
});

describe('keepalive and disconnect', () => {
  it('sends keepalive comments while the model is silent and while a tool runs', async () => {
    const napping = tool('nap', () => new Promise((r) => setTimeout(() => r({ slept: true }), 400)));
    const { app } = await setup(
      (_req, i) => (i === 0 ? { toolCalls: [{ name: 'nap', arguments: '{}' }], stallMs: 400 } : { text: 'rested' }),
      { KEEPALIVE_MS: '50' },
      [napping],
    );
    const res = await chat(app.url, { message: 'x' });
    const keepalives = res.comments.filter((c) => c === 'keepalive').length;
    expect(keepalives).toBeGreaterThanOrEqual(10);
    // Keepalives sit between events, never as data events.
    const beforeResult = res.raw.slice(0, res.raw.indexOf('event: tool_result'));
    const afterCall = beforeResult.slice(beforeResult.indexOf('event: tool_call'));
    expect(afterCall).toContain(': keepalive');
  });

  it('with ON_DISCONNECT=abort, a client that disconnects aborts a running tool through its signal', async () => {
    let toolSignal: AbortSignal | undefined;
    let waiting: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    const patient = tool('patient', (_args, ctx) => {
      toolSignal = ctx.signal;
      waiting();
      return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ stopped: true })));
    });
    const { app } = await setup(() => ({ toolCalls: [{ name: 'patient', arguments: '{}' }] }), { ON_DISCONNECT: 'abort' }, [patient]);
    const controller = new AbortController();
    const res = await fetch(`${app.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'x' }),
      signal: controller.signal,
    });
    void res.body!.getReader().read();
    await started;
    expect(toolSignal!.aborted).toBe(false);
    controller.abort();
    await expect.poll(() => toolSignal!.aborted).toBe(true);
    await expect.poll(() => app.activity.turns.map((t) => t.outcome)).toEqual(['aborted']);
  });

  it('with ON_DISCONNECT=abort, a client that disconnects aborts the upstream request, and the turn is recorded as aborted', async () => {
    const { app, upstream } = await setup(() => ({ text: 'a very slow answer that will never finish in time', delayMs: 200 }), { ON_DISCONNECT: 'abort' });
    const controller = new AbortController();
    const res = await fetch(`${app.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'x' }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('text_delta')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await upstream.waitForAbort();
    await expect.poll(() => app.activity.turns.map((t) => t.outcome)).toEqual(['aborted']);
  });
});

describe('upstream failures', () => {
  it('retries 5xx and 429 while nothing was streamed, then completes', async () => {
    const { app, upstream } = await setup((_req, i) => (i === 0 ? { status: 503 } : i === 1 ? { status: 429 } : { text: 'third time lucky' }));
    const res = await chat(app.url, { message: 'x' });
    expect(upstream.requests).toHaveLength(3);
    expect(textOf(res.events)).toBe('third time lucky');
    expect(res.events.some((e) => e.event === 'agent_error')).toBe(false);
  });

  it('retries an upstream that does not answer in time', async () => {
    const { app, upstream } = await setup((_req, i) => (i === 0 ? { text: 'too late', headersAfterMs: 2_000 } : { text: 'on time' }), {
      MODEL_TIMEOUT_MS: '200',
    });
    const res = await chat(app.url, { message: 'x' });
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.aborted).toBe(1);
    expect(textOf(res.events)).toBe('on time');
  });

  it('retries a garbled chunk when nothing reached the client', async () => {
    const { app, upstream } = await setup((_req, i) => (i === 0 ? { garbledAfter: '' } : { text: 'clean' }));
    const res = await chat(app.url, { message: 'x' });
    expect(upstream.requests).toHaveLength(2);
    expect(textOf(res.events)).toBe('clean');
  });

  it('after the retries, an agent_error event and a clean done', async () => {
    const { app, upstream } = await setup(() => ({ status: 500, message: 'upstream exploded' }), { MODEL_RETRIES: '2' });
    const res = await chat(app.url, { message: 'x' });
    expect(upstream.requests).toHaveLength(3);
    expect(shape(res.events)).toEqual(['turn_start', 'agent_error', 'done']);
    expect(res.events[1]!.data).toMatchObject({ retryable: true });
    expect(res.events[1]!.data.message).toMatch(/500/);
    expect(res.events.at(-1)!.data.reason).toBe('error');
  });

  it('does not retry once text has reached the client', async () => {
    const { app, upstream } = await setup(() => ({ garbledAfter: 'partial ', delayMs: 50 }));
    const res = await chat(app.url, { message: 'x' });
    expect(upstream.requests).toHaveLength(1);
    expect(textOf(res.events)).toBe('partial ');
    expect(shape(res.events)).toEqual(['turn_start', 'text_delta', 'agent_error', 'done']);
  });

  it('does not retry a 400', async () => {
    const { app, upstream } = await setup(() => ({ status: 400, message: 'bad tool schema' }));
    const res = await chat(app.url, { message: 'x' });
    expect(upstream.requests).toHaveLength(1);
    expect(res.events.find((e) => e.event === 'agent_error')!.data).toMatchObject({ retryable: false });
  });
});
