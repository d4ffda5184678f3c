// A scripted OpenAI-compatible server on loopback: the one stand-in the test suites use for the
// LLM. It streams chat completions chunk by chunk the way the real API does (role chunk, text
// deltas, tool-call deltas with the id and name only in the first chunk and the arguments split
// across many, a finish chunk, a usage chunk with empty choices, [DONE]; one JSON completion when
// the request does not stream), fails on demand, plays a
// hostile upstream (raw bytes under any content-type, a line that never ends, usage of any value),
// answers GET /models when given a list, and records every request, the bytes sent for each, and
// every client disconnect.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  name: string;
  /** Raw arguments text, sent as is (may be invalid JSON on purpose). */
  arguments: string;
  id?: string;
}

export type Reply =
  | {
      text?: string;
      toolCalls?: ScriptedToolCall[];
      /** Characters per argument chunk (default 7) and per text chunk (default: a word each). */
      argChunk?: number;
      /** Pause between chunks, ms. */
      delayMs?: number;
      /** Pause after the role chunk, before anything else (a silent model), ms. */
      stallMs?: number;
      /** Pause before the response headers (an upstream that does not answer), ms. */
      headersAfterMs?: number;
      /** Sent as is in the usage chunk: any value, to play a provider that reports nonsense. */
      usage?: { prompt_tokens: unknown; completion_tokens: unknown };
      /** End after the usage chunk without `data: [DONE]` (some providers do). */
      omitDone?: boolean;
      /**
       * A JSON member as raw text (`"name":value`, of any depth: JSON.stringify could not write it) put
       * in the delta of the first chunk after the role chunk and in the finish choice; when not
       * streamed, in the message: a field of the upstream's own the gateway does not know.
       */
      member?: string;
    }
  /** An error answer: OpenAI's error body with `message`, or `body` as is. */
  | { status: number; message?: string; body?: string }
  | { garbledAfter: string; delayMs?: number }
  /** A body sent as is, with status 200 and this content-type (default text/event-stream). */
  | { raw: string | Uint8Array; contentType?: string }
  /**
   * `prefix`, then `piece` again and again without a line break, honouring backpressure, until the
   * client goes away or `maxBytes` (default 256 MB) were sent: a line that never ends.
   */
  | { endless: string; prefix?: string; maxBytes?: number };

export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
  tools?: Array<{ type: 'function'; function: { name: string; parameters: unknown } }>;
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: unknown;
}

export type Script = (request: ChatRequest, index: number) => Reply | Promise<Reply>;

export interface ScriptedOptions {
  /** GET /models: these model ids as the API lists them, or an error (its body as is when given); without it, a 404. */
  models?: string[] | { status: number; message?: string; body?: string };
}

export interface ScriptedServer {
  url: string;
  requests: ChatRequest[];
  /** The Authorization header of each request, by request index (null: none). */
  authorizations: Array<string | null>;
  /** The W3C traceparent header of each request, by request index (null: none). */
  traceparents: Array<string | null>;
  /** Body bytes written for each request, by request index. */
  sentBytes: number[];
  /** Requests whose client went away before the response ended. */
  aborted: number;
  /** Client connections open now (kept-alive ones included). */
  readonly openSockets: number;
  /** Their indices in `requests`, in the order they went away. */
  abortedRequests: number[];
  waitForAbort(timeoutMs?: number): Promise<void>;
  /** The Authorization header of each GET /models (null: none). */
  modelListAuthorizations: Array<string | null>;
  close(): Promise<void>;
}

