// The pages in Debian's Chromium against the scripted harness: the SSE protocol as the page sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';
import { listen, type RunningServer } from '../support/browser-server.ts';
import { harnessApp } from './harness.ts';

let server: RunningServer;
let session: BrowserSession;

beforeAll(async () => {
  server = await listen(harnessApp().fetch);
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
    await page.locator('.turn-end').waitFor();
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

describe('connection indicator (harness)', () => {
  it('stays connected through keepalive-only silence, then ends the turn when a reconnect gets 204', async () => {
    const { page, errors } = await open('/');
    await page.fill('#message', 'pause for a while');
    await page.click('#send');
    await page.locator('.msg.assistant.streaming .answer').waitFor();
    await page.waitForFunction(() => document.getElementById('conn')?.dataset.state === 'quiet', null, { timeout: 8_000 });
    expect(await page.locator('#conn').textContent()).toBe('connected · waiting');
    await screenshot(page, 'harness-quiet');
    // The server hangs up without `done`; EventSource reconnects, gets 204 and stops: the page ends the turn.
    await page.locator('.msg.assistant').last().locator('.notice.error').waitFor({ timeout: 15_000 });
    expect(await page.locator('.notice.error').textContent()).toContain('stream closed before the turn finished');
    expect(await page.locator('#conn').getAttribute('data-state')).toBe('idle');
    expect(await page.locator('#send').isEnabled()).toBe(true);
    expect(errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
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
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.locator('#rates .narrow-only svg').isVisible()).toBe(true);
    expect(await page.locator('#rates .wide-only svg').isVisible()).toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(page, 'harness-dashboard-phone');
    expect(errors).toEqual([]);
    await page.close();
  });
});
