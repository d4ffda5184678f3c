// The unmodified coding-agent CLIs through the gateway (issue 31), each driven by a scripted upstream that
// makes the broken call, once without Rebound (the failure) and once through it, the file on disk saying
// whether the edit came out right:
// - Claude Code (`claude -p … --permission-mode acceptEdits`): the model's Write cuts the file short with
//   "// ... rest of the code unchanged". Straight to the upstream, the agent writes it so; through Rebound
//   the Write is blocked (Write.content), re-asked, and the whole file is written.
// - Codex (`codex exec`, a provider with wire_api "responses"): the model calls exec_command with
//   `command` for `cmd`. Straight to the upstream, Codex answers "missing field `cmd`" and nothing is
//   created; through Rebound the call is repaired to `cmd` in place, with no extra model round.
// Through Rebound both run against a native upstream (MESSAGES_UPSTREAM=anthropic, RESPONSES_UPSTREAM=
// responses) and against the chat upstream (translated): the same model behaviour in both.
// The CLIs are installed on first use (test/support/agent-clis.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installAgentClis, runClaudeCode, runCodex } from '../support/agent-clis.ts';
import { startApp, type TestApp } from '../support/app-server.ts';
import { type NativeBody, type NativeReply, startScriptedAnthropic, startScriptedResponses } from '../support/scripted-native.ts';
import { type ChatRequest, type Reply, startScriptedOpenAI } from '../support/scripted-openai.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

beforeAll(() => installAgentClis(), 600_000);

const WHOLE = 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n';
const CUT = 'export const a = 1;\n// ... rest of the code unchanged\n';

/** What the scripted model sees of a request, whatever the protocol: its tools, the last tool result, all its text. */
interface Seen {
  tools: string[];
  result: { error: boolean; text: string } | null;
  text: string;
}
type Decision = { text: string } | { call: { id: string; name: string; arguments: string } };

/** Claude Code's model: a Write cut short, the whole file once told it was blocked, "Done." after the tool ran. */
function claudeModel(seen: Seen): Decision {
  if (!seen.tools.includes('Write')) return { text: 'ok' };
  if (seen.result && !seen.result.error) return { text: 'Done.' };
  const reasked = seen.result !== null && /elides code/.test(seen.result.text);
  // Any other error (a refused path): the model gives up rather than loop.
  if (seen.result && !reasked) return { text: `Gave up: ${seen.result.text.slice(0, 200)}` };
  // The folder Claude Code names in its environment (the request as JSON: the path ends at a quote or an escape).
  const dir = /Primary working directory: ([^\s\\"]+)/.exec(seen.text)?.[1] ?? '/tmp';
  const content = reasked ? WHOLE : CUT;
  return { call: { id: seen.result ? 'toolu_2' : 'toolu_1', name: 'Write', arguments: JSON.stringify({ file_path: join(dir, 'consts.ts'), content }) } };
}

/** Codex's model: exec_command with `command` for `cmd`, then "Done." whatever the tool said. */
function codexModel(seen: Seen): Decision {
  if (seen.result) return { text: 'Done.' };
  return { call: { id: 'call_1', name: 'exec_command', arguments: JSON.stringify({ command: "printf 'hello\\n' > hello.txt" }) } };
}

const textOf = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? ''));

function seenAnthropic(body: NativeBody): Seen {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1)!;
  const results = Array.isArray(last.content)
    ? (last.content as Array<{ type: string; is_error?: boolean; content?: unknown }>).filter((b) => b.type === 'tool_result')
    : [];
  const r = results.at(-1);
  return {
    tools: ((body.tools as Array<{ name: string }>) ?? []).map((t) => t.name),
    result: r ? { error: r.is_error === true, text: textOf(r.content) } : null,
    text: JSON.stringify(body),
  };
}

function seenChat(req: ChatRequest): Seen {
  const last = req.messages.at(-1)!;
  const content = last.content ?? '';
  return {
    tools: (req.tools ?? []).map((t) => t.function.name),
    // A tool result the gate wrote is JSON {ok: false, …}; Claude Code's own errors arrive as "Error: …".
    result: last.role === 'tool' ? { error: /^Error: |"ok":\s*false/.test(content), text: content } : null,
    text: JSON.stringify(req.messages),
  };
}

