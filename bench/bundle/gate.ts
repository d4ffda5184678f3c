// The gate alone, as a library user ships it (issue 22): the package built as `npm pack` builds it
// (packages/gate/build.ts, into packages/gate/dist), then its root export's built ESM bundled by esbuild
// (minified, fastest-levenshtein included, for browsers), raw and gzip, against the 30 KB gzip goal;
// and the tarball `npm pack -w packages/gate` makes (what the registry would hold).
// Run by bench:bundle; alone: npx tsx bench/bundle/gate.ts
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildPackage } from '../../packages/gate/build.ts';

const root = join(import.meta.dirname, '..', '..');
export const GATE_TARGET_GZIP_KB = 30;

export interface GateSize {
  rawKB: number;
  gzipKB: number;
  withinTarget: boolean;
  /** rebound-gate/host (the adapter kit) bundled alone the same way: what an adapter of one's own adds. */
  host: { rawKB: number; gzipKB: number };
  tarballKB: number;
  tarballFiles: number;
}

const kb = (b: number) => +(b / 1024).toFixed(1);

/** One built entry point bundled by esbuild (minified, ESM, fastest-levenshtein included): its bytes. */
async function bundled(file: string): Promise<Uint8Array> {
  const out = await build({
    entryPoints: [join(root, 'packages', 'gate', file)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser', // runs anywhere; 'browser' also reads fastest-levenshtein's main field
    write: false,
    logLevel: 'error',
  });
  return out.outputFiles[0]!.contents;
}

export async function measureGate(): Promise<GateSize> {
  const entries = buildPackage();
  const code = await bundled(entries.find((e) => e.subpath === '.')!.import);
  const gzip = gzipSync(code).length;
  const hostCode = await bundled(entries.find((e) => e.subpath === './host')!.import);
  // Built above: the dry run need not run prepack again.
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '-w', 'packages/gate', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as Array<{ size: number; entryCount: number }>;
  return {
    rawKB: kb(code.length),
    gzipKB: kb(gzip),
    withinTarget: kb(gzip) <= GATE_TARGET_GZIP_KB,
    host: { rawKB: kb(hostCode.length), gzipKB: kb(gzipSync(hostCode).length) },
    tarballKB: kb(packed[0]!.size),
    tarballFiles: packed[0]!.entryCount,
  };
}

export function describeGate(s: GateSize): string {
  return (
    `The gate alone (rebound-gate's built root export, dist/index.js; esbuild, minified, ESM): ${s.rawKB} KB raw, ${s.gzipKB} KB gzip ` +
    `(goal ≤ ${GATE_TARGET_GZIP_KB} KB gzip: ${s.withinTarget ? 'met' : 'MISSED'}); rebound-gate/host alone: ${s.host.rawKB} KB raw, ${s.host.gzipKB} KB gzip; ` +
    `npm pack -w packages/gate: ${s.tarballKB} KB, ${s.tarballFiles} files`
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await measureGate();
  console.log(describeGate(s));
  console.log(JSON.stringify(s));
}
