// The real app (createApp, demo model, PGlite dashboard) in Debian's Chromium: what issue 6 asks a
// person to be able to do, done by a browser; and durable turns (issue 9) against a scripted
// upstream, through a proxy the test can cut. Screenshots land in test-results/e2e/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { startRealApp, type RealApp } from './real-app.ts';
import { startSeverableProxy, type SeverableProxy } from './severable-proxy.ts';

let app: RealApp;
let browser: BrowserSession;
let page: Page;
let errors: string[];

beforeAll(async () => {
  [app, browser] = await Promise.all([startRealApp(), launchBrowser()]);
  page = await browser.context.newPage();
  errors = collectPageErrors(page);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const assistant = () => page.locator('.msg.assistant').last();
const answerText = () =>
  assistant()
    .locator('.answer')
    .allTextContents()
    .then((t) => t.join(''));

async function send(text: string) {
  await page.fill('#message', text);
  await page.press('#message', 'Enter');
}

describe('chat page on the real app (demo model)', () => {
  it('streams text, shows a blocked call with its suggestion, then the final answer', async () => {
    await page.goto(`${app.url}/`);
    await page.locator('#demo').waitFor({ state: 'visible' }); // from GET /health
    expect(await page.locator('#model').textContent()).toContain('rebound-demo');

    await send('Add a slugify helper');
    expect(await page.locator('.msg.user').last().textContent()).toContain('Add a slugify helper');

    // Streaming: the answer grows while the turn is still running.
    await page.waitForFunction(() => (document.querySelector('.msg.assistant.streaming .answer')?.textContent ?? '').length > 0);
    const early = (await answerText()).length;
    await page.waitForFunction((n) => {
      const msg = document.querySelector('.msg.assistant.streaming');
      return (
        !!msg &&
        Array.from(msg.querySelectorAll('.answer'))
          .map((a) => a.textContent)
          .join('').length > n
      );
    }, early);
    expect(await page.locator('#conn').getAttribute('data-state')).toMatch(/live|quiet/);
    await screenshot(page, 'chat-streaming');

    // The mistyped path is blocked and the gate's suggestion is shown.
    const blocked = page.locator('.tool[data-verdict="blocked"]').filter({ has: page.locator('.suggestions') });
    await blocked.first().waitFor();
    expect(await blocked.first().locator('.suggestions').textContent()).toMatch(/src\/utils\/slugify\.ts|list_files/);
    expect(await blocked.first().locator('.reason').textContent()).not.toBe('');

    // The final answer, then the turn ends.
    await assistant().locator('.turn-end').waitFor({ timeout: 20_000 });
    expect(await assistant().locator('.turn-end').textContent()).toMatch(/^done · \d+ iterations/);
    expect(await answerText()).toContain('now holds a complete slugify helper'); // Markdown: `slugify` is inline code
    expect(await page.locator('.tool[data-verdict="pass"], .tool[data-verdict="repaired"]').count()).toBeGreaterThan(0);
    expect(await page.locator('#send').isEnabled()).toBe(true);
    expect(await page.locator('#stop').isDisabled()).toBe(true);
    expect(await page.locator('#conn').getAttribute('data-state')).toBe('idle');
    await screenshot(page, 'chat-turn-done');
  });

  it('stops a turn mid-way and the server records it as aborted', async () => {
    await send('keep going until the limit');
    await assistant().locator('.tool').first().waitFor();
    await page.click('#stop');
    // Stop asks the server; the turn ends when its done{aborted} comes down the stream.
    await assistant().locator('.turn-end').waitFor();
    expect(await assistant().locator('.turn-end').textContent()).toMatch(/^aborted · /);
    expect(await assistant().locator('.notice.stopped').textContent()).toBe('Stopped. The turn was cancelled on the server.');
    const tools = await assistant().locator('.tool').count();
    await page.waitForTimeout(800);
    expect(await assistant().locator('.tool').count()).toBe(tools); // nothing arrives after done
    expect(await page.locator('#send').isEnabled()).toBe(true);
    expect(await page.evaluate(() => localStorage.getItem('rebound.turn'))).toBeNull();
    await screenshot(page, 'chat-stopped');

    await expect
      .poll(
        async () => {
          await app.flush();
          const res = await fetch(`${app.url}/v1/dashboard`);
          const data = (await res.json()) as { totals: { turns: number; abortedRate: number } };
          return data.totals.abortedRate;
        },
        { timeout: 10_000 },
      )
      .toBeGreaterThan(0);
  });

  it('shows the forced-summary notice when the iteration limit is reached', async () => {
    await send('keep going forever');
    await assistant().locator('.notice.summary').waitFor({ timeout: 20_000 });
    await assistant().locator('.turn-end').waitFor({ timeout: 20_000 });
    expect(await assistant().locator('.turn-end').textContent()).toContain('iteration limit');
    expect(await answerText()).toContain('Summary (demo)');
  });

  it('keeps the session across a reload', async () => {
    const sessionId = await page.evaluate(() => localStorage.getItem('rebound.sessionId'));
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await page.reload();
    await page.locator('.msg.user').first().waitFor();
    const users = await page.locator('.msg.user').allTextContents();
    expect(users.some((t) => t.includes('Add a slugify helper'))).toBe(true);
    expect(users.some((t) => t.includes('keep going forever'))).toBe(true);
    expect(users.some((t) => /tool results are above|MANDATORY NEXT STEP/.test(t))).toBe(false); // loop nudges are not the user's
    expect(
      await page
        .locator('.msg.assistant')
        .allTextContents()
        .then((t) => t.join(' ')),
    ).toContain('slugify');
    await screenshot(page, 'chat-reloaded');

    // The next message continues the same session.
    await send('Add a slugify helper');
    await assistant().locator('.turn-end').waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => localStorage.getItem('rebound.sessionId'))).toBe(sessionId);
  });

  it('is usable at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator('.msg.user').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    for (const id of ['#message', '#send', '#stop']) expect(await page.locator(id).isVisible()).toBe(true);
    await screenshot(page, 'chat-phone');
    await page.setViewportSize({ width: 1100, height: 800 });
  });

  it('has labelled controls, a live region and a sensible focus order', async () => {
    expect(await page.getByLabel('Message').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Send' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(1);
    expect(await page.locator('#transcript').getAttribute('aria-live')).toBe('polite');
    await page.focus('#message');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('send');
    // Shift+Enter adds a line instead of sending.
    await page.focus('#message');
    await page.keyboard.type('line one');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('line two');
    expect(await page.inputValue('#message')).toBe('line one\nline two');
    expect(await page.locator('.msg.assistant.streaming').count()).toBe(0);
    await page.fill('#message', '');
  });
});

