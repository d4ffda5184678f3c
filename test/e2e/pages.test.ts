// The pages in Debian's Chromium against the scripted harness: the SSE protocol as the page sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';
import { listen, type RunningServer } from '../support/browser-server.ts';
import { harness, type Harness } from './harness.ts';

let server: RunningServer;
let session: BrowserSession;
let stub: Harness;

beforeAll(async () => {
  stub = harness();
  server = await listen(stub.app.fetch);
  session = await launchBrowser();
});
afterAll(async () => {
  await session?.close();
  await server?.close();
});

async function open(path: string): Promise<{ page: Page; errors: string[] }> {
  const page = await session.context.newPage();
  const errors = collectPageErrors(page);
  await page.goto(server.url + path);
  return { page, errors };
}

describe('chat page (harness)', () => {
  it('streams a turn with a blocked and a repaired call', async () => {
    const { page, errors } = await open('/');
    await expect.poll(() => page.locator('#demo').isVisible()).toBe(true);
    await page.fill('#message', 'fix the bug in the parser');
    await page.press('#message', 'Enter');
    const blocked = page.locator('.tool[data-verdict="blocked"]');
    await blocked.waitFor();
    expect(await blocked.locator('.suggestions').textContent()).toContain('src/parser.ts');
    const repaired = page.locator('.tool[data-verdict="repaired"]');
    await repaired.waitFor();
    expect(await repaired.locator('.repairs').textContent()).toContain('$.max_lines');
    await turnEnd(page).waitFor();
    const answer = await page.locator('.msg.assistant').last().textContent();
    expect(answer).toContain('The bug was an off-by-one <b>in</b> the tokenizer'); // as text, not markup
    expect(await page.locator('.msg.assistant b').count()).toBe(0);
    await screenshot(page, 'harness-chat');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'harness-chat-dark');
    expect(errors).toEqual([]);
    await page.close();
  });
});

const answerOf = (page: Page) =>
  page
    .locator('.msg.assistant')
    .last()
    .locator('.answer')
    .allTextContents()
    .then((t) => t.join(''));
const turnIdOf = (page: Page) => page.evaluate(() => (JSON.parse(localStorage.getItem('rebound.turn') ?? 'null') as { turnId: string } | null)?.turnId);
/** The footer of the page's newest turn (the history's turns above it keep theirs). */
const turnEnd = (page: Page) => page.locator('.msg.assistant').last().locator('.turn-end');
const notLoadErrors = (errors: string[]) => errors.filter((e) => !e.includes('Failed to load resource'));

async function sendMessage(page: Page, text: string) {
  await page.fill('#message', text);
  await page.press('#message', 'Enter');
}

describe('connection indicator and resume (harness)', () => {
  it('stays connected through keepalive-only silence, shows a dropped connection as reconnecting, then resumes where it stopped', async () => {
    const { page, errors } = await open('/');
    await sendMessage(page, 'pause for a while');
    await page.locator('.msg.assistant.streaming .answer').waitFor();
    const turnId = await turnIdOf(page);
    expect(turnId).toMatch(/^[0-9a-f-]{36}$/);
    await page.waitForFunction(() => document.getElementById('conn')?.dataset.state === 'quiet', null, { timeout: 8_000 });
    expect(await page.locator('#conn').textContent()).toBe('connected · waiting');
    await screenshot(page, 'harness-quiet');
    // The server drops the connection mid-turn; the turn goes on. EventSource reconnects on its own.
    await page.waitForFunction(() => document.getElementById('conn')?.dataset.state === 'reconnecting', null, { timeout: 15_000 });
    expect(await page.locator('#conn').textContent()).toBe('reconnecting…');
    expect(await page.locator('.notice.error').count()).toBe(0); // a reconnect is not an error
    await screenshot(page, 'harness-reconnecting');
    await turnEnd(page).waitFor({ timeout: 15_000 });
    expect(await answerOf(page)).toBe('Thinking hard. Almost there, and done.');
    expect(await turnEnd(page).textContent()).toMatch(/^done · /);
    expect(await page.locator('.notice').count()).toBe(0);
    expect(await page.locator('#conn').getAttribute('data-state')).toBe('idle');
    expect(await page.locator('#send').isEnabled()).toBe(true);
    // The same EventSource reconnected with Last-Event-ID: the events it had (turn_start + 2 words + "Almost ").
    expect(stub.seen.resumes.filter((r) => r.turnId === turnId).map((r) => r.lastEventId)).toEqual([undefined, '4']);
    expect(await turnIdOf(page)).toBeUndefined(); // forgotten at done
    expect(notLoadErrors(errors)).toEqual([]);
    await page.close();
  });

  it('draws an event the server repeats on resume only once', async () => {
    const { page, errors } = await open('/');
    await sendMessage(page, 'drop, then overlap');
    await turnEnd(page).waitFor({ timeout: 15_000 });
    expect(await answerOf(page)).toBe('One two three four five six.');
    expect(notLoadErrors(errors)).toEqual([]);
    await page.close();
  });
});

