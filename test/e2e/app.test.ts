// The real app (createApp, demo model, PGlite dashboard) in Debian's Chromium: what issue 6 asks a
// person to be able to do, done by a browser. Screenshots land in test-results/e2e/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';
import { startRealApp, type RealApp } from './real-app.ts';

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
const answerText = () => assistant().locator('.answer').allTextContents().then((t) => t.join(''));

async function send(text: string) {
  await page.fill('#message', text);
  await page.press('#message', 'Enter');
}

describe('chat page on the real app (demo model)', () => {
  it('streams text, shows a blocked call with its suggestion, then the final answer', async () => {
    await page.goto(app.url + '/');
    await page.locator('#demo').waitFor({ state: 'visible' }); // from GET /health
    expect(await page.locator('#model').textContent()).toContain('rebound-demo');

    await send('Add a slugify helper');
    expect(await page.locator('.msg.user').last().textContent()).toContain('Add a slugify helper');

    // Streaming: the answer grows while the turn is still running.
    await page.waitForFunction(() => (document.querySelector('.msg.assistant.streaming .answer')?.textContent ?? '').length > 0);
    const early = (await answerText()).length;
    await page.waitForFunction(
      (n) => {
        const msg = document.querySelector('.msg.assistant.streaming');
        return !!msg && Array.from(msg.querySelectorAll('.answer')).map((a) => a.textContent).join('').length > n;
      },
      early,
    );
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
    expect(await answerText()).toContain('now holds a complete `slugify` helper');
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
    await assistant().locator('.notice.stopped').waitFor();
    const tools = await assistant().locator('.tool').count();
    await page.waitForTimeout(800);
    expect(await assistant().locator('.tool').count()).toBe(tools); // nothing arrives after Stop
    expect(await page.locator('#send').isEnabled()).toBe(true);
    await screenshot(page, 'chat-stopped');

    await expect
      .poll(
        async () => {
          await app.flush();
          const res = await fetch(app.url + '/v1/dashboard');
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
    expect(await page.locator('.msg.assistant').allTextContents().then((t) => t.join(' '))).toContain('slugify');
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
    await page.goto(app.url + '/dashboard');
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
