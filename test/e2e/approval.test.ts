// Human approval on the chat page (docs/approval.md § On the chat page), on the real app (PGlite, the demo model whose
// "demo approval" writes notes/draft.md and then proposes to delete it; APPROVAL_TOOLS defaults to
// delete_file with it), in Chromium: the approval card shows the call, its arguments and the diff it
// would make; Approve and Deny (with a reason) work from the keyboard; a reload while waiting shows the
// card again; the result cards say approved, denied or expired, also after a reload from the history; a
// denied card has one badge and the person's reason; the turn's footer survives the reload.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';
import { startRealApp, type RealApp } from './real-app.ts';

let app: RealApp;
let late: RealApp;
let browser: BrowserSession;
let page: Page;
let errors: string[];

beforeAll(async () => {
  [app, late, browser] = await Promise.all([startRealApp(), startRealApp({ env: { APPROVAL_TIMEOUT_MS: '1500' } }), launchBrowser()]);
  page = await browser.context.newPage();
  errors = collectPageErrors(page);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([app?.close(), late?.close()]);
});

const assistant = () => page.locator('.msg.assistant').last();
const deletion = () =>
  assistant()
    .locator('.tool')
    .filter({ has: page.locator('.tool-name', { hasText: 'delete_file' }) });

async function askForApproval(url: string) {
  await page.goto(`${url}/`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${url}/`);
  await page.fill('#message', 'demo approval');
  await page.press('#message', 'Enter');
  await deletion().locator('.approval').waitFor({ timeout: 20_000 });
}

describe('approval on the chat page', () => {
  it('shows the call, its arguments and the diff; Approve from the keyboard runs it', async () => {
    await askForApproval(app.url);
    const card = deletion();
    expect(await card.getAttribute('data-approval')).toBe('requested');
    expect(await card.locator('.approval-title').textContent()).toContain('delete_file');
    expect(await card.locator('.approval details pre').first().textContent()).toContain('"path": "notes/draft.md"');
    expect(await card.locator('.approval .diff .diff-path').first().textContent()).toBe('notes/draft.md');
    expect(await card.locator('.approval .diff').first().getAttribute('data-change')).toBe('deleted');
    // The card takes the focus on Approve: Enter decides.
    expect(await page.evaluate(() => document.activeElement?.className)).toContain('approve');
    await screenshot(page, 'approval-card');
    await page.keyboard.press('Enter');
    await card.locator('.approval-badge.approved').waitFor();
    expect(await card.locator('.approval').count()).toBe(0);
    await assistant().locator('.turn-end').waitFor({ timeout: 20_000 });
    expect(
      await assistant()
        .locator('.answer')
        .allTextContents()
        .then((t) => t.join('')),
    ).toContain('Approved and done');
    expect(await card.getAttribute('data-approval')).toBe('approved');
    await screenshot(page, 'approval-approved');
  });

  it('a reload while waiting shows the card again; Deny with a reason from the keyboard; the history keeps the badge', async () => {
    await askForApproval(app.url);
    await page.reload();
    await deletion().locator('.approval').waitFor({ timeout: 20_000 });
    expect(await page.locator('.msg.assistant').count()).toBeGreaterThan(0);
    // The reason field, then Enter in it denies with that reason.
    expect(await page.evaluate(() => document.activeElement?.className)).toContain('approve');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('INPUT');
    await page.keyboard.type('keep it');
    await page.keyboard.press('Enter');
    /** The denied card: one badge saying so (not the gate's "passed" beside it), the person's reason, the model's text on request. */
    const expectDeniedCard = async () => {
      const card = deletion();
      await card.locator('.verdict.denied').waitFor();
      expect(await card.locator('.verdict, .approval-badge').allTextContents()).toEqual(['denied']);
      expect(await card.locator('.decision-reason').textContent()).toBe('Your reason: keep it');
      expect(await card.locator('p.reason').count()).toBe(0);
      expect(await card.locator('details', { hasText: 'what the agent was told' }).getAttribute('open')).toBeNull();
      expect(await card.locator('.verdict.failed').count()).toBe(0); // not a failure: it never ran
    };
    await expectDeniedCard();
    await assistant().locator('.turn-end').waitFor({ timeout: 20_000 });
    expect(
      await assistant()
        .locator('.answer')
        .allTextContents()
        .then((t) => t.join('')),
    ).toContain('You denied the deletion ("keep it")');
    const footer = await assistant().locator('.turn-end').textContent();
    expect(footer).toMatch(/^done · \d+ iterations · /);
    await page.reload();
    await expectDeniedCard();
    // The finished turn keeps its footer after the reload, drawn from the history.
    await assistant().locator('.turn-end').waitFor();
    expect(await assistant().locator('.turn-end').textContent()).toBe(footer);
    await screenshot(page, 'approval-denied');
  });

  it('Stop while waiting ends the turn; the card can no longer be decided', async () => {
    await askForApproval(app.url);
    await page.click('#stop');
    await assistant().locator('.turn-end').waitFor({ timeout: 20_000 });
    expect(await assistant().locator('.turn-end').textContent()).toMatch(/^aborted/);
    expect(await deletion().locator('.approval').count()).toBe(0);
    expect(await deletion().locator('.approve').count()).toBe(0);
    expect(await deletion().getAttribute('data-approval')).toBe('ended');
    expect(await deletion().locator('.verdict').first().textContent()).toBe('not decided');
  });

  it('says expired when nobody decided in APPROVAL_TIMEOUT_MS', async () => {
    await askForApproval(late.url);
    await deletion().locator('.verdict.expired').waitFor({ timeout: 20_000 });
    expect(await deletion().locator('.verdict, .approval-badge').allTextContents()).toEqual(['expired']);
    expect(await deletion().locator('.decision-reason').textContent()).toBe('Nobody decided in time; it counts as denied.');
    expect(await deletion().locator('.approval').count()).toBe(0);
    await assistant().locator('.turn-end').waitFor({ timeout: 20_000 });
    expect(errors).toEqual([]);
  });
});