function seenResponses(body: NativeBody): Seen {
  const input = body.input as Array<{ type?: string; output?: unknown }>;
  const out = input.filter((i) => i.type === 'function_call_output').at(-1);
  return {
    tools: ((body.tools as Array<{ name?: string }>) ?? []).map((t) => t.name ?? ''),
    result: out ? { error: /"ok":\s*false/.test(textOf(out.output)), text: textOf(out.output) } : null,
    text: JSON.stringify(input),
  };
}

const native = (d: Decision): NativeReply => ('text' in d ? { text: d.text } : { calls: [d.call] });
const chat = (d: Decision): Reply => ('text' in d ? { text: d.text } : { toolCalls: [d.call] });

async function rebound(env: Record<string, string>): Promise<TestApp> {
  const app = await startApp({ OPENAI_API_KEY: 'sk-upstream', MODEL: 'm', GATEWAY_RETRIES: '1', ...env });
  closers.push(() => app.close());
  return app;
}

describe('Claude Code through the gateway: a Write cut short', () => {
  it('straight to the upstream, the file is written cut short', async () => {
    const upstream = await startScriptedAnthropic((body) => native(claudeModel(seenAnthropic(body))));
    closers.push(() => upstream.close());
    const run = await runClaudeCode(upstream.url, 'Add b and c to consts.ts.');
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(run.cwd, 'consts.ts'), 'utf8')).toBe(CUT);
  }, 180_000);

  for (const mode of ['anthropic', 'chat'] as const) {
    it(`through Rebound (MESSAGES_UPSTREAM=${mode}), the Write is re-asked and the whole file written`, async () => {
      let env: Record<string, string>;
      let asked: () => number;
      if (mode === 'anthropic') {
        const upstream = await startScriptedAnthropic((body) => native(claudeModel(seenAnthropic(body))));
        closers.push(() => upstream.close());
        env = { MESSAGES_UPSTREAM: 'anthropic', ANTHROPIC_BASE_URL: upstream.url, ANTHROPIC_API_KEY: 'sk-ant-server' };
        asked = () => upstream.requests.length;
      } else {
        const upstream = await startScriptedOpenAI((req) => chat(claudeModel(seenChat(req))));
        closers.push(() => upstream.close());
        env = { OPENAI_BASE_URL: upstream.url };
        asked = () => upstream.requests.length;
      }
      const app = await rebound(env);
      const run = await runClaudeCode(app.url, 'Add b and c to consts.ts.');
      expect(run.code, run.stderr).toBe(0);
      expect(readFileSync(join(run.cwd, 'consts.ts'), 'utf8')).toBe(WHOLE);
      // The cut Write, its re-ask, "Done." after the tool ran: at least three model requests.
      expect(asked()).toBeGreaterThanOrEqual(3);
    }, 180_000);
  }
});

describe('Codex through the gateway: exec_command with `command` for `cmd`', () => {
  it('straight to the upstream, Codex answers "missing field `cmd`" and creates nothing', async () => {
    const upstream = await startScriptedResponses((body) => native(codexModel(seenResponses(body))));
    closers.push(() => upstream.close());
    const run = await runCodex(upstream.url, 'Create hello.txt with hello in it.');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(run.cwd, 'hello.txt'))).toBe(false);
    expect(JSON.stringify(upstream.requests[1]!.input)).toContain('missing field `cmd`');
  }, 180_000);

  for (const mode of ['responses', 'chat'] as const) {
    it(`through Rebound (RESPONSES_UPSTREAM=${mode}), the call is repaired to cmd in place: the file is created, no extra model round`, async () => {
      let env: Record<string, string>;
      let asked: () => number;
      if (mode === 'responses') {
        const upstream = await startScriptedResponses((body) => native(codexModel(seenResponses(body))));
        closers.push(() => upstream.close());
        env = { RESPONSES_UPSTREAM: 'responses', OPENAI_BASE_URL: upstream.url };
        asked = () => upstream.requests.length;
      } else {
        const upstream = await startScriptedOpenAI((req) => chat(codexModel(seenChat(req))));
        closers.push(() => upstream.close());
        env = { OPENAI_BASE_URL: upstream.url };
        asked = () => upstream.requests.length;
      }
      const app = await rebound(env);
      const run = await runCodex(`${app.url}/v1`, 'Create hello.txt with hello in it.');
      expect(run.code, run.stderr).toBe(0);
      expect(readFileSync(join(run.cwd, 'hello.txt'), 'utf8')).toBe('hello\n');
      // The call, then "Done." after it ran: two model requests, none spent on the wrong field.
      expect(asked()).toBe(2);
    }, 180_000);
  }
});
