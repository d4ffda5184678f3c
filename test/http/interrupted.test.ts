// The age-based close of turns a killed process left running, through the app: creating a turn closes
// the session's zombies first, so the history reads in order (src/store/interrupted.ts). Start-up on
// Node and the kill -9 itself: test/durability/kill9.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { INTERRUPT_MARGIN_MS, INTERRUPTED_NOTE } from '../../src/store/interrupted.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { chat } from '../support/sse-client.ts';

let app: TestApp | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await app?.close();
  app = undefined;
});

const TIME_BUDGET_MS = 5_000;

/** A turn claimed `ageMs` ago whose process is gone: claimed, never finished. */
async function zombie(app: TestApp, sessionId: string, message: string, ageMs: number): Promise<string> {
  const { sessions } = app.deps.storage;
  const turn = await sessions.createTurn({ id: crypto.randomUUID(), sessionId, userId: null, message });
  const now = Date.now();
  vi.spyOn(Date, 'now').mockReturnValue(now - ageMs);
  await sessions.claimTurn(turn.id);
  vi.mocked(Date.now).mockRestore();
  return turn.id;
}

describe('turns left running by a killed process', () => {
  it('are closed as interrupted when a turn is created, once they are older than the budget plus the margin', async () => {
    app = await startApp({ TIME_BUDGET_MS: String(TIME_BUDGET_MS) });
    const first = await chat(app.url, { message: 'add a slugify helper' });
    const sessionId = first.events[0]!.data.sessionId as string;
    const before = (await app.deps.storage.sessions.history(sessionId)).length;
    const old = await zombie(app, sessionId, 'the killed question', TIME_BUDGET_MS + INTERRUPT_MARGIN_MS + 1_000);
    const recent = await zombie(app, sessionId, 'maybe still running', TIME_BUDGET_MS);

    const next = await chat(app.url, { message: 'and now?', sessionId });
    expect(next.events.at(-1)?.event).toBe('done');

    const { sessions } = app.deps.storage;
    expect((await sessions.getTurn(old))?.status).toBe('finished');
    expect((await sessions.getTurn(recent))?.status).toBe('running');
    const res = await fetch(`${app.url}/v1/sessions/${sessionId}/messages`);
    const { messages } = (await res.json()) as { messages: Array<{ role: string; content: string | null }> };
    // The zombie's question and the note come before the new turn's messages, and only once.
    expect(messages.slice(before, before + 3)).toEqual([
      { role: 'user', content: 'the killed question' },
      { role: 'assistant', content: INTERRUPTED_NOTE },
      { role: 'user', content: 'and now?' },
    ]);
    expect(messages.filter((m) => m.content === INTERRUPTED_NOTE)).toHaveLength(1);
    expect(messages.some((m) => m.content === 'maybe still running')).toBe(false);

    // Later turns close nothing twice.
    const again = await chat(app.url, { message: 'once more', sessionId });
    expect(again.events.at(-1)?.event).toBe('done');
    expect((await sessions.history(sessionId)).filter((m) => m.content === INTERRUPTED_NOTE)).toHaveLength(1);
  });
});
