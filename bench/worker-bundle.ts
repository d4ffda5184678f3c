// Worker bundle size and startup: `wrangler deploy --dry-run` builds exactly what would be uploaded
// (scripts/build-worker.ts, run by wrangler as its [build] command: three modules, the MCP client one of
// its own loaded with import()); their raw and gzip size are what Cloudflare's limits count (gzip of the
// modules together, as wrangler's own "Total Upload" figure; one module alone compresses worse). Two figures
// per build: the startup script (the entry and the modules it imports statically: what workerd
// evaluates before the first request) and every module uploaded. Startup is measured three ways:
// evaluating the bundle (what workerd does before the first request, under its startup CPU limit), the
// first request (which builds the app from env), and `wrangler dev` from spawn to the first /health
// answer; and the MCP client's own evaluation, paid by the first turn that connects to a server.
// The bundle is also built without the MCP client (its two SDK entry points aliased to a stub,
// bench/bundle/no-mcp.ts): the difference is what MCP_SERVERS support costs. First, the gate alone as
// the library rebound-gate ships it, and its packed tarball (bench/bundle/gate.ts).
//   npm run bench:bundle            figures, then one JSON line
//   npm run bench:bundle -- --no-dev  skip the wrangler dev measurement
import { spawn } from 'node:child_process';
import type { Metafile } from 'esbuild';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildWorker, startupModules } from '../scripts/build-worker.ts';
import { describeGate, measureGate } from './bundle/gate.ts';
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

