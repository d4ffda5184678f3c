// The Worker as wrangler uploads it (scripts/build-worker.ts, wrangler.toml's [build] command): its
// startup script, the entry and what it imports statically, is what workerd evaluates before the first
// request, and must stay within 150 KB gzip (the modules compressed together, as wrangler's "Total
// Upload" figure). The pieces no first request of a typical route needs load on first use with
// import(); each is checked to be out of the startup script and in a module of its own, so a static
// import that pulls one back in fails here with its name. No module may evaluate strings as code:
// workerd forbids eval and new Function. Sizes only; the timings are bench:bundle's (docs/benchmarks.md).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker, startupModules, type WorkerBuild } from '../../scripts/build-worker.ts';

const STARTUP_GZIP_KB = 150;

/** Loaded on first use (the module that imports each says when): never in the startup script. */
const LAZY_INPUTS = [
  'src/gateway/codecs/messages-in.ts',
  'src/gateway/codecs/responses-in.ts',
  'src/gateway/codecs/anthropic-upstream.ts',
  'src/http/auth/jwt-verify.ts',
  'node_modules/jose/dist/webapi/jwt/verify.js',
  'src/model/demo.ts',
  'src/tools/mcp/source.ts',
  'src/tools/mcp/sdk.ts',
  'src/web/dashboard-view.ts',
  'src/web/assets.ts',
  'src/telemetry/engine.ts',
  'src/store/memory.ts',
  'src/http/routes/ui-chat-handlers.ts',
];

let outdir: string;
let built: WorkerBuild;
let startup: Set<string>;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'rebound-worker-bundle-'));
  built = await buildWorker({ outdir });
  startup = startupModules(built.metafile);
}, 120_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The output modules (file names) whose inputs include `input` (a path relative to the repository root). */
function modulesHolding(input: string): string[] {
  return Object.entries(built.metafile.outputs)
    .filter(([, out]) => Object.keys(out.inputs).some((i) => i === input || i.endsWith(`/${input}`)))
    .map(([path]) => path.split('/').pop()!);
}

describe('the Worker bundle (scripts/build-worker.ts)', () => {
  it(`keeps the startup script within ${STARTUP_GZIP_KB} KB gzip`, () => {
    expect(startup.has('worker.js')).toBe(true);
    const gzip = gzipSync(Buffer.concat([...startup].map((f) => readFileSync(join(outdir, f))))).length;
    expect(gzip / 1024, `startup script (${[...startup].join(' + ')}): ${(gzip / 1024).toFixed(1)} KB gzip`).toBeLessThanOrEqual(STARTUP_GZIP_KB);
  });

  it.each(LAZY_INPUTS)('loads %s on first use, out of the startup script', (input) => {
    const holders = modulesHolding(input);
    expect(holders, `${input} is in no module: renamed? update LAZY_INPUTS`).not.toEqual([]);
    expect(
      holders.filter((m) => startup.has(m)),
      `${input} is in the startup script: something imports it statically`,
    ).toEqual([]);
  });

  it('has no eval or new Function in any module uploaded', () => {
    const modules = readdirSync(outdir).filter((f) => f.endsWith('.js'));
    expect(modules).toContain('worker.js');
    expect(modules.filter((f) => /\beval\(|\bnew Function\(/.test(readFileSync(join(outdir, f), 'utf8')))).toEqual([]);
  });
});
