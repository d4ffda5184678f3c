// A server's question on the chat page (docs/approval.md § A server's question), on the real app
// (PGlite, a scripted model) with a v2 MCP server whose confirm_order asks "Order mug?", in Chromium:
// the card shows the server's question as a form drawn from its schema (a checkbox for a boolean),
// Send posts {action: accept, content: {confirm: true}}, and the call's result, "ordered mug", follows;
// Decline sends {action: decline} and the card shows what the agent was told.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';
import { type RunningV2, startV2Server } from '../support/mcp-v2-servers.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';
import { startRealApp, type RealApp } from './real-app.ts';

let model: ScriptedServer;
let shop: RunningV2;
let app: RealApp;
let browser: BrowserSession;
let page: Page;
let errors: string[];

beforeAll(async () => {
  model = await startScriptedOpenAI((req) =>
    req.messages.some((m) => m.role === 'tool') ? { text: 'Done.' } : { toolCalls: [{ name: 'shop__confirm_order', arguments: '{"item":"mug"}' }] },
  );
  shop = await startV2Server({ legacy: 'reject' });
  [app, browser] = await Promise.all([
    startRealApp({ upstream: model.url, env: { MCP_SERVERS: JSON.stringify([{ name: 'shop', url: shop.url }]) } }),
    launchBrowser(),
  ]);
  page = await browser.context.newPage();
  errors = collectPageErrors(page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await shop?.stop();
  await model?.close();
});

const order = () =>
  page
    .locator('.msg.assistant')
    .last()
    .locator('.tool')
    .filter({ has: page.locator('.tool-name', { hasText: 'shop__confirm_order' }) });

async function ask() {
  await page.goto(`${app.url}/`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${app.url}/`);
  await page.fill('#message', 'order me a mug');
  await page.press('#message', 'Enter');
  await order().locator('form.input').waitFor({ timeout: 20_000 });
}

describe('a server’s question on the chat page', () => {
  it('shows "Order mug?" as a form from its schema; Send with the box ticked answers {confirm: true} and "ordered mug" follows', async () => {
    await ask();
    const card = order();
    expect(await card.locator('.approval-title').textContent()).toContain('shop');
    expect(await card.locator('.input-message').textContent()).toBe('Order mug?');
    const box = card.locator('form.input input[type=checkbox]');
    expect(await box.count()).toBe(1);
    expect(await card.locator('form.input label').first().textContent()).toContain('Confirm the order');
    await screenshot(page, 'input-form');
    await box.check();
    await card.locator('form.input button.approve').click();
    await card.locator('form.input').waitFor({ state: 'detached', timeout: 20_000 });
    expect(await card.getAttribute('data-approval')).toBe('answered');
    await card.locator('details pre', { hasText: 'ordered mug' }).first().waitFor({ state: 'attached', timeout: 20_000 });
    expect(shop.toolCalls('confirm_order').at(-1)).toMatchObject({ inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } });
    expect(errors).toEqual([]);
    // The row in PGlite: the server's revision and what came of its question.
    await app.flush();
    const { rows } = await app.db.query<{ tool_server: string; mcp_protocol: string; elicitation: string }>(
      "select tool_server, mcp_protocol, elicitation from public.agent_activity where tool_resolved = 'shop__confirm_order'",
    );
    expect(rows).toEqual([{ tool_server: 'shop', mcp_protocol: '2026-07-28', elicitation: 'accept' }]);
  }, 60_000);

  it('Decline answers {action: decline}; the card shows what the agent was told', async () => {
    await ask();
    const card = order();
    await card.locator('form.input button.deny').click();
    await card.locator('form.input').waitFor({ state: 'detached', timeout: 20_000 });
    await card.locator('.reason', { hasText: 'and they chose decline' }).waitFor({ timeout: 20_000 });
    expect(await card.locator('.reason').textContent()).toContain('The order was not placed: the person chose decline.');
    expect(shop.toolCalls('confirm_order').at(-1)).toMatchObject({ inputResponses: { confirm: { action: 'decline' } } });
    expect(errors).toEqual([]);
  }, 60_000);
});
