// Worker bundle size and startup: `wrangler deploy --dry-run` builds exactly what would be uploaded;
// its raw and gzip size are what Cloudflare's limits count. Startup is measured three ways: evaluating
// the bundle (what workerd does before the first request, under its startup CPU limit), the first
// request (which builds the app from env), and `wrangler dev` from spawn to the first /health answer.
// The bundle is also built without the MCP client (its two SDK entry points aliased to a stub,
// bench/bundle/no-mcp.ts): the difference is what MCP_SERVERS support costs.
//   npm run bench:bundle            figures, then one JSON line
//   npm run bench:bundle -- --no-dev  skip the wrangler dev measurement
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { freePort } from '../test/support/ports.ts';

const root = join(import.meta.dirname, '..');
const wrangler = join(root, 'node_modules', '.bin', 'wrangler');
const TARGET_GZIP_KB = 150;
const skipDev = process.argv.includes('--no-dev');
const quietEnv = { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: '1' };

function run(cmd: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env: quietEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

interface Metafile {
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

/** Bytes in the bundle per npm package (or `src`, `functions` for our own code). */
function byPackage(meta: Metafile): Array<{ name: string; kb: number }> {
  const sizes = new Map<string, number>();
  for (const out of Object.values(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      const name = m ? m[1]! : input.split('/').find((p) => p !== '..' && p !== '.') ?? input;
      sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...sizes].map(([name, b]) => ({ name, kb: +(b / 1024).toFixed(1) })).sort((a, b) => b.kb - a.kb);
}

/** Bundle evaluation and first request in a fresh Node process each time (median of `n`). */
async function evalTimes(bundle: string, n: number): Promise<{ evalMs: number; firstRequestMs: number }> {
  const script = `
    const t0 = performance.now();
    const mod = await import(${JSON.stringify(pathToFileURL(bundle).href)});
    const t1 = performance.now();
    const ctx = { waitUntil() {}, passThroughOnException() {} };
    const res = await mod.default.fetch(new Request('http://127.0.0.1/health'), {}, ctx);
    await res.text();
    console.log(JSON.stringify({ evalMs: t1 - t0, firstRequestMs: performance.now() - t1, status: res.status }));`;
  const samples: Array<{ evalMs: number; firstRequestMs: number }> = [];
  for (let i = 0; i < n; i++) {
    const { code, output } = await run(process.execPath, ['--input-type=module', '-e', script]);
    // The app may log after the figures (e.g. the Worker's TURNS warning): take the JSON line.
    const line = output.trim().split('\n').findLast((l) => l.startsWith('{"evalMs"')) ?? '';
    if (code !== 0 || !line.startsWith('{')) throw new Error(`evaluating the bundle failed:\n${output}`);
    samples.push(JSON.parse(line));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { evalMs: +median(samples.map((s) => s.evalMs)).toFixed(1), firstRequestMs: +median(samples.map((s) => s.firstRequestMs)).toFixed(1) };
}

async function wranglerDevReady(): Promise<{ readyMs: number; healthMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(wrangler, ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(await freePort()), '--show-interactive-dev-session=false', '--log-level', 'error'], {
    cwd: root,
    env: quietEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log}`);
      if (performance.now() - started > 90_000) throw new Error(`wrangler dev not ready after 90 s:\n${log}`);
      const t = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
      if (res?.ok) {
        await res.text();
        return { readyMs: Math.round(performance.now() - started), healthMs: +(performance.now() - t).toFixed(1) };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
}

interface Built {
  files: string[];
  bundle: string;
  raw: number;
  gzip: number;
  packages: Array<{ name: string; kb: number }>;
}

/**
 * `wrangler deploy --dry-run`, with extra module aliases if any. wrangler 4 ignores `--alias` on the
 * command line here, so they go into a copy of wrangler.toml (paths made absolute) under [alias].
 */
async function build(outdir: string, aliases: Record<string, string> = {}): Promise<Built> {
  mkdirSync(outdir, { recursive: true });
  const metafile = join(outdir, 'meta.json');
  const configArgs: string[] = [];
  if (Object.keys(aliases).length > 0) {
    const lines = Object.entries(aliases).map(([from, to]) => `${JSON.stringify(from)} = ${JSON.stringify(to)}`);
    let toml = readFileSync(join(root, 'wrangler.toml'), 'utf8')
      .replace(/^main = "(.+)"$/m, (_, main: string) => `main = ${JSON.stringify(join(root, main))}`)
      .replace(/= "\.\/([^"]+)"/g, (_, rel: string) => `= ${JSON.stringify(join(root, rel))}`);
    toml = /^\[alias\]$/m.test(toml) ? toml.replace(/^\[alias\]$/m, `[alias]\n${lines.join('\n')}`) : `${toml}\n[alias]\n${lines.join('\n')}\n`;
    writeFileSync(join(outdir, 'wrangler.toml'), toml);
    configArgs.push('--config', join(outdir, 'wrangler.toml'));
  }
  const built = await run(wrangler, ['deploy', '--dry-run', ...configArgs, '--outdir', join(outdir, 'dist'), '--metafile', metafile]);
  if (built.code !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${built.output}`);
  const files = readdirSync(join(outdir, 'dist')).filter((f) => /\.(m?js|wasm)$/.test(f));
  return {
    files,
    bundle: join(outdir, 'dist', files.find((f) => /\.m?js$/.test(f))!),
    raw: files.reduce((n, f) => n + statSync(join(outdir, 'dist', f)).size, 0),
    gzip: files.reduce((n, f) => n + gzipSync(readFileSync(join(outdir, 'dist', f))).length, 0),
    packages: byPackage(JSON.parse(readFileSync(metafile, 'utf8')) as Metafile),
  };
}

const NO_MCP = join(root, 'bench', 'bundle', 'no-mcp.ts');
const outdir = mkdtempSync(join(tmpdir(), 'rebound-bundle-'));
try {
  const { files, bundle, raw, gzip, packages } = await build(join(outdir, 'with-mcp'));
  const noMcp = await build(join(outdir, 'without-mcp'), {
    '@modelcontextprotocol/sdk/client/index.js': NO_MCP,
    '@modelcontextprotocol/sdk/client/streamableHttp.js': NO_MCP,
  });
  const times = await evalTimes(bundle, 5);
  const noMcpTimes = await evalTimes(noMcp.bundle, 5);
  const dev = skipDev ? null : await wranglerDevReady();

  const kb = (b: number) => +(b / 1024).toFixed(1);
  const verdict = (b: number) => (kb(b) <= TARGET_GZIP_KB ? 'met' : 'MISSED');
  console.log(`Worker bundle (${files.join(', ')}): ${kb(raw)} KB raw, ${kb(gzip)} KB gzip (target ≤ ${TARGET_GZIP_KB} KB gzip: ${verdict(gzip)})`);
  console.log(`  without the MCP client: ${kb(noMcp.raw)} KB raw, ${kb(noMcp.gzip)} KB gzip (${verdict(noMcp.gzip)}); MCP adds ${kb(raw - noMcp.raw)} KB raw, ${kb(gzip - noMcp.gzip)} KB gzip`);
  console.log('Largest contributors (KB in the bundle, before gzip):');
  for (const p of packages.slice(0, 10)) console.log(`  ${p.name.padEnd(32)} ${String(p.kb).padStart(7)}`);
  console.log(`Startup: bundle evaluation ${times.evalMs} ms, first request (builds the app) ${times.firstRequestMs} ms — median of 5 fresh Node processes`);
  console.log(`  without the MCP client: bundle evaluation ${noMcpTimes.evalMs} ms, first request ${noMcpTimes.firstRequestMs} ms`);
  if (dev) console.log(`wrangler dev: ${dev.readyMs} ms from spawn to the first /health 200 (bundling + workerd start), that request ${dev.healthMs} ms`);
  console.log(
    JSON.stringify({
      rawKB: kb(raw),
      gzipKB: kb(gzip),
      targetGzipKB: TARGET_GZIP_KB,
      withinTarget: kb(gzip) <= TARGET_GZIP_KB,
      noMcpRawKB: kb(noMcp.raw),
      noMcpGzipKB: kb(noMcp.gzip),
      mcpGzipKB: kb(gzip - noMcp.gzip),
      evalMs: times.evalMs,
      noMcpEvalMs: noMcpTimes.evalMs,
      firstRequestMs: times.firstRequestMs,
      wranglerDevReadyMs: dev?.readyMs ?? null,
      topPackages: packages.slice(0, 6),
    }),
  );
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