describe('dashboard page on the real app (PGlite)', () => {
  it('draws charts from the turns above', async () => {
    await app.flush();
    await page.goto(`${app.url}/dashboard`);
    await page.locator('#rates .wide-only svg').waitFor();
    const calls = Number(await page.locator('.tile').first().locator('.tile-value').textContent());
    expect(calls).toBeGreaterThan(5);
    expect(await page.locator('#rates .wide-only circle.point').count()).toBeGreaterThan(0);
    expect(await page.locator('#rates').textContent()).toContain('rebound-demo');
    expect(await page.locator('#categories .wide-only rect.bar').count()).toBeGreaterThan(0);
    expect(await page.locator('#categories').textContent()).toMatch(/invalid path|phantom tool|placeholder content/);
    expect(await page.locator('#phantom-tools').textContent()).toContain('list_directory');
    expect(await page.locator('#recovery svg.meter').count()).toBe(4);
    await screenshot(page, 'dashboard');

    await page.selectOption('#range', '7d');
    await page.waitForFunction(() => location.search.includes('range=7d'));
    await page.locator('#status:not(:empty)').waitFor();
    await page.waitForFunction(() => document.getElementById('view')?.getAttribute('aria-busy') === 'false');
    expect(await page.locator('#rates .wide-only circle.point').count()).toBeGreaterThan(0);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.locator('#rates .narrow-only svg').isVisible()).toBe(true);
    await screenshot(page, 'dashboard-phone');
    expect(errors).toEqual([]);
  });
});

