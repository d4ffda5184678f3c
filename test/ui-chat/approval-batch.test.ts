// A useChat message that answers a turn's waiting calls is one batch (docs/approval.md, "From a useChat
// app"): every response is checked before any is decided, and a batch is decided whole or refused
// whole. Answers repeated with the same decision count once ([A approve, A approve] decides A once and
// the turn goes on); the same approval answered two ways ([A deny, A approve]) is refused and decides
// nothing, so a clean answer afterwards still goes on. Raw requests against the app and the scripted
// upstream, as useChat's transport sends them.
import { describe, expect, it } from 'vitest';
import { headerAuth } from '../support/app-server.ts';
import type { ChatRequest, Script } from '../support/scripted-openai.ts';
import { scriptedApps, type ScriptedApp } from '../support/scripted-app.ts';
import { parseUiStream } from '../support/ui-chunks.ts';

const start = scriptedApps({ APPROVAL_TOOLS: 'write_file' });
const WRITE_A = { name: 'write_file', arguments: '{"path":"a.txt","content":"a"}' };
const WRITE_B = { name: 'write_file', arguments: '{"path":"b.txt","content":"b"}' };
const writes =
  (...calls: Array<{ name: string; arguments: string }>): Script =>
  (req) =>
    req.messages.some((m) => m.role === 'tool') ? { text: 'Done.' } : { toolCalls: calls };

const alice = { 'content-type': 'application/json', 'x-test-user': 'alice' };
const userMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'write the files' }] };

interface Waiting {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  signature?: string;
}

async function post(app: ScriptedApp['app'], chatId: string, messages: unknown[]) {
  const res = await fetch(`${app.url}/v1/ui/chat`, {
    method: 'POST',
    headers: alice,
    body: JSON.stringify({ id: chatId, messages, trigger: 'submit-message' }),
  });
  return { status: res.status, body: await res.text() };
}

/** A chat whose first turn waits for the calls the script proposes: each waiting call as its stream told it. */
async function pausedChat(app: ScriptedApp['app'], chatId: string): Promise<Waiting[]> {
  const { status, body } = await post(app, chatId, [userMessage]);
  expect(status).toBe(200);
  const chunks = parseUiStream(body).chunks as Array<Record<string, any>>;
  const inputs = new Map(chunks.filter((c) => c.type === 'tool-input-available').map((c) => [c.toolCallId as string, c]));
  return chunks
    .filter((c) => c.type === 'tool-approval-request')
    .map((c) => {
      const input = inputs.get(c.toolCallId)!;
      return { approvalId: c.approvalId, toolCallId: c.toolCallId, toolName: input.toolName, input: input.input, signature: c.signature };
    });
}

/** The conversation useChat posts: the user's message, then the assistant's with these answers. */
function answering(answers: Array<[Waiting, boolean]>): unknown[] {
  const parts = answers.map(([w, approved]) => ({
    type: 'dynamic-tool',
    toolName: w.toolName,
    toolCallId: w.toolCallId,
    input: w.input,
    state: 'approval-responded',
    approval: { id: w.approvalId, approved, ...(w.signature ? { signature: w.signature } : {}) },
  }));
  return [userMessage, { id: 'a1', role: 'assistant', parts }];
}

const texts = (body: string) =>
  parseUiStream(body)
    .chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : []))
    .join('');
/** What the continuation's model request was told of each call: its id and whether it ran. */
const told = (req: ChatRequest) =>
  req.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, (JSON.parse(m.content as string) as { ok: boolean }).ok]);

describe('a useChat message that answers the same approval more than once', () => {
  it('[A approve, A approve]: decided once, and the turn goes on (200, the rest streamed)', async () => {
    const { app, upstream } = await start(writes(WRITE_A), { deps: { auth: headerAuth } });
    const [a] = await pausedChat(app, 'twice-1');
    const res = await post(
      app,
      'twice-1',
      answering([
        [a!, true],
        [a!, true],
      ]),
    );
    expect(res.status).toBe(200);
    expect(texts(res.body)).toBe('Done.');
    expect(upstream.requests).toHaveLength(2);
    expect(told(upstream.requests[1]!)).toEqual([[a!.toolCallId, true]]);
    // Decided: the same answer sent again is a conflict.
    expect((await post(app, 'twice-1', answering([[a!, true]]))).status).toBe(409);
  });

  it('[A deny, A approve]: refused (400), nothing decided; a clean answer afterwards goes on', async () => {
    const { app, upstream } = await start(writes(WRITE_A), { deps: { auth: headerAuth } });
    const [a] = await pausedChat(app, 'twice-2');
    const refused = await post(
      app,
      'twice-2',
      answering([
        [a!, false],
        [a!, true],
      ]),
    );
    expect(refused.status).toBe(400);
    expect((JSON.parse(refused.body) as { error: { message: string } }).error.message).toMatch(/answers approval .* twice, differently.*Nothing was decided/);
    expect(upstream.requests).toHaveLength(1);
    const clean = await post(app, 'twice-2', answering([[a!, true]]));
    expect(clean.status).toBe(200);
    expect(texts(clean.body)).toBe('Done.');
    expect(told(upstream.requests[1]!)).toEqual([[a!.toolCallId, true]]);
  });

  it('[A, B, A again] with the same decision: both decided once, both calls run', async () => {
    const { app, upstream } = await start(writes(WRITE_A, WRITE_B), { deps: { auth: headerAuth } });
    const [a, b] = await pausedChat(app, 'twice-3');
    expect(b).toBeDefined();
    const res = await post(
      app,
      'twice-3',
      answering([
        [a!, true],
        [b!, true],
        [a!, true],
      ]),
    );
    expect(res.status).toBe(200);
    expect(texts(res.body)).toBe('Done.');
    expect(told(upstream.requests[1]!)).toEqual([
      [a!.toolCallId, true],
      [b!.toolCallId, true],
    ]);
  });

  it('[A approve, B approve, A deny]: refused whole, B not decided either; a clean answer afterwards goes on', async () => {
    const { app, upstream } = await start(writes(WRITE_A, WRITE_B), { deps: { auth: headerAuth } });
    const [a, b] = await pausedChat(app, 'twice-4');
    const refused = await post(
      app,
      'twice-4',
      answering([
        [a!, true],
        [b!, true],
        [a!, false],
      ]),
    );
    expect(refused.status).toBe(400);
    const clean = await post(
      app,
      'twice-4',
      answering([
        [a!, false],
        [b!, true],
      ]),
    );
    expect(clean.status).toBe(200);
    expect(upstream.requests).toHaveLength(2);
    expect(told(upstream.requests[1]!)).toEqual([
      [a!.toolCallId, false],
      [b!.toolCallId, true],
    ]);
  });
});
