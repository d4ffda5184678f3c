// Scripted native upstreams on loopback, the LLM stand-ins for the gateway's native modes: Anthropic's
// Messages API (POST /v1/messages, MESSAGES_UPSTREAM=anthropic) and the Responses API (POST /responses,
// RESPONSES_UPSTREAM=responses). Each streams as the real API does: Anthropic's message_start, a
// thinking block (thinking_delta, signature_delta), ping, a server_tool_use block on demand, text and
// tool_use blocks (input_json_delta in pieces, the first one empty), message_delta with stop_reason and
// usage, message_stop; the Responses events in the API's key order of today or the older one
// (responsesEventData), with sequence_number from 0 (response.created, response.in_progress, a reasoning
// item, the message item with its content part and output_text deltas, function_call / custom_tool_call
// items with their argument / input deltas and .done events, output_item.done, response.completed with
// the whole response), or one JSON body when the request does not stream. They record every request and
// its headers, fail on demand, and hold the finish back on demand (a finish in a later packet).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonText } from 'rebound-gate/internal';

export interface NativeCall {
  id: string;
  name: string;
  /** The arguments' JSON text as the model writes it (a custom tool's: its input text). */
  arguments: string;
  /** Responses only: a freeform (custom) tool's call. */
  custom?: boolean;
}

export type NativeReply =
  | {
      text?: string;
      calls?: NativeCall[];
      /** A thinking block (Anthropic) or a reasoning item (Responses) before the answer. */
      thinking?: string;
      /** Anthropic only: a server tool's call (server_tool_use, its input streamed as input_json_delta) before the answer. */
      serverTool?: { name: string; input: string };
      /** Characters per argument delta (default 7). */
      argChunk?: number;
      /**
       * The finish (message_delta and message_stop; response.completed) written only once this settles,
       * everything before it (the last call's block end or item done) already written: a provider whose
       * finish comes in a later packet.
       */
      finishWhen?: Promise<unknown>;
    }
  /** An error answer: the API's error body with `message`, or `body` as is. */
  | { status: number; message?: string; body?: string }
  /** An event stream sent as is, with status 200. */
  | { raw: string };

export type NativeBody = Record<string, unknown> & { stream?: boolean; model?: string };
export type NativeScript = (body: NativeBody, index: number) => NativeReply;

export interface NativeServer {
  /** The base URL: ANTHROPIC_BASE_URL (it answers /v1/messages) or OPENAI_BASE_URL (it answers /responses). */
  url: string;
  requests: NativeBody[];
  headers: IncomingMessage['headers'][];
  close(): Promise<void>;
}

const sse = (res: ServerResponse, event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
const pieces = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
const hex = () => crypto.randomUUID().replaceAll('-', '').slice(0, 24);

async function serve(
  path: string,
  script: NativeScript,
  answer: (res: ServerResponse, reply: Exclude<NativeReply, { status: number } | { raw: string }>, body: NativeBody) => Promise<void>,
): Promise<NativeServer> {
  const requests: NativeBody[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !(req.url ?? '').split('?')[0]!.endsWith(path)) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'not found' } }));
      return;
    }
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text) as NativeBody;
    const index = requests.push(body) - 1;
    headers[index] = req.headers;
    const reply = script(body, index);
    if ('status' in reply) {
      const error =
        path === '/v1/messages'
          ? { type: 'error', error: { type: 'api_error', message: reply.message ?? 'scripted failure' } }
          : { error: { message: reply.message ?? 'scripted failure', type: 'server_error', param: null, code: null } };
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body ?? JSON.stringify(error));
      return;
    }
    if ('raw' in reply) {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(reply.raw);
      return;
    }
    await answer(res, reply, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    headers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Anthropic's Messages API: POST {url}/v1/messages. */
export function startScriptedAnthropic(script: NativeScript): Promise<NativeServer> {
  return serve('/v1/messages', script, async (res, reply, body) => {
    const id = `msg_${hex()}`;
    const model = String(body.model);
    const blocks: Array<Record<string, unknown>> = [];
    if (reply.thinking) blocks.push({ type: 'thinking', thinking: reply.thinking, signature: `sig_${hex()}` });
    const server = reply.serverTool && { type: 'server_tool_use', id: `srvtoolu_${hex()}`, name: reply.serverTool.name };
    if (server) blocks.push({ ...server, input: JSON.parse(reply.serverTool!.input) });
    if (reply.text) blocks.push({ type: 'text', text: reply.text });
    for (const c of reply.calls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments) });
    const stop = reply.calls?.length ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: 100, output_tokens: 20 };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      // jsonText: a tool's input may nest past what JSON.stringify writes (test/hostile/deep-arguments.test.ts).
      res.end(jsonText({ id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null, usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const start = {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    };
    sse(res, 'message_start', { type: 'message_start', message: start });
    let index = 0;
    if (reply.thinking) {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const p of pieces(reply.thinking, 12))
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: p } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: blocks[0]!.signature } });
      sse(res, 'content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    sse(res, 'ping', { type: 'ping' });
    if (server) {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { ...server, input: {} } });
      for (const p of pieces(reply.serverTool!.input, 64))
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } });
      sse(res, 'content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    if (reply.text) {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const word of reply.text.split(/(?<= )/))
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: word } });
      sse(res, 'content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    for (const c of reply.calls ?? []) {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
      for (const p of pieces(c.arguments, reply.argChunk ?? 7))
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } });
      sse(res, 'content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    if (reply.finishWhen) await reply.finishWhen;
    sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } });
    sse(res, 'message_stop', { type: 'message_stop' });
    res.end();
  });
}

