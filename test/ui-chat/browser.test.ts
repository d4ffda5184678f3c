// A useChat app in Chromium against Rebound: the React page in page/chat.jsx (@ai-sdk/react's useChat,
// ai's DefaultChatTransport with a bearer token, resume: true), bundled here with esbuild and served
// from its own origin, calling Rebound on another (allowed by CORS_ORIGINS). It streams a demo turn and
// draws its tool parts and verdicts; it resumes a running turn after a reload; Stop ends the turn on the
// server through the stop endpoint; a call that waits for approval (the demo's "demo approval") is
// answered with addToolApprovalResponse, also after a reload while it waits.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Hono } from 'hono';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError } from '../../src/auth-error.ts';
import { loadConfig } from '../../src/config.ts';
import type { Authenticator } from '../../src/http/deps.ts';
import { createModel } from '../../src/model/index.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';
import { listen, type RunningServer } from '../support/browser-server.ts';
import { startScriptedOpenAI, type ScriptedServer } from '../support/scripted-openai.ts';

/** The bearer token is the user id: enough to show the transport's headers reach every request. */
const bearerAuth: Authenticator = {
  async authenticate(request) {
    const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    if (!token) throw new AuthError('Missing credentials: send a bearer token.');
    return { userId: token };
  },
};

const LONG = `${Array.from({ length: 150 }, (_, i) => `w${i}`).join(' ')}.`;

let pages: RunningServer;
let demo: TestApp;
let slow: TestApp;
let upstream: ScriptedServer;
let browser: BrowserSession;
let page: Page;
let errors: string[];
let outDir: string;

