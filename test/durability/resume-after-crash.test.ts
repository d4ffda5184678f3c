// A reader comes back after kill -9 and a restart, with no TURN_TOKEN_SECRET set: the real Node server
// (src/entries/node.ts as `npm start` runs it, embedded PGlite) on one data folder. The stream URL issued before the
// crash still opens (the local secret is kept in the data folder), and the turn the crash cut short
// replays what it had logged and ends: `done {reason: "interrupted"}` for EventSource readers, and the
// UI message stream's `finish` and `[DONE]` for useChat's resume.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type RuntimeServer } from '../runtimes/servers.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { collectWithEventSource, parseBlock } from '../support/sse-client.ts';
import { parseUiStream } from '../support/ui-chunks.ts';

let model: ScriptedServer;
let dataDir: string;
const servers: Array<RuntimeServer & { kill(): Promise<void> }> = [];

beforeAll(async () => {
  // One word, then silence far beyond the test: the turn is mid-stream when the server dies.
  model = await startScriptedOpenAI(() => ({ text: 'Thinking it over carefully', stallMs: 0, delayMs: 600_000 }));
  dataDir = mkdtempSync(join(tmpdir(), 'rebound-resume-crash-'));
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await model?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function start() {
  const server = await startNode(
    { OPENAI_API_KEY: 'sk-scripted', OPENAI_BASE_URL: model.url, MODEL_RETRIES: '0', KEEPALIVE_MS: '1000' },
    { dataDir: join(dataDir, 'pglite') },
  );
  servers.push(server);
  return server;
}

/** Reads a stream until its first text delta; the response is left open (the server is about to die under it). */
async function readUntilText(url: string): Promise<string[]> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const seen: string[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended early: ${seen.join(',')}`);
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const { event } = parseBlock(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (!event) continue;
      seen.push(event.event);
      if (event.event === 'text_delta') {
        reader.closed.catch(() => {});
        return seen;
      }
    }
  }
}

describe('resume after a crash', () => {
  it('the stream URL from before kill -9 replays the interrupted turn to done{interrupted}; format=ui to finish and [DONE]', { timeout: 240_000 }, async () => {
    let server = await start();
    const created = await fetch(`${server.baseUrl}/v1/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.localAuth },
      body: JSON.stringify({ message: 'think about it' }),
    });
    expect(created.status).toBe(201);
    const { streamUrl } = (await created.json()) as { streamUrl: string };
    expect(await readUntilText(server.baseUrl + streamUrl)).toEqual(['turn_start', 'text_delta']);
    // The text run is stored at most 250 ms after its first delta: let it land before the crash.
    await new Promise((r) => setTimeout(r, 600));
    await server.kill();

    server = await start();
    expect(server.log()).toMatch(/closed 1 turn\(s\) left running by an earlier process as interrupted/);
    // The secret the first process made is in the data folder, readable by its owner alone.
    expect(statSync(join(dataDir, 'pglite', 'rebound-turn-token-secret')).mode & 0o077).toBe(0);

    const events = await collectWithEventSource(server.baseUrl + streamUrl);
    expect(events.map((e) => e.event)).toEqual(['turn_start', 'text_delta', 'done']);
    expect(events.at(-1)).toMatchObject({ event: 'done', id: '3', data: { reason: 'interrupted' } });

    const ui = await fetch(`${server.baseUrl + streamUrl}&format=ui`);
    expect(ui.status).toBe(200);
    const { chunks, done } = parseUiStream(await ui.text());
    expect(done).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { reason: 'interrupted' } });
  });
});
