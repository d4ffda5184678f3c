// The chat page reads like the coding agents people know (issue 15), in Chromium: model text rendered
// as Markdown with highlighted code, tool cards with the diffs of what they changed and, after a
// reload, their verdicts; nothing from model text or tool results executes or loads anything. Against
// the real app with the demo model and with a scripted upstream (src/ and functions/ as they run), and
// against the harness where the exact chunking of a stream matters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';
import { listen, type RunningServer } from '../support/browser-server.ts';
import { startScriptedOpenAI, type ChatRequest, type Reply, type ScriptedServer } from '../support/scripted-openai.ts';
import { harness, LONG_FENCE } from './harness.ts';
import { startRealApp, type RealApp } from './real-app.ts';

let browser: BrowserSession;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const lastAssistant = (page: Page) => page.locator('.msg.assistant').last();

async function send(page: Page, text: string) {
  await page.fill('#message', text);
  await page.press('#message', 'Enter');
  await lastAssistant(page).locator('.turn-end').waitFor({ timeout: 30_000 });
}

/** Every code block of the page highlighted, once its grammar has loaded. */
async function highlighted(page: Page) {
  await page.waitForFunction(() => [...document.querySelectorAll('figure.code code')].every((c) => (c as HTMLElement).dataset.highlighted));
}

/** What each text segment and tool card of the last assistant message shows, as markup and labels. */
async function rendering(page: Page) {
  await highlighted(page);
  const msg = lastAssistant(page);
  return {
    // (Playwright leaves an empty style attribute on elements it has looked at.)
    answers: await msg.locator('.answer').evaluateAll((els) => els.map((e) => e.innerHTML.replaceAll(' style=""', ''))),
    verdicts: await msg.locator('.tool .verdict:not(.failed)').allTextContents(),
    diffs: await msg.locator('.tool .diff').allTextContents(),
  };
}

describe('the demo answer (real app, demo model)', () => {
  let app: RealApp;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    app = await startRealApp();
    page = await browser.context.newPage();
    errors = collectPageErrors(page);
  });
  afterAll(async () => {
    await page?.close();
    await app?.close();
  });

  it('renders its code block (highlighted, with a copy button), table, task list, link and inline code', async () => {
    await page.goto(`${app.url}/`);
    await send(page, 'Add a slugify helper');
    const answer = lastAssistant(page).locator('.answer').last();
    await highlighted(page);

    const code = answer.locator('figure.code');
    expect(await code.count()).toBe(1);
    expect(await code.locator('.code-lang').textContent()).toBe('ts');
    expect(await code.locator('code').getAttribute('data-highlighted')).toBe('ts');
    expect(await code.locator('code .tok-kwd').first().textContent()).toBe('export');
    expect(await code.locator('code').textContent()).toContain(".replace(/[^a-z0-9]+/g, '-')");

    expect(await answer.locator('table thead th').allTextContents()).toEqual(['my call', 'what the gate did']);
    expect(await answer.locator('table tbody tr').count()).toBe(4);
    expect(await answer.locator('table tbody strong').allTextContents()).toEqual(['refused', 'repaired']);

    const tasks = answer.locator('li.task input[type="checkbox"]');
    expect(await tasks.count()).toBe(3);
    expect(await tasks.evaluateAll((boxes) => boxes.map((b) => [(b as HTMLInputElement).checked, (b as HTMLInputElement).disabled]))).toEqual([
      [true, true],
      [true, true],
      [false, true],
    ]);

    const link = answer.locator('a', { hasText: 'slug URLs' });
    expect(await link.getAttribute('href')).toBe('https://developer.mozilla.org/en-US/docs/Glossary/Slug');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await answer.locator('p code').first().textContent()).toBe('src/utils/slugify.ts');
    expect(await answer.textContent()).not.toContain('```');

    // Copy puts the code itself on the clipboard.
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await code.locator('button.copy').click();
    await expect.poll(() => code.locator('button.copy').textContent()).toBe('Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toMatch(/^export function slugify\(input: string\): string \{\n[\s\S]*\n\}$/);

    // The write that passed shows what it created.
    const written = lastAssistant(page)
      .locator('.tool', { has: page.locator('.tool-name', { hasText: 'write_file' }) })
      .filter({ has: page.locator('.diff') });
    expect(await written.locator('.diff summary').textContent()).toMatch(/^src\/utils\/slugify\.ts created \+8 −0$/);
    expect(await written.locator('.diff-add').first().textContent()).toBe('+export function slugify(input: string): string {\n');

    await screenshot(page, 'render-demo');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'render-demo-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await answer.locator('table').scrollIntoViewIfNeeded();
    await screenshot(page, 'render-demo-phone');
    await page.setViewportSize({ width: 1100, height: 800 });
    expect(errors).toEqual([]);
  });

  it('a reload draws the same answer and the same tool cards; another browser derives the verdicts from the history', async () => {
    await expect.poll(() => page.locator('button.copy').first().textContent(), { timeout: 5_000 }).toBe('Copy'); // "Copied" for a moment after a click
    const live = await rendering(page);
    expect(live.verdicts).toEqual(['blocked', 'passed', 'blocked', 'repaired', 'blocked', 'passed']);
    await page.reload();
    await lastAssistant(page).locator('.tool').last().waitFor();
    expect(await rendering(page)).toEqual(live);

    // A browser that never saw the events (what it remembers of them gone): what the tool messages say
    // (blocked, or ran), without repairs or diffs.
    await page.evaluate(() => localStorage.removeItem('rebound.calls'));
    await page.reload();
    await lastAssistant(page).locator('.tool').last().waitFor();
    const derived = await rendering(page);
    expect(derived.answers).toEqual(live.answers);
    expect(derived.verdicts).toEqual(['blocked', 'ran', 'blocked', 'ran', 'blocked', 'ran']);
    expect(derived.diffs).toEqual([]);
    // Suggestions for the mistyped path; none for list_directory, which is no near typo of a tool name.
    expect(await lastAssistant(page).locator('.tool[data-verdict="blocked"] .suggestions').count()).toBe(1);
    expect(await lastAssistant(page).locator('.verdict').first().getAttribute('title')).toContain('From the history');
    await screenshot(page, 'render-history-derived');
    expect(errors).toEqual([]);
  });
});