/** The two key orders a Responses endpoint writes its events in (responsesEventData). */
export type ResponsesKeyOrder = 'today' | 'older';

/**
 * A Responses event's data as the API writes it: today (since late 2025; captured from gpt-5.2 in
 * January 2026) `type` first and the other keys sorted, so `sequence_number` last, with an `obfuscation`
 * pad on each delta event (a short delta and its pad 16 characters, at least 2 of pad; `pad: false` as
 * with include_obfuscation: false); before (`older`), `type`, `sequence_number`, then the event's keys,
 * no pad. The gateway reads both (src/gateway/codecs/responses-upstream.ts); bench:gateway and the codec
 * tests write their streams with it too.
 */
export function responsesEventData(
  type: string,
  seq: number,
  fields: Record<string, unknown>,
  { order = 'today', pad = order === 'today' }: { order?: ResponsesKeyOrder; pad?: boolean } = {},
): Record<string, unknown> {
  if (order === 'older') return { type, sequence_number: seq, ...fields };
  const all: Record<string, unknown> = { ...fields, sequence_number: seq };
  if (pad && type.endsWith('.delta') && typeof fields.delta === 'string') all.obfuscation = PAD.slice(0, Math.max(2, 16 - fields.delta.length));
  const event: Record<string, unknown> = { type };
  for (const key of Object.keys(all).sort()) event[key] = all[key];
  return event;
}

/** What an obfuscation pad is cut from (the API's are random; fixed here, so that runs compare). */
const PAD = 'Xq3GkRo2vW9mTn8p';

/** The Responses API: POST {url}/responses; its events in today's key order, or the older one (`keyOrder`). */
export function startScriptedResponses(script: NativeScript, options: { keyOrder?: ResponsesKeyOrder } = {}): Promise<NativeServer> {
  const order = options.keyOrder ?? 'today';
  return serve('/responses', script, async (res, reply, body) => {
    const id = `resp_${hex()}`;
    const model = String(body.model);
    const output: Array<Record<string, unknown>> = [];
    if (reply.thinking)
      output.push({ id: `rs_${hex()}`, type: 'reasoning', summary: [{ type: 'summary_text', text: reply.thinking }], encrypted_content: `enc_${hex()}` });
    if (reply.text)
      output.push({
        id: `msg_${hex()}`,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }],
      });
    for (const c of reply.calls ?? []) {
      output.push(
        c.custom
          ? { id: `ctc_${hex()}`, type: 'custom_tool_call', status: 'completed', call_id: c.id, name: c.name, input: c.arguments }
          : { id: `fc_${hex()}`, type: 'function_call', status: 'completed', call_id: c.id, name: c.name, arguments: c.arguments },
      );
    }
    const usage = {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 120,
    };
    const response = (status: string, out: unknown[], u: unknown) => ({
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status,
      error: null,
      incomplete_details: null,
      model,
      output: out,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: body.tools ?? [],
      usage: u,
    });
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response('completed', output, usage)));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let seq = 0;
    const emit = (type: string, fields: Record<string, unknown>) => sse(res, type, responsesEventData(type, seq++, fields, { order }));
    emit('response.created', { response: response('in_progress', [], null) });
    emit('response.in_progress', { response: response('in_progress', [], null) });
    for (const [i, item] of output.entries()) {
      if (item.type === 'reasoning') {
        emit('response.output_item.added', { output_index: i, item: { ...item, summary: [] } });
        emit('response.output_item.done', { output_index: i, item });
      } else if (item.type === 'message') {
        const text = String(reply.text);
        emit('response.output_item.added', { output_index: i, item: { ...item, status: 'in_progress', content: [] } });
        const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
        emit('response.content_part.added', { item_id: item.id, output_index: i, content_index: 0, part });
        for (const word of text.split(/(?<= )/))
          emit('response.output_text.delta', { item_id: item.id, output_index: i, content_index: 0, delta: word, logprobs: [] });
        emit('response.output_text.done', { item_id: item.id, output_index: i, content_index: 0, text, logprobs: [] });
        emit('response.content_part.done', { item_id: item.id, output_index: i, content_index: 0, part: { ...part, text } });
        emit('response.output_item.done', { output_index: i, item });
      } else if (item.type === 'function_call') {
        const args = String(item.arguments);
        emit('response.output_item.added', { output_index: i, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const p of pieces(args, reply.argChunk ?? 7)) emit('response.function_call_arguments.delta', { item_id: item.id, output_index: i, delta: p });
        emit('response.function_call_arguments.done', { item_id: item.id, output_index: i, name: item.name, arguments: args });
        emit('response.output_item.done', { output_index: i, item });
      } else {
        const input = String(item.input);
        emit('response.output_item.added', { output_index: i, item: { ...item, status: 'in_progress', input: '' } });
        for (const p of pieces(input, reply.argChunk ?? 7)) emit('response.custom_tool_call_input.delta', { item_id: item.id, output_index: i, delta: p });
        emit('response.custom_tool_call_input.done', { item_id: item.id, output_index: i, input });
        emit('response.output_item.done', { output_index: i, item });
      }
    }
    if (reply.finishWhen) await reply.finishWhen;
    emit('response.completed', { response: response('completed', output, usage) });
    res.end();
  });
}
