// The README's two steps in Chromium (issue 35): `npm start` (the real Node entry, demo model,
// a fresh data folder), then open the chat URL it printed, `…/?token=…`. The page keeps the local token
// and takes it out of the address bar; a turn runs; a reload and the dashboard, opened without the
// token, still work; a browser without the token is refused with a message that says where to find it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type RuntimeServer } from '../runtimes/servers.ts';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';

let server: RuntimeServer;
let dataDir: string;
let browser: BrowserSession;
let page: Page;
let errors: string[];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'rebound-printed-'));
  [server, browser] = await Promise.all([startNode({}, { dataDir: join(dataDir, 'pglite') }), launchBrowser()]);
  page = await browser.context.newPage();
  errors = collectPageErrors(page);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function send(text: string) {
  await page.fill('#message', text);
  await page.press('#message', 'Enter');
}

describe('npm start, then the printed URL', () => {
  it('chats from the printed URL, keeps the token out of the address bar, and a reload and the dashboard need no token in the URL', {
    timeout: 120_000,
  }, async () => {
    const token = readFileSync(join(dataDir, 'pglite', 'local-token'), 'utf8').trim();
    const printed = /chat: (\S+)/.exec(server.log())?.[1];
    expect(printed).toBe(`${server.baseUrl}/?token=${token}`);
    // No upstream key: the banner says what the gateway answers and what to set, not an upstream it cannot reach.
    expect(server.log()).toContain('gateway: not configured (POST /v1/chat/completions answers 503 gateway_not_configured): set OPENAI_API_KEY');

    await page.goto(printed!);
    await page.locator('#demo').waitFor({ state: 'visible' });
    expect(page.url()).toBe(`${server.baseUrl}/`);
    expect(await page.evaluate(() => localStorage.getItem('rebound.token'))).toBe(token);

    await send('Add a slugify helper');
    const assistant = page.locator('.msg.assistant').last();
    await assistant.locator('.turn-end').waitFor({ timeout: 90_000 });
    expect(await assistant.locator('.turn-end').textContent()).toMatch(/^done · \d+ iterations/);
    await screenshot(page, 'printed-url-chat');

    // A reload at the bare URL: the history comes back through the kept token.
    await page.goto(`${server.baseUrl}/`);
    await page.locator('.msg.user', { hasText: 'Add a slugify helper' }).waitFor();
    await page.locator('.msg.assistant', { hasText: 'slugify' }).first().waitFor();

    await page.goto(`${server.baseUrl}/dashboard`);
    await page.locator('#status', { hasText: /^Updated/ }).waitFor({ timeout: 20_000 });
    expect(await page.locator('#status').getAttribute('class')).toBe('status');
    expect(page.url()).not.toContain(token);
    expect(errors).toEqual([]);
  });

  it('refuses a browser without the token, saying where it is; a JWT in the URL is not taken for one', async () => {
    await page.goto(`${server.baseUrl}/`);
    await page.evaluate(() => localStorage.clear());
    // A link carrying someone's Supabase token: taken out of the address bar, never kept as this page's credential.
    await page.goto(`${server.baseUrl}/?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.c2ln`);
    await page.waitForURL(`${server.baseUrl}/`);
    expect(await page.evaluate(() => localStorage.getItem('rebound.token'))).toBeNull();
    await page.locator('#demo').waitFor({ state: 'visible' }); // /health stays open
    await send('hello?');
    const notice = page.locator('.msg.assistant').last().locator('.notice.error');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/The server refused the message: Missing credentials: .*local access token.*local-token/);
  });
});