export async function startScriptedOpenAI(script: Script, options: ScriptedOptions = {}): Promise<ScriptedServer> {
  const requests: ChatRequest[] = [];
  const modelListAuthorizations: Array<string | null> = [];
  const authorizations: Array<string | null> = [];
  const traceparents: Array<string | null> = [];
  const sentBytes: number[] = [];
  let aborted = 0;
  const abortedRequests: number[] = [];
  const abortWaiters: Array<() => void> = [];
  const sockets = new Set<import('node:net').Socket>();

  const server = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url?.endsWith('/models') && options.models) {
      modelListAuthorizations.push(req.headers.authorization ?? null);
      return listModels(res, options.models);
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as ChatRequest;
    const index = requests.push(body) - 1;
    authorizations[index] = req.headers.authorization ?? null;
    traceparents[index] = (req.headers.traceparent as string | undefined) ?? null;
    sentBytes[index] = 0;
    let finished = false;
    res.on('close', () => {
      if (!finished) {
        aborted++;
        abortedRequests.push(index);
        for (const w of abortWaiters.splice(0)) w();
      }
    });
    const reply = await script(body, index);
    await respond(res, reply, body.model, (n) => (sentBytes[index]! += n), body.stream === true);
    finished = true;
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    traceparents,
    sentBytes,
    get aborted() {
      return aborted;
    },
    get openSockets() {
      return sockets.size;
    },
    abortedRequests,
    modelListAuthorizations,
    waitForAbort(timeoutMs = 5_000) {
      if (aborted > 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the scripted server saw no aborted request')), timeoutMs);
        abortWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function respond(res: ServerResponse, reply: Reply, model: string, sent: (bytes: number) => void, streamed = true): Promise<void> {
  if ('status' in reply) {
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(reply.body ?? JSON.stringify({ error: { message: reply.message ?? `scripted error ${reply.status}`, type: 'server_error', code: null } }));
    return;
  }
  if ('headersAfterMs' in reply && reply.headersAfterMs) await sleep(reply.headersAfterMs);
  if (res.destroyed) return;
  if (!streamed && !('raw' in reply) && !('endless' in reply) && !('garbledAfter' in reply)) return completion(res, reply, model, sent);
  const contentType = 'raw' in reply && reply.contentType ? reply.contentType : 'text/event-stream';
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache', connection: 'keep-alive' });
  if ('raw' in reply) {
    sent(typeof reply.raw === 'string' ? Buffer.byteLength(reply.raw) : reply.raw.byteLength);
    res.end(reply.raw);
    return;
  }
  if ('endless' in reply) {
    const piece = Buffer.from(reply.endless);
    const max = reply.maxBytes ?? 256 * 1024 * 1024;
    let total = 0;
    const send = async (bytes: Buffer) => {
      total += bytes.byteLength;
      sent(bytes.byteLength);
      if (!res.write(bytes)) await drainOrClose(res);
    };
    if (reply.prefix) await send(Buffer.from(reply.prefix));
    while (!res.destroyed && total < max) await send(piece);
    if (!res.destroyed) res.end();
    return;
  }
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_scripted', choices, ...extra })}\n\n`;
  const member = 'member' in reply ? reply.member : undefined;
  let memberDelta = member;
  /** `d` as a chunk's delta; the scripted member in the first delta after the role chunk and in the finish choice. */
  const delta = (d: Record<string, unknown>, finish: string | null = null) => {
    const raw = finish ? member : d.role ? undefined : memberDelta;
    if (!finish && !d.role) memberDelta = undefined;
    const text = chunk([
      { index: 0, delta: raw && !finish ? { ...d, [MEMBER]: 0 } : d, logprobs: null, finish_reason: finish, ...(raw && finish ? { [MEMBER]: 0 } : {}) },
    ]);
    return raw ? text.replace(`"${MEMBER}":0`, raw) : text;
  };

  const write = async (text: string, delayMs = 0) => {
    if (res.destroyed) return;
    sent(Buffer.byteLength(text));
    if (!res.write(text)) await drainOrClose(res);
    if (delayMs > 0) await sleep(delayMs);
  };

  if ('garbledAfter' in reply) {
    await write(delta({ role: 'assistant', content: '' }));
    if (reply.garbledAfter) await write(delta({ content: reply.garbledAfter }), reply.delayMs ?? 0);
    await write('data: {"id": "broken", "choices": [{"delta": {"content": "oops\n\n');
    res.end();
    return;
  }

  const pause = reply.delayMs ?? 0;
  await write(delta({ role: 'assistant', content: '' }), reply.stallMs ?? pause);
  for (const word of reply.text ? reply.text.split(/(?<= )/) : []) await write(delta({ content: word }), pause);
  const calls = reply.toolCalls ?? [];
  const size = reply.argChunk ?? 7;
  for (const [index, call] of calls.entries()) {
    const callId = call.id ?? `call_${Math.random().toString(36).slice(2, 14)}`;
    await write(delta({ tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] }), pause);
    for (let i = 0; i < call.arguments.length; i += size) {
      await write(delta({ tool_calls: [{ index, function: { arguments: call.arguments.slice(i, i + size) } }] }), pause);
    }
  }
  await write(delta({}, calls.length ? 'tool_calls' : 'stop'));
  const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
  const total = typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number' ? usage.prompt_tokens + usage.completion_tokens : null;
  await write(chunk([], { usage: { ...usage, total_tokens: total } }));
  if (!reply.omitDone) await write('data: [DONE]\n\n');
  res.end();
}

/** GET /models as the API answers it: {object: "list", data: [{id, object: "model", created, owned_by}]}. */
function listModels(res: ServerResponse, models: NonNullable<ScriptedOptions['models']>): void {
  if (!Array.isArray(models)) {
    res.writeHead(models.status, { 'content-type': 'application/json' });
    res.end(models.body ?? JSON.stringify({ error: { message: models.message ?? `scripted error ${models.status}`, type: 'server_error', code: null } }));
    return;
  }
  const data = models.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'scripted' }));
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
}

/** Where a scripted raw member goes: JSON.stringify writes this key with 0, then the text replaces it. */
const MEMBER = 'x_scripted_member';

/** A request without `stream: true` gets one chat.completion JSON body, as the real API answers it. */
function completion(res: ServerResponse, reply: Extract<Reply, { text?: string }>, model: string, sent: (bytes: number) => void): void {
  const calls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? `call_${Math.random().toString(36).slice(2, 14)}`,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
  const total = typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number' ? usage.prompt_tokens + usage.completion_tokens : null;
  let body = JSON.stringify({
    id: `chatcmpl-${Math.random().toString(36).slice(2, 12)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: 'fp_scripted',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          refusal: null,
          ...(calls.length ? { tool_calls: calls } : {}),
          ...(reply.member ? { [MEMBER]: 0 } : {}),
        },
        logprobs: null,
        finish_reason: calls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: { ...usage, total_tokens: total },
  });
  if (reply.member) body = body.replace(`"${MEMBER}":0`, reply.member);
  sent(Buffer.byteLength(body));
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (data += c));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

/** Resolves when the response can take more, or is gone. */
function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The last tool result the model was sent, parsed when it is JSON. */
export function lastToolResult(request: ChatRequest): unknown {
  const tool = [...request.messages].reverse().find((m) => m.role === 'tool');
  if (!tool?.content) return undefined;
  try {
    return JSON.parse(tool.content);
  } catch {
    return tool.content;
  }
}
