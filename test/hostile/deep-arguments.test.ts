// A tool call's arguments nested 10,000 levels, past what JSON.stringify can write (it recurses and
// throws a RangeError at a few thousand; JSON.parse reads any depth). The gate blocks such arguments
// (past MAX_NESTING_DEPTH) and, once no retry is left, passes them on as the model wrote them; the
// Messages codec writes a call's arguments as the `input` object (and back as arguments text), so
// each of those writes goes through jsonText, the iterative serialiser (docs/configuration.md § Limits).
// Reached by the model (a chat or an Anthropic upstream's call, a server tool's input) and by the
// client (a tool_use in the conversation it sends): each answered 200 with the call, never a 500 or an
// error event. Real parts: the gateway, the scripted chat and Anthropic upstreams.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startScriptedAnthropic, type NativeServer } from '../support/scripted-native.ts';
import { depthOf } from '../support/json-depth.ts';
import { startGateway, type Gateway } from '../gateway/harness.ts';

const LEVELS = 10_000;
const deep = `{"list":${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}}`;
const CALL = { id: 'call_deep', name: 'deep_list', arguments: deep };
const TOOL = `{"name":"deep_list","input_schema":{"type":"object","properties":{"list":{"type":"array"}},"required":["list"]}}`;
const ASK = '{"role":"user","content":"go"}';

let gw: Gateway | undefined;
let native: NativeServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await gw?.close();
  await native?.close();
  gw = native = undefined;
});

/** POST /v1/messages with this body text; the answer's status and text. */
async function messages(body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw!.baseURL}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, text: await res.text() };
}

/** The input of each block of a Messages answer, whole or streamed (its input_json_delta pieces joined), by block type. */
function inputs(text: string, stream: boolean): Array<[string, unknown]> {
  if (!stream) {
    const content = (JSON.parse(text) as { content: Array<{ type: string; input?: unknown }> }).content;
    return content.filter((b) => b.input !== undefined).map((b) => [b.type, b.input]);
  }
  const events = text
    .split('\n\n')
    .filter((b) => b.includes('data: '))
    .map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)) as Record<string, any>);
  const blocks = new Map<number, { type: string; json: string }>();
  for (const e of events) {
    if (e.type === 'content_block_start' && 'input' in e.content_block) blocks.set(e.index, { type: e.content_block.type, json: '' });
    if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') blocks.get(e.index)!.json += e.delta.partial_json;
  }
  return [...blocks.values()].map((b) => [b.type, JSON.parse(b.json)]);
}

describe('a call whose arguments nest 10,000 levels, through /v1/messages', () => {
  it.each([false, true])(
    'from a chat upstream (stream: %s): answered with the call, its input whole',
    async (stream) => {
      vi.spyOn(console, 'warn').mockImplementation(() => {});
      gw = await startGateway(() => ({ toolCalls: [CALL] }));
      const answer = await messages(`{"model":"m","max_tokens":64,"stream":${stream},"messages":[${ASK}],"tools":[${TOOL}]}`);
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain('event: error');
      const [[type, input]] = inputs(answer.text, stream) as [[string, unknown]];
      expect(type).toBe('tool_use');
      expect(depthOf(input)).toBe(LEVELS + 1);
    },
    30_000,
  );

  it('in the conversation the client sends: the chat upstream is asked with the call', async () => {
    gw = await startGateway(() => ({ text: 'done' }));
    const history = `${ASK},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"deep_list","input":${deep}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}`;
    const answer = await messages(`{"model":"m","max_tokens":64,"messages":[${history}],"tools":[${TOOL}]}`);
    expect(answer.status).toBe(200);
    const sent = gw.upstream.requests[0]!.messages[1] as { tool_calls: Array<{ function: { arguments: string } }> };
    expect(depthOf(JSON.parse(sent.tool_calls[0]!.function.arguments))).toBe(LEVELS + 1);
  }, 30_000);

  it.each([false, true])(
    'from an Anthropic upstream (stream: %s): the call and a server tool input as deep, answered whole',
    async (stream) => {
      vi.spyOn(console, 'warn').mockImplementation(() => {});
      native = await startScriptedAnthropic(() => ({ serverTool: { name: 'web_search', input: deep }, calls: [CALL] }));
      gw = await startGateway(() => ({ text: 'the chat upstream is not asked' }), {
        MESSAGES_UPSTREAM: 'anthropic',
        ANTHROPIC_BASE_URL: native.url,
        ANTHROPIC_API_KEY: 'sk-ant-server',
        // The call is blocked (too deep) and goes out as the model wrote it, in the answer with the server tool.
        GATEWAY_RETRIES: '0',
      });
      const answer = await messages(`{"model":"m","max_tokens":64,"stream":${stream},"messages":[${ASK}],"tools":[${TOOL}]}`);
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain('event: error');
      expect(inputs(answer.text, stream).map(([type, input]) => [type, depthOf(input)])).toEqual([
        ['server_tool_use', LEVELS + 1],
        ['tool_use', LEVELS + 1],
      ]);
    },
    30_000,
  );
});