// --- a scripted upstream -------------------------------------------------------------------------

/** Each payload sets window.__pwned if it ever runs, or loads something from outside.example if it ever loads. */
const PAYLOADS = [
  `<img src=x onerror="window.__pwned='img'">`,
  `<script>window.__pwned='script'</script>`,
  `[click me](javascript:window.__pwned='link')`,
  `<svg onload="window.__pwned='svg'"><circle r="4"/></svg>`,
  `[entity](&#106;avascript:window.__pwned='entity')`,
  `[tab](java&#9;script:window.__pwned='tab')`,
  `![tracker](http://outside.example/pixel.png?session=1)`,
  `<a href="javascript:window.__pwned='a'">raw anchor</a>`,
  `<iframe src="http://outside.example/frame"></iframe>`,
  `[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0nZGF0YSc8L3NjcmlwdD4=)`,
  `<style>body{background:url(http://outside.example/bg.png)}</style>`,
  `<details open ontoggle="window.__pwned='toggle'">x</details>`,
];
const XSS_TEXT = `Some **payloads**, one per line:\n\n${PAYLOADS.join('\n\n')}\n\n\`${PAYLOADS[0]}\` in code, and in a fence:\n\n\`\`\`html\n${PAYLOADS.join('\n')}\n\`\`\`\n`;
const FORMATTED = 'First paragraph.\n\nA second one,\nwith a line break.\n\n```py\nprint("hi")\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nLast words.';
const APP_LINES = `${Array.from({ length: 10 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`;
const BIG = `${Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: JSON.stringify(args) });

/** The scripted model: what it answers depends on the user's message and how many tool results it has seen since. */
function model(request: ChatRequest): Reply {
  const nudge = /^(MANDATORY NEXT STEP|The tool results are above|You described an action)/;
  const lastUser = request.messages.findLastIndex((m) => m.role === 'user' && !nudge.test(m.content ?? ''));
  const message = request.messages[lastUser]?.content ?? '';
  const step = request.messages.slice(lastUser).filter((m) => m.role === 'assistant').length;
  // An upstream that reports no token counts (its usage chunk without them).
  if (/no usage/.test(message)) return { text: 'Nothing counted.', usage: { prompt_tokens: null, completion_tokens: null } };
  if (/payloads/.test(message)) {
    if (step === 0) {
      return {
        text: XSS_TEXT,
        toolCalls: [
          call('write_file', { path: 'notes/payloads.md', content: `${PAYLOADS.join('\n')}\n` }),
          call('read_file', { path: `notes/<img src=x onerror="window.__pwned='path'">.md` }),
        ],
      };
    }
    if (step === 1) return { toolCalls: [call('read_file', { path: 'notes/payloads.md' }), call(`<svg onload="window.__pwned='tool'">`, { x: 1 })] };
    return { text: `Done. ${PAYLOADS.join(' ')}` };
  }
  if (/write then patch/.test(message)) {
    if (step === 0) return { text: 'Writing it.', toolCalls: [call('write_file', { path: 'src/app.ts', content: APP_LINES })] };
    if (step === 1)
      return {
        text: 'Now the patch.',
        toolCalls: [call('patch_file', { path: 'src/app.ts', search: 'export const v4 = 4;', replace: 'export const v4 = 40;\nexport const v4b = 41;' })],
      };
    if (step === 2) return { text: 'And a big file.', toolCalls: [call('write_file', { path: 'big.txt', content: BIG })] };
    return { text: 'Done: `src/app.ts` and `big.txt`.' };
  }
  return { text: FORMATTED };
}

describe('a real model (scripted upstream)', () => {
  let upstream: ScriptedServer;
  let app: RealApp;
  let page: Page;
  let errors: string[];
  const requests: string[] = [];

  beforeAll(async () => {
    upstream = await startScriptedOpenAI(model);
    app = await startRealApp({ upstream: `${upstream.url}/v1` });
    page = await browser.context.newPage();
    errors = collectPageErrors(page);
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${app.url}/`);
    await page.evaluate(() => localStorage.clear());
    await page.reload();
  });
  afterAll(async () => {
    await page?.close();
    await app?.close();
    await upstream?.close();
  });

  const badgeShown = () =>
    page.evaluate(() => {
      const badge = document.getElementById('demo')!;
      return !badge.hidden || getComputedStyle(badge).display !== 'none';
    });

  it('never labels a real model a demo, and keeps paragraphs, line breaks, a fence and a table', async () => {
    await expect.poll(() => page.locator('#model').textContent()).toBe('model: scripted-e2e');
    expect(await badgeShown()).toBe(false);
    await send(page, 'Format something');
    expect(await badgeShown()).toBe(false);
    const answer = lastAssistant(page).locator('.answer');
    expect(await answer.locator(':scope > p').allTextContents()).toEqual(['First paragraph.', 'A second one,with a line break.', 'Last words.']);
    expect(await answer.locator(':scope > p br').count()).toBe(1);
    expect(await answer.locator('figure.code code').textContent()).toBe('print("hi")');
    expect(await answer.locator('table td').allTextContents()).toEqual(['1', '2']);
    await highlighted(page);
    await screenshot(page, 'render-formatted');
    await page.reload();
    await lastAssistant(page).locator('.answer').waitFor();
    expect(await badgeShown()).toBe(false);
    expect(await lastAssistant(page).locator('.answer > p').count()).toBe(3);
    expect(errors).toEqual([]);
  });

  it('each turn keeps its footer after a reload; an upstream that reports no usage says so, not "0 + 0 tokens"', async () => {
    await send(page, 'no usage here');
    const footers = () => page.locator('.msg.assistant .turn-end').allTextContents();
    const live = await footers();
    expect(live.at(-2)).toBe('done · 1 iteration · 100 + 20 tokens');
    expect(live.at(-1)).toBe('done · 1 iteration · usage not reported');
    await page.reload();
    await lastAssistant(page).locator('.turn-end').waitFor();
    expect(await footers()).toEqual(live);
    expect(await page.locator('.msg.assistant').count()).toBe(live.length);
    expect(errors).toEqual([]);
  });

  it('nothing in model text, tool results or error messages executes or loads from outside', async () => {
    await send(page, 'Show me the payloads');
    await highlighted(page);
    const msg = lastAssistant(page);
    // The text, the tool results (the written file's diff, the file read back) and the errors (a path, a tool name) all hold payloads, as text.
    expect(await msg.locator('.answer').first().textContent()).toContain(`<img src=x onerror="window.__pwned='img'">`);
    expect(await msg.locator('.tool .diff-lines').first().textContent()).toContain(`+<script>window.__pwned='script'</script>`);
    expect(
      await msg
        .locator('.tool .reason')
        .allTextContents()
        .then((t) => t.join('\n')),
    ).toContain(`onerror="window.__pwned='path'"`);
    expect(await msg.locator('.tool-name').allTextContents()).toContain(`<svg onload="window.__pwned='tool'">`);
    expect(
      await msg
        .locator('.tool details', { hasText: 'result' })
        .allTextContents()
        .then((t) => t.join('\n')),
    ).toContain(`<script>window.__pwned='script'</script>`);
    // Links to what must not open are not links; the tracker image is its alt text and address.
    expect(await msg.locator('a[href^="javascript:"], a[href^="data:"], a[href^="vbscript:"]').count()).toBe(0);
    expect(await msg.locator('.link-inert').count()).toBeGreaterThanOrEqual(4);
    expect(await msg.locator('.md-image').first().textContent()).toBe('[image: tracker] http://outside.example/pixel.png?session=1');
    expect(await page.locator('#transcript').locator('img, script, svg, iframe, style, object, embed').count()).toBe(0);
    // Click everything that looks clickable and is not a real outside link, and open every details.
    for (const inert of await msg.locator('.link-inert').all()) await inert.click({ timeout: 3_000 });
    await msg.locator('details').evaluateAll((all) => {
      for (const d of all) (d as HTMLDetailsElement).open = true;
    });
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(requests.filter((u) => !u.startsWith(app.url))).toEqual([]);
    await screenshot(page, 'render-payloads');
    // The same after a reload, drawn from the history.
    await page.reload();
    await lastAssistant(page).locator('.tool').last().waitFor();
    await highlighted(page);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('#transcript').locator('img, script, svg, iframe, style, object, embed').count()).toBe(0);
    expect(requests.filter((u) => !u.startsWith(app.url))).toEqual([]);
    expect(errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
  });

  it('a write followed by a patch shows both diffs, and a large file’s diff starts collapsed', async () => {
    await send(page, 'Please write then patch');
    const cards = lastAssistant(page).locator('.tool');
    expect(await cards.locator('.tool-name').allTextContents()).toEqual(['write_file', 'patch_file', 'write_file']);
    const [write, patch, big] = [cards.nth(0).locator('.diff'), cards.nth(1).locator('.diff'), cards.nth(2).locator('.diff')];
    expect(await write.locator('summary').textContent()).toBe('src/app.ts created +10 −0');
    expect(await write.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    expect(await patch.locator('summary').textContent()).toBe('src/app.ts modified +2 −1');
    expect(await patch.locator('.diff-lines > span').allTextContents()).toEqual([
      '@@ -2,7 +2,8 @@\n',
      ' export const v1 = 1;\n',
      ' export const v2 = 2;\n',
      ' export const v3 = 3;\n',
      '-export const v4 = 4;\n',
      '+export const v4 = 40;\n',
      '+export const v4b = 41;\n',
      ' export const v5 = 5;\n',
      ' export const v6 = 6;\n',
      ' export const v7 = 7;\n',
    ]);
    expect(await big.locator('summary').textContent()).toBe('big.txt created +500 −0');
    expect(await big.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await big.locator('.diff-lines > span').count()).toBe(400); // the cap: a header and 399 lines
    expect(await big.locator('.diff-note').textContent()).toBe('101 more diff lines not shown');
    // The model was never sent a diff.
    const toolMessages = upstream.requests.flatMap((r) => r.messages.filter((m) => m.role === 'tool').map((m) => m.content ?? ''));
    expect(toolMessages.some((c) => c.includes('@@'))).toBe(false);
    await screenshot(page, 'render-diffs');
    await big.locator('summary').click();
    await screenshot(page, 'render-diffs-open');
    // After a reload the cards still show them.
    const before = await rendering(page);
    await page.reload();
    await lastAssistant(page).locator('.tool .diff').last().waitFor();
    expect(await rendering(page)).toEqual(before);
  });
});