// Durable turns: the turn runs on the server whatever happens to the page's connection. The page is
// loaded through a proxy the test can cut, because context.setOffline() leaves a connection already
// open on loopback alone (the EventSource keeps streaming through it).
describe('durable turns in the browser (scripted upstream, through a proxy the test cuts)', () => {
  const words = (n: number, tag: string) => `${Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ')}.`;
  const LONG = words(220, 'w'); // about 9 s at 40 ms a word
  const ENDLESS = words(600, 's'); // 30 s: stopped long before its end
  let upstream: ScriptedServer;
  let durable: RealApp;
  let proxy: SeverableProxy;
  let p: Page;
  let perrors: string[];

  beforeAll(async () => {
    upstream = await startScriptedOpenAI((request) => {
      const last = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
      return /stop/i.test(last) ? { text: ENDLESS, delayMs: 50 } : { text: LONG, delayMs: 40 };
    });
    durable = await startRealApp({ upstream: `${upstream.url}/v1` });
    proxy = await startSeverableProxy(durable.url);
    p = await browser.context.newPage();
    perrors = collectPageErrors(p);
    await p.goto(`${proxy.url}/`);
    await p.evaluate(() => localStorage.clear());
    await p.reload();
  });
  afterAll(async () => {
    await p?.close();
    await proxy?.close();
    await durable?.close();
    await upstream?.close();
  });

  const last = () => p.locator('.msg.assistant').last();
  const answer = () =>
    last()
      .locator('.answer')
      .allTextContents()
      .then((t) => t.join(''));
  const turnId = () => p.evaluate(() => (JSON.parse(localStorage.getItem('rebound.turn') ?? 'null') as { turnId: string } | null)?.turnId);
  const until = (text: string) => p.waitForFunction((t) => (document.querySelector('.msg.assistant.streaming')?.textContent ?? '').includes(t), text);
  async function say(text: string) {
    await p.fill('#message', text);
    await p.press('#message', 'Enter');
  }
  async function history(): Promise<Array<{ role: string; content: string | null }>> {
    const sessionId = await p.evaluate(() => localStorage.getItem('rebound.sessionId'));
    const res = await fetch(`${durable.url}/v1/sessions/${sessionId}/messages`);
    return ((await res.json()) as { messages: Array<{ role: string; content: string | null }> }).messages;
  }

  it('offline, then online, mid-turn: the page shows the complete answer exactly once', async () => {
    await expect.poll(() => p.locator('#model').textContent()).toBe('model: scripted-e2e'); // from GET /health
    expect(await p.locator('#demo').isVisible()).toBe(false); // a real model is not labelled demo
    await say('tell me a long story');
    await until('w20 ');
    const before = proxy.connections;
    proxy.offline = true; // the open stream is cut, and every reconnect attempt too, until online again
    await p.waitForFunction(() => document.getElementById('conn')?.dataset.state === 'reconnecting');
    expect(await p.locator('#conn').textContent()).toBe('reconnecting…');
    expect(await p.locator('.notice.error').count()).toBe(0);
    await screenshot(p, 'chat-reconnecting');
    await p.waitForTimeout(2_000);
    expect(await p.locator('#conn').getAttribute('data-state')).toBe('reconnecting');
    proxy.offline = false;
    await last().locator('.turn-end').waitFor({ timeout: 30_000 });
    expect(proxy.connections).toBeGreaterThan(before); // EventSource reconnected on its own
    expect(await answer()).toBe(LONG);
    expect(await last().locator('.turn-end').textContent()).toMatch(/^done · 1 iteration/);
    expect(await p.locator('.notice').count()).toBe(0);
    expect(upstream.aborted).toBe(0); // the drop did not touch the turn on the server
    expect((await history()).filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([LONG]);
  });

  it('Stop ends the turn as aborted on the server and aborts the model request', async () => {
    await say('please stop me halfway');
    await until('s10 ');
    const id = await turnId();
    expect(upstream.aborted).toBe(0);
    await p.click('#stop');
    await last().locator('.turn-end').waitFor();
    expect(await last().locator('.turn-end').textContent()).toMatch(/^aborted · /);
    expect(await last().locator('.notice.stopped').textContent()).toBe('Stopped. The turn was cancelled on the server.');
    await upstream.waitForAbort();
    const rows = await durable.db.query<{ status: string; outcome: string }>('select status, outcome from agent_turns where id = $1', [id]);
    expect(rows.rows).toEqual([{ status: 'finished', outcome: 'aborted' }]);
    const shown = await answer();
    expect(shown).not.toContain('s599');
    await p.waitForTimeout(800);
    expect(await answer()).toBe(shown); // nothing arrives after done
    expect(await p.locator('#send').isEnabled()).toBe(true);
  });

  it('a reload mid-turn re-attaches and shows the complete answer once', async () => {
    await say('another long story, please');
    await until('w20 ');
    await p.reload();
    await p.locator('.msg.assistant.streaming').waitFor();
    expect(await p.locator('#stop').isEnabled()).toBe(true);
    await last().locator('.turn-end').waitFor({ timeout: 30_000 });
    expect(await answer()).toBe(LONG);
    const users = await p.locator('.msg.user').allTextContents();
    expect(users.filter((t) => t.includes('another long story'))).toHaveLength(1);
    await screenshot(p, 'chat-reattached');
    // Once it has ended, a reload draws it from the history, once, and re-attaches to nothing.
    await p.reload();
    await p.locator('.msg.user').first().waitFor();
    expect((await p.locator('.msg.user').allTextContents()).filter((t) => t.includes('another long story'))).toHaveLength(1);
    expect(await p.locator('.msg.assistant.streaming').count()).toBe(0);
    expect(await p.locator('.msg.assistant').last().textContent()).toContain('w219.');
    expect(perrors.filter((e) => !e.includes('Failed to load resource') && !e.includes('ERR_'))).toEqual([]);
  });
});
