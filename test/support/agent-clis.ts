// The coding agents' own CLIs, unmodified, for the suites that run them through the gateway: Claude Code
// (@anthropic-ai/claude-code) and Codex (@openai/codex), pinned, installed from the registry on first use
// into node_modules/.cache/rebound-agent-clis (not the project's dependencies: each is a native binary of
// a few hundred MB), then run as their users run them, offline against a loopback base URL:
//   claude -p "…" --permission-mode acceptEdits --output-format json   (ANTHROPIC_BASE_URL, any key)
//   codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "…"
//     (CODEX_HOME/config.toml: a provider whose base_url is the given /v1, wire_api = "responses")
// Each run gets its own HOME / CODEX_HOME and working folder. Spawned, never spawnSync: the scripted
// upstream answering them runs in the test's own event loop.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CLAUDE_CODE_VERSION = '2.1.332';
export const CODEX_VERSION = '0.171.0';

const CACHE = join(import.meta.dirname, '../../node_modules/.cache/rebound-agent-clis');
// The native binary of this platform (the package's postinstall, which npm does not run unasked, would copy it to bin/claude.exe).
const CLAUDE = join(CACHE, `node_modules/@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`);
const CODEX = join(CACHE, 'node_modules/@openai/codex/bin/codex.js');

/** Installs both CLIs into the cache folder unless they are there (npm from the registry, a minute or so the first time). */
export function installAgentClis(): void {
  if (existsSync(CLAUDE) && existsSync(CODEX)) return;
  mkdirSync(CACHE, { recursive: true });
  if (!existsSync(join(CACHE, 'package.json'))) writeFileSync(join(CACHE, 'package.json'), '{"private": true}\n');
  const npm = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-save', `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`, `@openai/codex@${CODEX_VERSION}`],
    { cwd: CACHE, encoding: 'utf8', timeout: 600_000 },
  );
  if (npm.status !== 0 || !existsSync(CLAUDE) || !existsSync(CODEX)) throw new Error(`installing the agent CLIs failed: ${npm.stderr || npm.error}`);
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The folder the agent worked in. */
  cwd: string;
}

function run(command: string, args: string[], env: Record<string, string>, cwd: string, timeoutMs: number): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, cwd });
    });
  });
}

const fresh = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** `claude -p prompt` against `baseURL` (the API's root: the agent appends /v1/messages), in a fresh folder. */
export function runClaudeCode(baseURL: string, prompt: string, timeoutMs = 120_000): Promise<CliRun> {
  const env = {
    HOME: fresh('rebound-claude-home-'),
    ANTHROPIC_BASE_URL: baseURL,
    ANTHROPIC_API_KEY: 'sk-ant-any-key',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  return run(CLAUDE, ['-p', prompt, '--permission-mode', 'acceptEdits', '--output-format', 'json'], env, fresh('rebound-claude-work-'), timeoutMs);
}

/** `codex exec prompt` with a provider at `baseURL` (…/v1, wire_api "responses"), in a fresh folder. */
export function runCodex(baseURL: string, prompt: string, timeoutMs = 120_000): Promise<CliRun> {
  const home = fresh('rebound-codex-home-');
  writeFileSync(
    join(home, 'config.toml'),
    [
      'model = "scripted-model"',
      'model_provider = "rebound"',
      '',
      '[model_providers.rebound]',
      'name = "Rebound"',
      `base_url = "${baseURL}"`,
      'env_key = "REBOUND_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
  const env = { HOME: home, CODEX_HOME: home, REBOUND_KEY: 'sk-any-key', RUST_LOG: 'error' };
  return run(
    process.execPath,
    [CODEX, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', prompt],
    env,
    fresh('rebound-codex-work-'),
    timeoutMs,
  );
}
