// The Supabase function resolves bare imports through its deno.json, not node_modules: every package the
// function reaches must be mapped there, to exactly the version package.json pins (jsr: and esm.sh are
// not an option here, and a drifting version would run different code on the edge than in tests). The one
// exception is the repository's own workspace package, rebound-gate: each of its subpaths the function
// imports ("rebound-gate", "rebound-gate/host", "rebound-gate/internal") maps to the source its package.json exports for it under
// the "rebound-source" condition (what this repository resolves everywhere; the registry's users get its
// build), so the edge runs the same source as Node and workerd.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const denoJson = JSON.parse(readFileSync(join(root, 'supabase/functions/rebound/deno.json'), 'utf8')) as { imports: Record<string, string> };
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
/** Workspace packages' specifiers (the name, and the name with each subpath): the source file their `exports` give for it. */
const workspaces = new Map(
  ['packages/gate'].flatMap((dir) => {
    const p = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string; exports: Record<string, Record<string, string> | string> };
    return Object.entries(p.exports).flatMap(([subpath, target]) =>
      typeof target === 'object' && target['rebound-source'] ? [[`${p.name}${subpath.slice(1)}`, normalize(join(dir, target['rebound-source']))] as const] : [],
    );
  }),
);
const fromFunction = (target: string) => normalize(join('supabase/functions/rebound', target));

function bareImports(entry: string): Map<string, string> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const code = readFileSync(join(root, path), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
    for (const m of code.matchAll(/\b(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g)) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('.')) {
        const target = normalize(join(dirname(path), spec));
        if (existsSync(join(root, target))) visit(target);
      } else {
        if (!found.has(spec)) found.set(spec, path);
        const local = workspaces.get(spec);
        if (local) visit(local);
      }
    }
  };
  visit(entry);
  return found;
}

describe('supabase/functions/rebound/deno.json', () => {
  it('pins every mapping to npm: with the exact version from package.json', () => {
    for (const [key, target] of Object.entries(denoJson.imports)) {
      const local = workspaces.get(key);
      if (local) {
        expect(fromFunction(target), `${key} maps to its package's export for it`).toBe(local);
        continue;
      }
      const m = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)(\/?)$/.exec(target);
      expect(m, `${key} -> ${target} is not an exact npm: specifier`).toBeTruthy();
      const [, name, version, slash] = m!;
      expect(key.endsWith('/'), `${key}: prefix keys map to npm:/name@version/`).toBe(slash === '/');
      expect(version, `${name} in deno.json`).toBe(pkg.dependencies[name!]);
    }
  });

  it('maps every bare import reachable from the function', () => {
    const keys = Object.keys(denoJson.imports);
    const found = bareImports('supabase/functions/rebound/index.ts');
    expect([...found.keys()]).toEqual(expect.arrayContaining(['hono', 'zod', 'jose', '@supabase/postgrest-js']));
    const unmapped = [...found].filter(([spec]) => !keys.some((k) => (k.endsWith('/') ? spec.startsWith(k) : spec === k)));
    expect(unmapped.map(([spec, from]) => `${spec} (imported by ${from})`)).toEqual([]);
  });
});