describe('stop and reload (harness)', () => {
  it('Stop asks the server, and the done{aborted} it sends ends the turn', async () => {
    const { page, errors } = await open('/');
    await sendMessage(page, 'slow');
    await page.waitForFunction(() => (document.querySelector('.msg.assistant.streaming .answer')?.textContent ?? '').includes('word5 '));
    const turnId = await turnIdOf(page);
    await page.click('#stop');
    await turnEnd(page).waitFor();
    expect(stub.seen.stops).toContain(turnId);
    expect(await turnEnd(page).textContent()).toMatch(/^aborted · /);
    expect(await page.locator('.notice.stopped').textContent()).toBe('Stopped. The turn was cancelled on the server.');
    expect(await answerOf(page)).not.toContain('word199');
    expect(await page.locator('#send').isEnabled()).toBe(true);
    expect(await page.locator('#stop').isDisabled()).toBe(true);
    expect(notLoadErrors(errors)).toEqual([]);
    await page.close();
  });

  it('a reload mid-turn re-attaches: the whole turn replays, then follows live, and it shows once', async () => {
    const { page, errors } = await open('/');
    await page.click('#new-session');
    await sendMessage(page, 'slow');
    await page.waitForFunction(() => (document.querySelector('.msg.assistant.streaming .answer')?.textContent ?? '').includes('word10 '));
    const turnId = await turnIdOf(page);
    await page.reload();
    await page.locator('.msg.assistant.streaming').waitFor();
    expect(await page.locator('#stop').isEnabled()).toBe(true);
    await turnEnd(page).waitFor({ timeout: 15_000 });
    const whole = Array.from({ length: 200 }, (_, i) => `word${i} `).join('');
    expect(await answerOf(page)).toBe(whole);
    expect(await page.locator('.msg.user').allTextContents()).toEqual(['Youslow']);
    expect(stub.seen.resumes.filter((r) => r.turnId === turnId).map((r) => r.lastEventId)).toEqual([undefined, undefined]);

    // A tab closed mid-turn and opened after it ended: the history has the turn, and its replay is not drawn twice.
    const remembered = {
      turnId,
      sessionId: await page.evaluate(() => localStorage.getItem('rebound.sessionId')),
      streamUrl: `/v1/turns/${turnId}/stream?token=t`,
      message: 'slow',
    };
    await page.evaluate((r) => localStorage.setItem('rebound.turn', JSON.stringify(r)), remembered);
    await page.reload();
    await expect.poll(() => turnIdOf(page)).toBeUndefined();
    await expect.poll(() => page.locator('.msg.user').count()).toBe(1);
    expect(await page.locator('.msg.assistant').count()).toBe(1);
    expect(await page.locator('.msg.assistant').textContent()).toContain('word199');

    // A remembered turn the server does not know (404) is forgotten without an error.
    await page.evaluate((r) => localStorage.setItem('rebound.turn', JSON.stringify(r)), {
      ...remembered,
      turnId: crypto.randomUUID(),
      streamUrl: `/v1/turns/${crypto.randomUUID()}/stream?token=t`,
    });
    await page.reload();
    await expect.poll(() => turnIdOf(page)).toBeUndefined();
    expect(await page.locator('.msg.user').count()).toBe(1);
    expect(await page.locator('.notice').count()).toBe(0);
    expect(await page.locator('#send').isEnabled()).toBe(true);
    expect(notLoadErrors(errors)).toEqual([]);
    await page.close();
  });
});