/** Bytes in the bundle per npm package (or `src`, `functions` for our own code). */
function byPackage(meta: Metafile): Array<{ name: string; kb: number }> {
  const sizes = new Map<string, number>();
  for (const out of Object.values(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      const name = m ? m[1]! : (input.split('/').find((p) => p !== '..' && p !== '.') ?? input);
      sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...sizes].map(([name, b]) => ({ name, kb: +(b / 1024).toFixed(1) })).sort((a, b) => b.kb - a.kb);
}

interface EvalTimes {
  evalMs: number;
  firstRequestMs: number;
  /** Evaluating every lazily imported module after the first request (the MCP client, the tracing engine, the codecs, …), if any. */
  lazyMs: number | null;
}

/** Bundle evaluation, first request and the lazy modules' evaluation in a fresh Node process each time (median of `n`). */
async function evalTimes(bundle: string, lazy: string[], n: number): Promise<EvalTimes> {
  const script = `
    const t0 = performance.now();
    const mod = await import(${JSON.stringify(pathToFileURL(bundle).href)});
    const t1 = performance.now();
    const ctx = { waitUntil() {}, passThroughOnException() {} };
    const res = await mod.default.fetch(new Request('http://127.0.0.1/health'), {}, ctx);
    await res.text();
    const t2 = performance.now();
    for (const url of ${JSON.stringify(lazy.map((f) => pathToFileURL(f).href))}) await import(url);
    console.log(JSON.stringify({ evalMs: t1 - t0, firstRequestMs: t2 - t1, lazyMs: performance.now() - t2, status: res.status }));`;
  const samples: EvalTimes[] = [];
  for (let i = 0; i < n; i++) {
    const { code, output } = await run(process.execPath, ['--input-type=module', '-e', script]);
    // The app may log after the figures (e.g. the Worker's TURNS warning): take the JSON line.
    const line =
      output
        .trim()
        .split('\n')
        .findLast((l) => l.startsWith('{"evalMs"')) ?? '';
    if (code !== 0 || !line.startsWith('{')) throw new Error(`evaluating the bundle failed:\n${output}`);
    samples.push(JSON.parse(line));
  }
  const median = (xs: number[]) => +xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
  return {
    evalMs: median(samples.map((s) => s.evalMs)),
    firstRequestMs: median(samples.map((s) => s.firstRequestMs)),
    lazyMs: lazy.length ? median(samples.map((s) => s.lazyMs!)) : null,
  };
}

async function wranglerDevReady(): Promise<{ readyMs: number; healthMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    wrangler,
    [
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(await freePort()),
      '--show-interactive-dev-session=false',
      '--log-level',
      'error',
    ],
    {
      cwd: root,
      env: quietEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
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

interface Size {
  raw: number;
  gzip: number;
}

interface Built {
  /** Every module uploaded, the entry first. */
  files: string[];
  bundle: string;
  /** Modules imported only with import(). */
  lazy: string[];
  /** Every module uploaded. */
  total: Size;
  /** The entry and what it imports statically: what workerd evaluates at startup. */
  startup: Size;
  packages: Array<{ name: string; kb: number }>;
}

/**
 * `wrangler deploy --dry-run` of the Worker as wrangler.toml builds it (its [build] command), or of a
 * build with extra module aliases: built by buildWorker into `outdir`, then uploaded (dry) by wrangler
 * from a copy of wrangler.toml whose `main` points there and that has no [build] of its own.
 */
async function build(outdir: string, aliases?: Record<string, string>): Promise<Built> {
  mkdirSync(outdir, { recursive: true });
  const configArgs: string[] = [];
  let meta: Metafile;
  if (aliases) {
    const built = await buildWorker({ outdir: join(outdir, 'build'), aliases });
    meta = built.metafile as Metafile;
    const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8')
      .replace(/^main = "(.+)"$/m, () => `main = ${JSON.stringify(join(outdir, 'build', built.modules[0]!))}`)
      .replace(/^\[build\]\n(?:[^[\n].*\n)*/m, '');
    writeFileSync(join(outdir, 'wrangler.toml'), toml);
    configArgs.push('--config', join(outdir, 'wrangler.toml'));
  }
  const uploaded = await run(wrangler, ['deploy', '--dry-run', ...configArgs, '--outdir', join(outdir, 'dist')]);
  if (uploaded.code !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${uploaded.output}`);
  meta ??= JSON.parse(readFileSync(join(root, 'dist', 'worker', 'meta.json'), 'utf8')) as Metafile;
  const dist = join(outdir, 'dist');
  const files = readdirSync(dist)
    .filter((f) => /\.(m?js|wasm)$/.test(f))
    .sort((a, b) => Number(b === 'worker.js') - Number(a === 'worker.js'));
  const startup = startupModules(meta, files[0]!);
  // Modules compressed together, as wrangler's "Total Upload … gzip" figure (the size Cloudflare's limit applies to).
  const size = (names: string[]): Size => ({
    raw: names.reduce((n, f) => n + statSync(join(dist, f)).size, 0),
    gzip: gzipSync(Buffer.concat(names.map((f) => readFileSync(join(dist, f))))).length,
  });
  return {
    files,
    bundle: join(dist, files[0]!),
    lazy: files.filter((f) => !startup.has(f)).map((f) => join(dist, f)),
    total: size(files),
    startup: size(files.filter((f) => startup.has(f))),
    packages: byPackage(meta),
  };
}

const NO_MCP = join(root, 'bench', 'bundle', 'no-mcp.ts');
const outdir = mkdtempSync(join(tmpdir(), 'rebound-bundle-'));
try {
  const gate = await measureGate();
  console.log(describeGate(gate));
  const withMcp = await build(join(outdir, 'with-mcp'));
  const noMcp = await build(join(outdir, 'without-mcp'), {
    '@modelcontextprotocol/client': NO_MCP,
  });
  const times = await evalTimes(withMcp.bundle, withMcp.lazy, 5);
  const noMcpTimes = await evalTimes(noMcp.bundle, [], 5);
  const dev = skipDev ? null : await wranglerDevReady();

  const kb = (b: number) => +(b / 1024).toFixed(1);
  const verdict = (b: number) => (kb(b) <= TARGET_GZIP_KB ? 'met' : 'MISSED');
  const describe = (s: Size) => `${kb(s.raw)} KB raw, ${kb(s.gzip)} KB gzip (target ≤ ${TARGET_GZIP_KB} KB gzip: ${verdict(s.gzip)})`;
  const { files, startup, total, packages } = withMcp;
  // The tracing engine (src/telemetry/engine.ts: the OpenTelemetry SDK and OTLP encoders), imported on the first traced turn only.
  const tracingFiles = files.filter((f) => /^engine-/.test(f));
  const tracing = {
    raw: tracingFiles.reduce((n, f) => n + statSync(join(outdir, 'with-mcp', 'dist', f)).size, 0),
    gzip: gzipSync(Buffer.concat(tracingFiles.map((f) => readFileSync(join(outdir, 'with-mcp', 'dist', f))))).length,
  };
  console.log(`Worker startup script (${files.filter((f) => !withMcp.lazy.includes(join(outdir, 'with-mcp', 'dist', f))).join(' + ')}): ${describe(startup)}`);
  console.log(`  every module uploaded (${files.join(', ')}): ${describe(total)}`);
  console.log(
    `Without the MCP client: startup ${kb(noMcp.startup.raw)} KB raw, ${kb(noMcp.startup.gzip)} KB gzip; every module ${kb(noMcp.total.raw)} KB raw, ${kb(noMcp.total.gzip)} KB gzip`,
  );
  console.log(
    `  MCP adds ${kb(startup.gzip - noMcp.startup.gzip)} KB gzip to the startup script and ${kb(total.gzip - noMcp.total.gzip)} KB gzip (${kb(total.raw - noMcp.total.raw)} KB raw) in all`,
  );
  console.log(
    `Tracing (${tracingFiles.join(', ') || 'no engine module'}, loaded with import() on the first traced turn, never with tracing off): ${kb(tracing.raw)} KB raw, ${kb(tracing.gzip)} KB gzip; the startup script stays ${kb(startup.gzip)} KB gzip`,
  );
  console.log('Largest contributors (KB in the bundle, before gzip):');
  for (const p of packages.slice(0, 10)) console.log(`  ${p.name.padEnd(32)} ${String(p.kb).padStart(7)}`);
  console.log(`Startup: bundle evaluation ${times.evalMs} ms, first request (builds the app) ${times.firstRequestMs} ms — median of 5 fresh Node processes`);
  console.log(`  without the MCP client: bundle evaluation ${noMcpTimes.evalMs} ms, first request ${noMcpTimes.firstRequestMs} ms`);
  if (times.lazyMs !== null)
    console.log(
      `  every module loaded on first use (${withMcp.lazy.length}: the MCP client, the tracing engine, the codecs, JWT verification, …), evaluated one after the other: ${times.lazyMs} ms`,
    );
  if (dev) console.log(`wrangler dev: ${dev.readyMs} ms from spawn to the first /health 200 (the build + workerd start), that request ${dev.healthMs} ms`);
  console.log(
    JSON.stringify({
      startupRawKB: kb(startup.raw),
      startupGzipKB: kb(startup.gzip),
      rawKB: kb(total.raw),
      gzipKB: kb(total.gzip),
      targetGzipKB: TARGET_GZIP_KB,
      withinTarget: kb(startup.gzip) <= TARGET_GZIP_KB,
      totalWithinTarget: kb(total.gzip) <= TARGET_GZIP_KB,
      noMcpStartupGzipKB: kb(noMcp.startup.gzip),
      noMcpRawKB: kb(noMcp.total.raw),
      noMcpGzipKB: kb(noMcp.total.gzip),
      mcpGzipKB: kb(total.gzip - noMcp.total.gzip),
      tracingRawKB: kb(tracing.raw),
      tracingGzipKB: kb(tracing.gzip),
      evalMs: times.evalMs,
      noMcpEvalMs: noMcpTimes.evalMs,
      lazyModulesEvalMs: times.lazyMs,
      firstRequestMs: times.firstRequestMs,
      wranglerDevReadyMs: dev?.readyMs ?? null,
      topPackages: packages.slice(0, 6),
      gate,
    }),
  );
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
