// rebound-gate as the registry would hold it (issue 22): `npm pack -w packages/gate` (its prepack builds
// dist/), then the tarball installed with npm into a fresh project beside `ai`, `@ai-sdk/openai-compatible`,
// `@openai/agents`, `openai` and `zod` (the versions this repository pins; npm's cache first, the registry
// otherwise), as a new user would; `langchain`, `@langchain/core` and `@langchain/openai` join it only once
// every subpath has been loaded without them (an optional peer is optional). In that project: the package
// README's AI SDK, LangChain and OpenAI Agents examples, each cut from the README itself, type-checked
// with tsc against the installed types and run with Node against the scripted upstream, printing the
// line the README says; the built files loaded in
// headless Chromium (an import map for fastest-levenshtein, as a page without a bundler would), in Deno
// (the project's node_modules) and in workerd (a Worker bundled by `wrangler deploy --dry-run`), gating a
// repaired and a blocked call. A file missing from the tarball, a README example that does not run, or
// built code that needs Node fails here.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { listen } from '../support/browser-server.ts';
import { type Script, startScriptedOpenAI } from '../support/scripted-openai.ts';
import { baseEnv } from '../runtimes/servers.ts';
import { freePort } from '../support/ports.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const version = (name: string) => pinned.dependencies[name] ?? pinned.devDependencies[name]!;

/** The user's shell: no setting of this repository's (its --conditions=rebound-source would pick sources the tarball does not hold). */
const userEnv = (): NodeJS.ProcessEnv => {
  const env = baseEnv();
  delete env.NODE_OPTIONS;
  return env;
};

/** The first ```ts block after the heading that starts with `heading`. */
function readmeExample(readme: string, heading: string): string {
  const at = readme.indexOf(`\n${heading}`);
  if (at < 0) throw new Error(`no heading "${heading}" in the README`);
  const m = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!m) throw new Error(`no ts example after "${heading}"`);
  return m[1]!;
}

let langChain: Promise<unknown> | undefined;
/** LangChain's packages in the project, installed once, after the test that loads every subpath without them. */
function withLangChain(): Promise<unknown> {
  langChain ??= run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', ...['langchain', '@langchain/core', '@langchain/openai'].map((n) => `${n}@${version(n)}`)],
    {
      cwd: project,
      env: userEnv(),
      encoding: 'utf8',
    },
  );
  return langChain;
}

/** The package README's runnable examples: the heading each follows, and the file it is cut into in the project. */
const EXAMPLES = [
  { heading: '### AI SDK', file: 'weather.ts' },
  { heading: '### LangChain', file: 'chain.ts' },
  { heading: '### OpenAI Agents', file: 'agent.ts' },
];

/** The README's example under `heading`, cut from the README into `file` of the project. */
function cutExample(o: { heading: string; file: string }): string {
  const example = readmeExample(readFileSync(join(root, 'packages', 'gate', 'README.md'), 'utf8'), o.heading);
  writeFileSync(join(project, o.file), example);
  return example;
}

/**
 * The README's example under `heading` run with Node against `upstream`, as it stands: it must print
 * exactly the line the README documents (the example's last comment line), one JSON line, returned parsed.
 */
async function readmeExampleRuns(o: { heading: string; file: string; upstream: string }): Promise<unknown> {
  const example = cutExample(o);
  const out = await run(process.execPath, [o.file], {
    cwd: project,
    env: { ...userEnv(), OPENAI_BASE_URL: o.upstream, OPENAI_API_KEY: 'sk-test', MODEL: 'scripted-model' },
    encoding: 'utf8',
  });
  const documented = example
    .trimEnd()
    .split('\n')
    .at(-1)!
    .replace(/^\/\/ /, '');
  expect(out.stdout.trim(), `${o.heading}: what it prints`).toBe(documented);
  return JSON.parse(out.stdout);
}

/** A call the gate repairs (a misspelt name, "3" for an integer) and one it blocks (a required argument missing). */
const CHECKS = `
const tools = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city', 'days'] } }];
const repaired = gate({ id: 'call_1', name: 'get_wether', arguments: '{"city":"Paris","days":"3"}' }, tools);
const blocked = compileTools(tools).check({ id: 'call_2', name: 'get_weather', arguments: '{"city":"Paris"}' });
const result = { repaired: { verdict: repaired.verdict, call: repaired.call }, blocked: { verdict: blocked.verdict, category: blocked.category, message: blocked.message } };`;
const expectChecks = (r: unknown) =>
  expect(r).toEqual({
    repaired: { verdict: 'repaired', call: { id: 'call_1', name: 'get_weather', args: { city: 'Paris', days: 3 } } },
    blocked: { verdict: 'blocked', category: 'missing_required', message: expect.stringContaining('days') },
  });

