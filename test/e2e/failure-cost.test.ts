// What failures cost, end to end (issue 24): the real app on PGlite, a scripted model that repeats a
// phantom call whatever it is told, then the dashboard in Chromium. The stubborn turn stops with
// no_progress; its three wasted model calls' tokens and time are on the dashboard by model, category
// and tool, as a share of all tokens. Screenshot: test-results/e2e/dashboard-failure-cost.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, launchBrowser, screenshot, type BrowserSession } from '../support/browser.ts';
import { startScriptedOpenAI, type ChatRequest, type ScriptedServer } from '../support/scripted-openai.ts';
import { startRealApp, type RealApp } from './real-app.ts';

const USAGE = { prompt_tokens: 900, completion_tokens: 12 };
const userText = (req: ChatRequest) => req.messages.find((m) => m.role === 'user')?.content ?? '';
const answered = (req: ChatRequest) => req.messages.some((m) => m.role === 'tool');

let upstream: ScriptedServer;
let app: RealApp;
let browser: BrowserSession;

beforeAll(async () => {
  upstream = await startScriptedOpenAI((req) => {
    if (req.tool_choice === 'none') return { text: 'I could not update the profile: no tool does that.', usage: USAGE };
    if (userText(req).startsWith('STUBBORN')) {
      return { toolCalls: [{ name: 'update_customer_profile', arguments: '{"customer":"Ada","plan":"pro"}' }], usage: USAGE };
    }
    return answered(req) ? { text: 'The workspace is empty.', usage: USAGE } : { toolCalls: [{ name: 'list_files', arguments: '{}' }], usage: USAGE };
  });
  [app, browser] = await Promise.all([startRealApp({ upstream: upstream.url }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await upstream?.close();
});

async function chat(message: string): Promise<string> {
  const res = await fetch(`${app.url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
  expect(res.status).toBe(200);
  return res.text();
}

describe('the cost of failures on the real app', () => {
  it('records the stubborn turn’s wasted calls and draws them on the dashboard', async () => {
    const stubborn = await chat('STUBBORN: move Ada to the pro plan');
    expect(stubborn).toContain('"reason":"no_progress"');
    await chat('What is in the workspace?');
    await app.flush();

    const turns = await app.db.query<{ outcome: string; wasted_calls: number; wasted_prompt_tokens: string; wasted_completion_tokens: string }>(
      'select outcome, wasted_calls, wasted_prompt_tokens, wasted_completion_tokens from public.agent_turns order by created_at',
    );
    expect(turns.rows.map((t) => [t.outcome, t.wasted_calls, Number(t.wasted_prompt_tokens), Number(t.wasted_completion_tokens)])).toEqual([
      ['no_progress', 3, 2700, 36],
      ['completed', 0, 0, 0],
    ]);

    const data = (await (await fetch(`${app.url}/v1/dashboard`)).json()) as { failureCost: Record<string, unknown>; totals: { noProgress: number } };
    expect(data.totals.noProgress).toBe(1);
    // 3 wasted calls of 912 tokens; all tokens: 4 model calls in the stubborn turn, 2 in the other.
    expect(data.failureCost).toMatchObject({ wastedModelCalls: 3, promptTokens: 2700, completionTokens: 36, totalTokens: 6 * 912, share: 0.5 });
    expect(data.failureCost.byTool).toMatchObject([{ key: 'update_customer_profile', calls: 3, promptTokens: 2700, completionTokens: 36, share: 0.5 }]);
    expect(data.failureCost.byModel).toMatchObject([{ key: 'scripted-e2e', calls: 3 }]);
    expect(data.failureCost.byCategory).toMatchObject([
      { key: 'repeated_failure', calls: 2, promptTokens: 1800 },
      { key: 'phantom_tool', calls: 1, promptTokens: 900 },
    ]);

    const page = await browser.context.newPage();
    const errors = collectPageErrors(page);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.url}/dashboard`);
    await page.locator('#failure-cost .wide-only svg').first().waitFor();
    const figure = await page.locator('#failure-cost').textContent();
    for (const text of ['What failures cost', 'update_customer_profile', 'scripted-e2e', 'repeated failure', 'phantom tool', '50%'])
      expect(figure).toContain(text);
    expect(await page.locator('.tile', { hasText: 'cost of failures' }).textContent()).toContain('50%');
    await page.locator('#failure-cost').scrollIntoViewIfNeeded();
    await screenshot(page, 'dashboard-failure-cost');
    expect(errors).toEqual([]);
  });
});