/** Bundles the page the way an app's build would (esbuild, production React), into a temp dir. */
async function bundlePage(): Promise<string> {
  outDir = mkdtempSync(join(tmpdir(), 'rebound-usechat-'));
  await build({
    entryPoints: [join(import.meta.dirname, 'page', 'chat.jsx')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    outfile: join(outDir, 'chat.js'),
    logLevel: 'silent',
  });
  return readFileSync(join(outDir, 'chat.js'), 'utf8');
}

beforeAll(async () => {
  const script = await bundlePage();
  const site = new Hono();
  site.get('/', (c) =>
    c.html(
      '<!doctype html><html><head><meta charset="utf-8"><title>useChat on Rebound</title></head><body><div id="root"></div><script type="module" src="/chat.js"></script></body></html>',
    ),
  );
  site.get('/favicon.ico', (c) => c.body(null, 204));
  site.get('/chat.js', (c) => c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  pages = await listen(site.fetch);
  upstream = await startScriptedOpenAI(() => ({ text: LONG, delayMs: 30 }));
  const env = { CORS_ORIGINS: pages.url, KEEPALIVE_MS: '1000' };
  const demoConfig = loadConfig(env);
  [demo, slow, browser] = await Promise.all([
    startApp(env, { auth: bearerAuth, model: createModel(demoConfig, { demoWordDelayMs: 10 }) }),
    startApp({ ...env, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: upstream.url, MODEL: 'scripted-usechat' }, { auth: bearerAuth }),
    launchBrowser(),
  ]);
  page = await browser.context.newPage();
  errors = collectPageErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([demo?.close(), slow?.close(), pages?.close(), upstream?.close()]);
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

async function open(app: TestApp, chat: string) {
  await page.goto(`${pages.url}/?token=alice&chat=${chat}&api=${encodeURIComponent(app.url)}`);
  await page.locator('#status[data-status="ready"]').waitFor(); // the mount-time resume found nothing (204)
}

async function say(text: string) {
  await page.fill('#message', text);
  await page.click('#send');
}

const assistant = () => page.locator('.msg.assistant').last();
const assistantText = () =>
  assistant()
    .locator('.text')
    .allTextContents()
    .then((t) => t.join(''));

describe('a useChat app in Chromium', () => {
  it('streams a demo turn and draws its tool parts and the verdicts', async () => {
    await open(demo, 'demo-1');
    await say('add a slugify helper');
    expect(await page.locator('.msg.user').textContent()).toBe('add a slugify helper');
    await page.locator('#status[data-status="streaming"]').waitFor();
    await page.locator('#status[data-status="ready"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#error').count()).toBe(0);

    const tools = await assistant()
      .locator('.tool')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-tool')}:${e.getAttribute('data-state')}`));
    expect(tools).toEqual([
      'write_file:output-error',
      'write_file:output-available',
      'read_file:output-error',
      'read_file:output-available',
      'list_directory:output-error',
      'list_files:output-available',
    ]);
    const verdicts = await assistant()
      .locator('.verdict')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-verdict')}:${e.getAttribute('data-category')}`));
    expect(verdicts).toEqual([
      'blocked:placeholder_content',
      'pass:valid',
      'blocked:invalid_path',
      'repaired:wrong_type',
      'blocked:phantom_tool',
      'pass:valid',
    ]);
    expect(await assistant().locator('.verdict[data-category="invalid_path"] .suggestions').textContent()).toContain('src/utils/slugify.ts');
    expect(await assistant().locator('.verdict[data-verdict="repaired"] .repairs').textContent()).toMatch(/coerce/);
    expect(await assistant().locator('.tool[data-state="output-error"] .error').first().textContent()).not.toBe('');
    expect(await assistantText()).toMatch(/slugify/);
    expect(await assistant().getAttribute('data-reason')).toBe('completed');
    await screenshot(page, 'usechat-demo');
  });

  it('resumes a running turn after a reload: the whole answer, once', async () => {
    await open(slow, 'story');
    await say('tell me a long story');
    await page.waitForFunction(() => (document.querySelector('.msg.assistant .text')?.textContent ?? '').includes('w20 '));
    const turnId = await assistant().getAttribute('data-id');
    const resumed: Array<{ url: string; status: number; auth: string | null }> = [];
    page.on('response', (r) => {
      if (r.url().includes('/v1/ui/chat/story/stream')) resumed.push({ url: r.url(), status: r.status(), auth: r.request().headers().authorization ?? null });
    });
    await page.reload();
    // useChat({resume: true}) asks GET /v1/ui/chat/story/stream on mount; the turn went on meanwhile.
    await page.waitForFunction(() => (document.querySelector('.msg.assistant .text')?.textContent ?? '').length > 0);
    expect(await page.locator('#status').getAttribute('data-status')).toMatch(/submitted|streaming/);
    await page.locator('#status[data-status="ready"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('.msg.assistant').count()).toBe(1);
    expect(await assistant().getAttribute('data-id')).toBe(turnId);
    expect(await assistantText()).toBe(LONG);
    expect(await assistant().getAttribute('data-reason')).toBe('completed');
    expect(resumed).toEqual([{ url: expect.stringContaining('/v1/ui/chat/story/stream'), status: 200, auth: 'Bearer alice' }]);
    expect(upstream.aborted).toBe(0); // the reload left the turn alone
    await screenshot(page, 'usechat-resumed');

    // Once it has ended, a reload resumes nothing (204).
    await page.reload();
    await page.locator('#status[data-status="ready"]').waitFor();
    expect(resumed.at(-1)!.status).toBe(204);
    expect(await page.locator('.msg.assistant').count()).toBe(0);
  });

  it('Stop ends the turn on the server: the stream ends with abort and the model request is aborted', async () => {
    await open(slow, 'stop-me');
    await say('another long story');
    await page.waitForFunction(() => (document.querySelector('.msg.assistant .text')?.textContent ?? '').includes('w10 '));
    const before = upstream.aborted;
    await page.click('#stop');
    await page.locator('#status[data-status="ready"]').waitFor();
    expect(await assistant().getAttribute('data-reason')).toBe('aborted');
    expect(await page.locator('#error').count()).toBe(0);
    await expect.poll(() => upstream.aborted).toBeGreaterThan(before);
    expect((await assistantText()).length).toBeLessThan(LONG.length);
    expect(errors).toEqual([]);
  });

  it('waits for approval: a reload shows the request again, Approve streams the rest into the same message', async () => {
    await open(demo, 'approve-me');
    await say('demo approval');
    const waiting = assistant().locator('.tool[data-tool="delete_file"][data-state="approval-requested"]');
    await waiting.waitFor({ timeout: 20_000 });
    await page.locator('#status[data-status="ready"]').waitFor(); // the stream ended at the pause
    const turnId = await assistant().getAttribute('data-id');
    const resumed: number[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/v1/ui/chat/approve-me/stream')) resumed.push(r.status());
    });
    await page.reload();
    await waiting.waitFor({ timeout: 20_000 }); // resumed to the request (not 204)
    expect(resumed).toEqual([200]);
    await page.locator('#status[data-status="ready"]').waitFor();
    await waiting.locator('.approve').click();
    await assistant().locator('.tool[data-tool="delete_file"][data-state="output-available"]').waitFor({ timeout: 20_000 });
    await page.locator('#status[data-status="ready"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('.msg.assistant').count()).toBe(1);
    expect(await assistant().getAttribute('data-id')).toBe(turnId);
    expect(await assistant().getAttribute('data-reason')).toBe('completed');
    expect(await assistantText()).toContain('Approved and done');
    expect(await page.locator('#error').count()).toBe(0);
    await screenshot(page, 'usechat-approved');
  });
});