let dir: string;
let project: string;
/** The file name `npm pack` gave the tarball (rebound-gate-<version>.tgz). */
let tarball: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rebound-gate-packed-'));
  const packed = await run('npm', ['pack', '-w', 'packages/gate', '--pack-destination', dir, '--json'], { cwd: root, encoding: 'utf8' });
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  tarball = filename;
  project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'a-new-user', private: true, type: 'module' }));
  const deps = ['ai', '@ai-sdk/openai-compatible', '@openai/agents', 'openai', 'zod', '@types/node'].map((n) => `${n}@${version(n)}`);
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, filename), ...deps], {
    cwd: project,
    env: userEnv(),
    encoding: 'utf8',
  });
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('rebound-gate from its npm pack tarball', () => {
  it('installs as the built package: every subpath with its types and code, no sources, no eval, fastest-levenshtein its only dependency', () => {
    const installed = join(project, 'node_modules', 'rebound-gate');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      exports: Record<string, string | { types: string; import: string }>;
    };
    expect(Object.keys(pkg.dependencies)).toEqual(['fastest-levenshtein']);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    // The repository-only entry ("./internal": its source under "rebound-source" alone) names no file of the tarball.
    const subpaths = Object.entries(pkg.exports).filter(([subpath]) => subpath !== './package.json' && subpath !== './internal');
    expect(subpaths.map(([subpath]) => subpath)).toEqual(expect.arrayContaining(['.', './ai-sdk', './langchain', './openai-agents', './host']));
    for (const [subpath, target] of subpaths) {
      if (typeof target === 'string') throw new Error(`exports["${subpath}"] is one path, not types + import`);
      for (const file of [target.types, target.import]) expect(existsSync(join(installed, file)), `${subpath}: ${file}`).toBe(true);
    }
    expect(existsSync(join(installed, 'README.md'))).toBe(true);
    expect(existsSync(join(installed, 'CHANGELOG.md'))).toBe(true);
    // Workers (and strict CSPs in browsers) refuse code generation from strings.
    const code = readdirSync(join(installed, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    expect(code.length).toBeGreaterThan(10);
    expect(code.filter((f) => /\beval\(|\bnew Function\(/.test(readFileSync(join(installed, 'dist', f), 'utf8')))).toEqual([]);
  });

  it('every subpath loads in Node from the tarball; the only thing one may miss is an optional peer dependency not installed', async () => {
    const installed = join(project, 'node_modules', 'rebound-gate');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    const specifiers = Object.keys(pkg.exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => `rebound-gate${subpath.slice(1)}`);
    const script = `const out = {};
for (const s of ${JSON.stringify(specifiers)}) {
  try { out[s] = Object.keys(await import(s)).length; } catch (e) { out[s] = e.code + ' ' + e.message.split('\\n')[0]; }
}
console.log(JSON.stringify(out));`;
    const out = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env: userEnv(), encoding: 'utf8' });
    const loaded = JSON.parse(out.stdout) as Record<string, number | string>;
    const optionalPeers = Object.entries(pkg.peerDependenciesMeta)
      .filter(([, meta]) => meta.optional)
      .map(([name]) => name);
    for (const [specifier, result] of Object.entries(loaded)) {
      if (specifier === 'rebound-gate/internal') continue; // below
      if (typeof result === 'number') {
        expect(result, `${specifier} exports something`).toBeGreaterThan(0);
        continue;
      }
      // Not installed in this project (LangChain's packages join it later): the message names the peer it needs.
      expect(result, specifier).toMatch(/^ERR_MODULE_NOT_FOUND Cannot find package '([^']+)'/);
      const missing = /Cannot find package '([^']+)'/.exec(result)![1]!;
      expect(
        optionalPeers.some((peer) => missing === peer || missing.startsWith(`${peer}/`)),
        `${specifier} needs ${missing}`,
      ).toBe(true);
    }
    expect(loaded['rebound-gate']).toBeGreaterThan(10);
    expect(typeof loaded['rebound-gate/ai-sdk']).toBe('number');
    expect(typeof loaded['rebound-gate/host']).toBe('number');
    expect(typeof loaded['rebound-gate/openai-agents']).toBe('number');
    expect(loaded['rebound-gate/langchain']).toMatch(/Cannot find package '@langchain\/core'|Cannot find package 'langchain'/);
    // Rebound's server-only helpers are not the package's: an installed rebound-gate has no ./internal.
    expect(loaded['rebound-gate/internal']).toMatch(/^ERR_PACKAGE_PATH_NOT_EXPORTED /);
  });

  it("is what the README's install lines make: `npm pack -w packages/gate`, then `npm install` of the tarball it names", () => {
    const readme = readFileSync(join(root, 'packages', 'gate', 'README.md'), 'utf8');
    const install = /\n## Install\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = install
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter(Boolean);
    expect(commands).toContain('npm pack -w packages/gate');
    const installs = commands.filter((c) => c.startsWith('npm install '));
    expect(
      installs.some((c) => c.endsWith(`/${tarball}`)),
      `an npm install of ${tarball} among ${JSON.stringify(installs)}`,
    ).toBe(true);
    // No command block installs the name from the registry, where it does not resolve.
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.filter((b) => /npm install rebound-gate\b/.test(b))).toEqual([]);
  });

  it("the README's AI SDK, LangChain and OpenAI Agents examples type-check against the installed types", async () => {
    await withLangChain();
    for (const example of EXAMPLES) cutExample(example);
    // tsc as a TypeScript user would set it up for Node: the package's `types`, strict. Declaration files
    // are checked too (an import our .d.ts cannot resolve is an error there, not a silent any); errors
    // in other packages' own .d.ts (ai's needs @types/json-schema) are theirs and left out. One program
    // for the three examples: checking the installed .d.ts (openai's are large) is most of tsc's time.
    const tsconfig = {
      compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: ['node'], skipLibCheck: false },
      files: EXAMPLES.map((e) => e.file),
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
    const checked = await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], {
      cwd: project,
      env: userEnv(),
      encoding: 'utf8',
    }).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
    const errors = checked.stdout.split('\n').filter((line) => /error TS/.test(line) && !/^node_modules\/(?!rebound-gate\/)/.test(line));
    expect(errors).toEqual([]);
  }, 120_000);

  it('the README\'s AI SDK example runs: a misspelt name and "3" reach execute repaired', async () => {
    const upstream = await startScriptedOpenAI(() => ({ toolCalls: [{ id: 'call_1', name: 'get_wether', arguments: '{"city":"Paris","days":"3"}' }] }));
    const printed = await readmeExampleRuns({ heading: '### AI SDK', file: 'weather.ts', upstream: upstream.url }).finally(() => upstream.close());
    expect(printed).toEqual({ id: 'call_1', tool: 'get_weather', input: { city: 'Paris', days: 3 }, output: { forecast: 'sunny in Paris for 3 days' } });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.tools?.map((t) => t.function.name)).toEqual(['get_weather']);
  });

  it('the README\'s LangChain example runs: a misspelt name and "3" reach the tool repaired, then the agent answers', async () => {
    const script: Script = (req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: 'Sunny in Paris for 3 days.' }
        : { toolCalls: [{ id: 'call_1', name: 'get_wether', arguments: '{"city":"Paris","days":"3"}' }] };
    await withLangChain();
    const upstream = await startScriptedOpenAI(script);
    const printed = await readmeExampleRuns({ heading: '### LangChain', file: 'chain.ts', upstream: upstream.url }).finally(() => upstream.close());
    expect(printed).toEqual({ id: 'call_1', tool: 'get_weather', args: { city: 'Paris', days: 3 } });
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[1]!.messages.find((m) => m.role === 'tool')?.content).toBe('sunny in Paris for 3 days');
  });

  it('the README\'s OpenAI Agents example runs: a misspelt name and "3" reach the tool repaired, then the agent answers', async () => {
    const script: Script = (req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: 'Sunny in Paris for 3 days.' }
        : { toolCalls: [{ id: 'call_1', name: 'get_wether', arguments: '{"city":"Paris","days":"3"}' }] };
    const upstream = await startScriptedOpenAI(script);
    const printed = await readmeExampleRuns({ heading: '### OpenAI Agents', file: 'agent.ts', upstream: upstream.url }).finally(() => upstream.close());
    expect(printed).toEqual({ id: 'call_1', tool: 'get_weather', arguments: '{"city":"Paris","days":3}' });
    // The tool ran: its output is the tool message of the second request.
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[1]!.messages.find((m) => m.role === 'tool')?.content).toBe('sunny in Paris for 3 days');
  });

  it('runs unchanged in Chromium: the built ESM, fastest-levenshtein through an import map', async () => {
    const modules = join(project, 'node_modules');
    const site = new Hono();
    const page = `<!doctype html><meta charset="utf-8"><title>rebound-gate</title>
<script type="importmap">{"imports": {"rebound-gate": "/m/rebound-gate/dist/index.js", "fastest-levenshtein": "/m/fastest-levenshtein/esm/mod.js"}}</script>
<script type="module">
import { compileTools, gate } from 'rebound-gate';
${CHECKS}
window.result = result;
</script>`;
    site.get('/', (c) => c.html(page));
    site.get('/favicon.ico', (c) => c.body(null, 204));
    site.get('/m/*', (c) => {
      const path = join(modules, c.req.path.slice('/m/'.length));
      if (!path.startsWith(modules) || !path.endsWith('.js') || !existsSync(path)) return c.notFound();
      return c.body(readFileSync(path, 'utf8'), 200, { 'content-type': 'text/javascript; charset=utf-8' });
    });
    const server = await listen(site.fetch);
    const browser = await launchBrowser();
    try {
      const tab = await browser.context.newPage();
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(e.message));
      tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await tab.goto(server.url);
      // A module that failed to load sets no result: the errors say why.
      await tab.waitForFunction(() => 'result' in window, undefined, { timeout: 20_000 }).catch(() => undefined);
      expect(errors).toEqual([]);
      expectChecks(await tab.evaluate(() => (window as unknown as { result: unknown }).result));
    } finally {
      await browser.close();
      await server.close();
    }
  });

  it('runs unchanged in Deno: `import "rebound-gate"` from the project, its node_modules as npm installed it', async () => {
    writeFileSync(join(project, 'deno-check.ts'), `import { compileTools, gate } from 'rebound-gate';\n${CHECKS}\nconsole.log(JSON.stringify(result));\n`);
    const denoDir = join(root, 'node_modules', '.cache', 'deno');
    const out = await run(bin('deno'), ['run', '--no-prompt', '--allow-read', '--allow-env', 'deno-check.ts'], {
      cwd: project,
      env: { ...userEnv(), DENO_DIR: denoDir, NO_COLOR: '1' },
      encoding: 'utf8',
    });
    expectChecks(JSON.parse(out.stdout));
  });

  it('runs unchanged in workerd: a Worker importing it, bundled by `wrangler deploy --dry-run` as a deploy would upload it', async () => {
    writeFileSync(
      join(project, 'worker.js'),
      `import { compileTools, gate } from 'rebound-gate';\nexport default { fetch() {${CHECKS}\nreturn Response.json(result); } };\n`,
    );
    writeFileSync(join(project, 'wrangler.toml'), 'name = "gate-check"\nmain = "worker.js"\ncompatibility_date = "2026-04-01"\n');
    await run(bin('wrangler'), ['deploy', '--dry-run', '--outdir', 'out'], {
      cwd: project,
      env: { ...userEnv(), WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: '1' },
      encoding: 'utf8',
    });
    const modules = ['(name = "worker.js", esModule = embed "out/worker.js")'];
    const port = await freePort();
    writeFileSync(
      join(project, 'workerd.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = (modules = [${modules.join(', ')}], compatibilityDate = "2026-04-01"))],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
`,
    );
    const child = spawn(join(root, 'node_modules', 'workerd', 'bin', 'workerd'), ['serve', 'workerd.capnp'], {
      cwd: project,
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    try {
      let res: Response | null = null;
      for (let i = 0; i < 150 && !res && child.exitCode === null; i++) {
        res = await fetch(`http://127.0.0.1:${port}/`).catch(() => null);
        if (!res) await new Promise((r) => setTimeout(r, 100));
      }
      expect(res, `workerd did not answer:\n${log}`).not.toBeNull();
      expect(res!.status, log).toBe(200);
      expectChecks(await res!.json());
    } finally {
      child.kill();
    }
  });
});
