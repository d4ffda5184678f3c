// The package's build, run by `npm pack` and `npm publish` (prepack) and `npm run build -w packages/gate`:
// tsc (tsconfig.build.json) writes every module of src/ to dist/ as JavaScript with its .d.ts. The
// subpaths come from one list, package.json's `exports`: each entry names its source under the
// "rebound-source" condition (what this repository resolves: tsconfig's customConditions, vitest,
// esbuild and Node's --conditions) and its built files under "types" and "import" (what everyone else
// resolves). A new subpath is one more `exports` entry; this script fails if an entry's built files
// are not the ones tsc wrote for its source. An entry with the "rebound-source" condition alone
// ("./internal": the helpers Rebound's server shares with the gate) is the repository's only: an
// installed package resolves no condition of it, so the published package does not expose it.
//   node build.ts
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const dir = import.meta.dirname;
export const SOURCE_CONDITION = 'rebound-source';

export interface SubpathEntry {
  subpath: string;
  source: string;
  types: string;
  import: string;
}

/** A subpath this repository resolves and the published package does not: its source alone, no built files. */
const repositoryOnly = (target: unknown) => {
  const keys = Object.keys(target as Record<string, string>);
  return keys.length === 1 && keys[0] === SOURCE_CONDITION;
};

/** The package's repository-only subpaths ("./internal"): exported under the "rebound-source" condition alone. */
export function repositorySubpaths(pkg: { exports: Record<string, unknown> }): string[] {
  return Object.entries(pkg.exports)
    .filter(([subpath, target]) => subpath !== './package.json' && repositoryOnly(target))
    .map(([subpath]) => subpath);
}

/** The package's public subpaths as `exports` lists them (./package.json and the repository-only ones aside), each checked for the three conditions in their order. */
export function subpaths(pkg: { exports: Record<string, unknown> }): SubpathEntry[] {
  return Object.entries(pkg.exports)
    .filter(([subpath, target]) => subpath !== './package.json' && !repositoryOnly(target))
    .map(([subpath, target]) => {
      const t = target as Record<string, string>;
      const keys = Object.keys(t);
      const expected = [SOURCE_CONDITION, 'types', 'import'];
      if (keys.join() !== expected.join()) {
        throw new Error(`exports["${subpath}"] must have exactly ${expected.join(', ')} in that order (has ${keys.join(', ')})`);
      }
      const built = t[SOURCE_CONDITION]!.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '');
      if (t.types !== `${built}.d.ts` || t.import !== `${built}.js`) {
        throw new Error(`exports["${subpath}"]: "types" and "import" must be what tsc writes for ${t[SOURCE_CONDITION]}: ${built}.d.ts and ${built}.js`);
      }
      return { subpath, source: t[SOURCE_CONDITION]!, types: t.types, import: t.import };
    });
}

export function buildPackage(): SubpathEntry[] {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const entries = subpaths(pkg);
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  const tsc = join(createRequire(import.meta.url).resolve('typescript/package.json'), '..', 'bin', 'tsc');
  // Everything it says goes to stderr: `npm pack --json` prints its JSON on stdout after this runs.
  execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2] });
  const missing = entries.flatMap((e) => [e.source, e.types, e.import]).filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0) throw new Error(`exports name files that do not exist after the build: ${missing.join(', ')}`);
  return entries;
}

if (import.meta.main) {
  const entries = buildPackage();
  console.error(`rebound-gate built to dist/: ${entries.map((e) => e.subpath).join(', ')}`);
}