describe('dashboard page (fixed data)', () => {
  it('draws every chart, escapes model-made names and follows the range selector', async () => {
    const { page, errors } = await open('/dashboard');
    await page.locator('#rates .wide-only svg').waitFor();
    expect(await page.locator('#rates .wide-only path.line').count()).toBeGreaterThanOrEqual(2); // one per model (the gap splits none into two elements)
    expect(await page.locator('#rates .wide-only circle.point').count()).toBe(23);
    expect(await page.locator('#rates .wide-only rect.volume').count()).toBe(12);
    expect(await page.locator('#categories .wide-only rect.bar').count()).toBe(4);
    expect(await page.locator('#phantom-tools').textContent()).toContain('<script>alert(1)</script>'); // shown as text
    expect(await page.locator('#invented-params').textContent()).toContain('read_file.encoding');
    expect(await page.locator('#invented-params').textContent()).toContain('7 ★');
    expect(await page.locator('#recovery svg.meter').count()).toBe(4);
    // Approval: the tile, and denials by tool (fake-dashboard.ts: 9 asked, 5 approved, median 18.5 s).
    expect(await page.locator('.tile', { hasText: 'approvals requested' }).textContent()).toContain('56% approved; median 18.5 s to a decision');
    expect(await page.locator('#approvals .wide-only rect.bar').count()).toBe(2);
    expect(await page.locator('#approvals').textContent()).toContain('9 asked: 5 approved, 3 denied, 1 expired, 0 waiting');
    await screenshot(page, 'harness-dashboard');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'harness-dashboard-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.selectOption('#range', '30d');
    await page.waitForFunction(() => location.search.includes('range=30d'));
    await page.waitForFunction(() => document.getElementById('view')?.getAttribute('aria-busy') === 'false');
    expect(await page.locator('#rates').textContent()).toContain('Per day');
    // The source filter: the gateway's calls only, in the request and in the page's URL.
    const asked = page.waitForRequest((r) => r.url().includes('/v1/dashboard/view?') && new URL(r.url()).searchParams.get('source') === 'gateway');
    await page.selectOption('#source', 'gateway');
    await asked;
    await page.waitForFunction(() => location.search.includes('source=gateway'));
    await page.waitForFunction(() => document.getElementById('view')?.getAttribute('aria-busy') === 'false');
    // The apps behind the gateway: the agent loop's tiles are left out (not zeros), and the page says so.
    await page.locator('.source-note').waitFor();
    const labels = await page.locator('.tile-label').allTextContents();
    for (const loopOnly of ['avg iterations', 'approvals requested', 'forced summaries', 'repeated failures']) expect(labels).not.toContain(loopOnly);
    expect(labels).toEqual(expect.arrayContaining(['tool calls', 'hallucination rate', 'repaired', 'blocked', 'cost of failures']));
    expect(await page.locator('#recovery svg.meter').count()).toBe(3);
    expect(await page.locator('#approvals').count()).toBe(0);
    await screenshot(page, 'harness-dashboard-gateway');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.locator('#rates .narrow-only svg').isVisible()).toBe(true);
    expect(await page.locator('#rates .wide-only svg').isVisible()).toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(page, 'harness-dashboard-phone');
    expect(errors).toEqual([]);
    await page.close();
  });
});