// --- exact chunking (the harness) ----------------------------------------------------------------

describe('streaming (harness)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await listen(harness().app.fetch);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a long fenced block streamed 7 characters at a time shows no raw fence or table syntax, and ends as it renders at once', async () => {
    const page = await browser.context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${server.url}/`);
    // Every state of the answer while it streams, as the DOM had it.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => {
        const answer = document.querySelector('.msg.assistant.streaming .answer');
        if (answer) seen.push(answer.textContent ?? '');
      }).observe(document.getElementById('transcript')!, { childList: true, subtree: true, characterData: true });
    });
    await send(page, 'a long fence please');
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen.length).toBeGreaterThan(20); // drawn many times on the way
    expect(seen.filter((t) => t.includes('```') || t.includes('| --- |') || t.includes('| rule |'))).toEqual([]);
    const streamed = await rendering(page);
    expect(streamed.answers).toHaveLength(1);
    expect(await lastAssistant(page).locator('figure.code code').textContent()).toBe(LONG_FENCE.split('```ts\n')[1]!.split('\n```')[0]);
    expect(await lastAssistant(page).locator('table tbody tr').count()).toBe(8);
    // The history holds the same text: a reload renders it in one go.
    await page.reload();
    await lastAssistant(page).locator('.answer figure.code').waitFor();
    expect(await rendering(page)).toEqual(streamed);
    expect(errors).toEqual([]);
    await page.close();
  });
});
