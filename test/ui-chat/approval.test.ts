// Human approval through useChat (docs/use-chat.md § Approval, ai ≥ 6), with the `ai` package's own Chat and
// transport in Node against the app and its demo model (APPROVAL_TOOLS defaults to delete_file with
// it; "demo approval" writes notes/draft.md, then proposes to delete it). The stream ends at the pause
// with tool-approval-request; a reload resumes to it (not 204); addToolApprovalResponse with
// sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses posts the continuation,
// which streams the rest into the same message. Responses that do not match a call waiting in this
// user's chat (forged, tampered, wrongly signed, another user's, sent twice, expired) are refused and
// decide nothing.
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { headerAuth, startApp, type TestApp } from '../support/app-server.ts';
import { parseUiStream } from '../support/ui-chunks.ts';
import { createMemoryStorage } from '../../src/store/memory.ts';
import { dispatch } from '../../src/entries/turn-routing.ts';
import { NodeChat, partsOf, textOf, toolParts } from './client.ts';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const alice = { 'x-test-user': 'alice' };
const bob = { 'x-test-user': 'bob' };

/** A chat of `headers`' user whose demo turn waits for the deletion's approval. */
async function pausedChat(id: string, headers = alice) {
  const chat = new NodeChat({ id, baseUrl: app!.url, headers, sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
  await chat.sendMessage({ text: 'demo approval' });
  await chat.settled();
  const waiting = toolParts(chat.lastMessage!).find((t) => t.toolName === 'delete_file')!;
  return { chat, waiting };
}

/** What the chat would post to answer `part` (useChat's continuation), as a raw request: its status and body. */
async function postAnswer(chatId: string, messages: UIMessage[], headers: Record<string, string>) {
  const res = await fetch(`${app!.url}/v1/ui/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ id: chatId, messages, trigger: 'submit-message', messageId: messages.at(-1)!.id }),
  });
  return { status: res.status, body: await res.text() };
}

/** The chat's messages with the waiting call answered, its part changed by `edit`. */
function answered(chat: NodeChat, edit: (part: Record<string, any>) => Record<string, any> = (p) => p): UIMessage[] {
  return chat.messages.map((m) =>
    m.role !== 'assistant'
      ? m
      : {
          ...m,
          parts: partsOf(m).map((p) =>
            p.state === 'approval-requested' ? edit({ ...p, state: 'approval-responded', approval: { ...p.approval, approved: true } }) : p,
          ),
        },
  ) as UIMessage[];
}

/** The stream a reload reads (GET /v1/ui/chat/:id/stream): its status and chunk types. */
async function resumed(chatId: string, headers = alice) {
  const res = await fetch(`${app!.url}/v1/ui/chat/${chatId}/stream`, { headers });
  const text = res.status === 200 ? await res.text() : '';
  return { status: res.status, types: parseUiStream(text).chunks.map((c) => c.type), done: text.endsWith('data: [DONE]\n\n') };
}

describe('approval through useChat (ai 7 in Node)', () => {
  it('ends the stream at the approval request, resumes to it on a reload, and streams the rest once approved', async () => {
    app = await startApp({}, { auth: headerAuth });
    const { chat, waiting } = await pausedChat('approve-1');
    expect(chat.status).toBe('ready');
    const paused = chat.lastMessage!;
    expect(toolParts(paused).map((t) => `${t.toolName}:${t.state}`)).toEqual(['write_file:output-available', 'delete_file:approval-requested']);
    expect(waiting).toMatchObject({
      input: { path: 'notes/draft.md' },
      approval: { id: expect.stringMatching(/^apr_[0-9a-f]{32}$/), signature: expect.stringMatching(/^[\w-]{43}$/) },
    });
    expect(partsOf(paused).find((p) => p.type === 'data-rebound-approval')?.data).toMatchObject({
      approvalId: waiting.approval.id,
      toolCallId: waiting.toolCallId,
      toolName: 'delete_file',
      arguments: { path: 'notes/draft.md' },
      expiresAt: expect.any(String),
    });
    expect(textOf(paused)).toMatch(/needs your approval/);
    expect((paused.metadata as { reason?: string }).reason).toBeUndefined(); // the turn has not ended

    // A reload while it waits resumes to the request (not 204), and the stream ends there again.
    expect(await resumed('approve-1')).toEqual({ status: 200, types: expect.arrayContaining(['start', 'tool-approval-request']), done: true });
    expect((await resumed('approve-1')).types.slice(-3)).toEqual(['tool-approval-request', 'finish-step', 'finish']);

    await chat.addToolApprovalResponse({ id: waiting.approval.id, approved: true });
    await chat.settled();
    expect(chat.messages).toHaveLength(2); // the rest went into the same assistant message
    const after = chat.lastMessage!;
    expect(after.id).toBe(paused.id);
    expect(toolParts(after).find((t) => t.toolName === 'delete_file')).toMatchObject({
      state: 'output-available',
      output: { deleted: ['notes/draft.md'] },
      approval: { id: waiting.approval.id, approved: true },
    });
    expect(textOf(after)).toMatch(/Approved and done/);
    expect(after.metadata).toMatchObject({ reason: 'completed' });
    expect(partsOf(after).find((p) => p.type === 'data-rebound-verdict' && p.data.toolName === 'delete_file')?.data.approval).toBe('approved');
    expect((await resumed('approve-1')).status).toBe(204); // ended: nothing to resume
  });

  it("ends a handed-off stream at the pause too (GET /v1/turns/:id/stream?format=ui, what a Worker's Durable Object serves)", async () => {
    app = await startApp({}, { auth: headerAuth });
    const { waiting } = await pausedChat('handoff-1');
    const handle = await fetch(`${app.url}/v1/ui/chat/handoff-1/stream`, { headers: { ...alice, 'x-rebound-handoff': '1' } });
    expect(handle.status).toBe(200);
    const { streamUrl } = (await handle.json()) as { streamUrl: string };
    expect(streamUrl).toMatch(/&format=ui$/);
    const res = await fetch(`${app.url}${streamUrl}`);
    const text = await res.text(); // ends: the pause finishes the stream
    const { chunks, done } = parseUiStream(text);
    expect(done).toBe(true);
    expect(chunks.map((c) => c.type).slice(-3)).toEqual(['tool-approval-request', 'finish-step', 'finish']);
    expect(chunks.find((c) => c.type === 'tool-approval-request')).toMatchObject({ approvalId: waiting.approval.id, signature: waiting.approval.signature });
  });

  it('approves after a restart: another process over the same storage takes the response and streams the rest', async () => {
    const storage = createMemoryStorage();
    const env = { TURN_TOKEN_SECRET: 'approval-restart-secret-0123456789' };
    app = await startApp(env, { auth: headerAuth, storage });
    const { chat, waiting } = await pausedChat('restart-1');
    await app.close();
    app = await startApp(env, { auth: headerAuth, storage });
    // A reload on the new process resumes to the same request, signed the same.
    const resume = await fetch(`${app.url}/v1/ui/chat/restart-1/stream`, { headers: alice });
    const again = parseUiStream(await resume.text()).chunks.find((c) => c.type === 'tool-approval-request');
    expect(again).toMatchObject({ approvalId: waiting.approval.id, signature: waiting.approval.signature });
    const { status, body } = await postAnswer('restart-1', answered(chat), alice);
    expect(status).toBe(200);
    const chunks = parseUiStream(body).chunks;
    expect(chunks[0]).toMatchObject({ type: 'start', messageId: chat.lastMessage!.id });
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({ toolCallId: waiting.toolCallId, output: { deleted: ['notes/draft.md'] } });
    expect(chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('')).toMatch(/^Approved and done/);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { reason: 'completed' } });
  });

  it('denies with a reason: the call does not run and the model reads the reason', async () => {
    app = await startApp({}, { auth: headerAuth });
    const { chat, waiting } = await pausedChat('deny-1');
    await chat.addToolApprovalResponse({ id: waiting.approval.id, approved: false, reason: 'keep it' });
    await chat.settled();
    const after = chat.lastMessage!;
    expect(toolParts(after).find((t) => t.toolName === 'delete_file')).toMatchObject({ state: 'output-denied', approval: { approved: false } });
    expect(textOf(after)).toMatch(/You denied the deletion \("keep it"\)/);
  });

  it('refuses forged, tampered, wrongly signed, cross-user and repeated responses, deciding nothing', async () => {
    app = await startApp({}, { auth: headerAuth });
    const { chat } = await pausedChat('forge-1');
    const refused = async (messages: UIMessage[], headers = alice, chatId = 'forge-1') => {
      const { status, body } = await postAnswer(chatId, messages, headers);
      return { status, message: (JSON.parse(body) as { error: { message: string } }).error.message };
    };
    // An approval id nobody issued.
    const forged = await refused(answered(chat, (p) => ({ ...p, approval: { ...p.approval, id: `apr_${'0'.repeat(32)}`, signature: undefined } })));
    expect(forged).toEqual({ status: 404, message: expect.stringMatching(/No call of this chat waits for approval/) });
    // The right id for other arguments (what the person saw is not what would run), or another call.
    expect((await refused(answered(chat, (p) => ({ ...p, input: { path: 'src/index.ts' } })))).status).toBe(403);
    expect((await refused(answered(chat, (p) => ({ ...p, toolCallId: 'call_other' })))).status).toBe(403);
    // A signature that is not this server's for it.
    const badSignature = await refused(answered(chat, (p) => ({ ...p, approval: { ...p.approval, signature: 'A'.repeat(43) } })));
    expect(badSignature).toEqual({ status: 403, message: expect.stringMatching(/signature .* is not this server's/) });
    // Another user sending Alice's approval, under the same chat id (their own chat) or a new one.
    expect((await refused(answered(chat), bob)).status).toBe(404);
    expect((await refused(answered(chat), bob, 'bobs-chat')).status).toBe(404);
    // Nothing was decided: a reload still ends at the request.
    expect((await resumed('forge-1')).types.slice(-3)).toEqual(['tool-approval-request', 'finish-step', 'finish']);

    // The genuine answer (without the signature, as a client older than ai 6.0.221 sends it) is taken once.
    const genuine = answered(chat, (p) => ({ ...p, approval: { id: p.approval.id, approved: true } }));
    const taken = await postAnswer('forge-1', genuine, alice);
    expect(taken.status).toBe(200);
    const deltas = parseUiStream(taken.body).chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : []));
    expect(deltas.join('')).toMatch(/^Approved and done/);
    const again = await refused(genuine);
    expect(again).toEqual({ status: 409, message: expect.stringMatching(/already approved/) });
  });

  it('refuses a response after the approval expired (410): the model was told it expired', async () => {
    app = await startApp({ APPROVAL_TIMEOUT_MS: '1000' }, { auth: headerAuth });
    const { chat } = await pausedChat('late-1');
    await new Promise((r) => setTimeout(r, 1_500));
    const { status, body } = await postAnswer('late-1', answered(chat), alice);
    expect(status).toBe(410);
    expect(body).toMatch(/expired/);
  });
});

describe("approval through useChat on a Worker (turn-routing's dispatch, shared storage)", () => {
  it("the Worker checks the response, the turn's object decides it and runs the continuation; a mismatch wakes no object", async () => {
    const storage = createMemoryStorage();
    // One secret, as a Worker and its objects share: the approval's signature is checked by both.
    const env = { TURN_TOKEN_SECRET: 'worker-and-object-secret-0123456789' };
    const worker = await startApp(env, { auth: headerAuth, storage });
    const object = await startApp(env, { auth: headerAuth, storage });
    try {
      app = object; // the paused turn as its object streamed it
      const { chat, waiting } = await pausedChat('approve-worker');
      const woken: string[] = [];
      // The Worker's own app and a namespace whose every object is `object` (one app over the same storage).
      const at = (base: string, request: Request) => {
        const url = new URL(request.url);
        return fetch(
          new Request(base + url.pathname + url.search, {
            method: request.method,
            headers: request.headers,
            body: request.body,
            duplex: 'half',
          } as RequestInit),
        );
      };
      const objects = {
        idFromName: (name: string) => name,
        get: (name: never) => ({
          fetch: (request: Request) => {
            woken.push(name);
            return at(object.url, request);
          },
        }),
      };
      const send = (messages: UIMessage[]) =>
        dispatch(
          new Request('http://worker.test/v1/ui/chat', {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...alice },
            body: JSON.stringify({ id: 'approve-worker', messages, trigger: 'submit-message', messageId: messages.at(-1)!.id }),
          }),
          { storage: 'shared', serve: (request) => at(worker.url, request), objects },
        );
      const answer = (edit: (p: Record<string, any>) => Record<string, any>) =>
        chat.messages.map((m) =>
          m.role !== 'assistant'
            ? m
            : {
                ...m,
                parts: partsOf(m).map((p) =>
                  p.state === 'approval-requested' ? edit({ ...p, state: 'approval-responded', approval: { ...p.approval, approved: true } }) : p,
                ),
              },
        ) as UIMessage[];

      // Tampered: refused by the Worker, no object woken, nothing decided.
      const tampered = await send(answer((p) => ({ ...p, input: { path: 'elsewhere.md' } })));
      expect(tampered.status).toBe(403);
      expect(woken).toEqual([]);
      const turnId = chat.lastMessage!.id;
      expect((await storage.approvals.get(waiting.approval.id))?.status).toBe('pending');

      const res = await send(answer((p) => p));
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(woken).toEqual([turnId]);
      const types = parseUiStream(text).chunks.map((c) => c.type);
      expect(types).toEqual(expect.arrayContaining(['tool-output-available', 'text-delta', 'finish']));
      expect((await storage.sessions.getTurn(turnId))?.status).toBe('finished');
      // Decided and gone on with in the object: the approved call's activity row is the object's, none the Worker's.
      expect(object.activity.calls.find((r) => r.tool_resolved === 'delete_file')?.approval).toBe('approved');
      expect(worker.activity.calls).toEqual([]);
    } finally {
      app = undefined;
      await worker.close();
      await object.close();
    }
  });
});
