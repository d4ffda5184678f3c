// The edge entries bundle src/ and functions/ for workerd and Deno, so nothing in them may reach for a
// Node builtin: only the Node entry (src/entries/ minus the edge entries) and tests may. A `node:`
// import type-checks fine and only fails at deploy time, hence this check.
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, sources, specifiers } from './source-scan.ts';

const scanned = ['src', 'functions', 'supabase/functions'];
// Edge entries are checked like everything else; other files in src/entries/ belong to the Node
// entry (node.ts and its helpers, e.g. reading migrations from disk). The reachability test below
// makes sure no edge entry pulls one of them in.
const edgeEntries = ['src/entries/worker.ts', 'src/entries/deno.ts', 'supabase/functions/rebound/index.ts'];
const allowed = (path: string) => (/^src\/entries\/[^/]+\.ts$/.test(path) && !edgeEntries.includes(path)) || /\.test\.ts$/.test(path);

const builtins = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0]!]));
const isNodeBuiltin = (spec: string) => spec.startsWith('node:') || builtins.has(spec) || builtins.has(spec.split('/')[0]!);

/** Node-only globals that would throw a ReferenceError on workerd (without nodejs_compat) or behave differently on Deno. */
const nodeGlobals = /(?<![.\w$])(process\.(?:env|argv|exit|cwd|on|stdout|stderr|nextTick|hrtime|memoryUsage)|Buffer\.|__dirname|__filename|require\.resolve)\b/;

describe('edge-safe sources', () => {
  const files = scanned.flatMap((d) => [...sources(d)]).filter((p) => !allowed(p));

  it('finds the sources to check', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it('the specifier scanner sees every import form', () => {
    const code = `import a from 'node:fs';\nimport type { B } from "path";\nexport * from 'os';\nimport 'crypto';\nconst c = await import('node:child_process');\nconst d = require("events");\n// import x from 'node:net'\n/* import y from 'tls' */`;
    expect(specifiers(code)).toEqual(expect.arrayContaining(['node:fs', 'path', 'os', 'crypto', 'node:child_process', 'events']));
    expect(specifiers(code)).not.toContain('node:net');
    expect(specifiers(code)).not.toContain('tls');
    expect(specifiers(code).filter(isNodeBuiltin).length).toBe(6);
  });

  it('no Node builtin imports outside src/entries/node*.ts and tests', () => {
    const offenders = files.flatMap((path) =>
      specifiers(readFileSync(join(root, path), 'utf8'))
        .filter(isNodeBuiltin)
        .map((spec) => `${relative(root, join(root, path))}: imports "${spec}"`),
    );
    expect(offenders, `Node builtins break the Worker and Deno entries; use web APIs or move the code to src/entries/node*.ts`).toEqual([]);
  });

  it('no edge entry reaches a file that imports a Node builtin', () => {
    const seen = new Set<string>();
    const offenders: string[] = [];
    const visit = (path: string, via: string[]) => {
      if (seen.has(path)) return;
      seen.add(path);
      const code = readFileSync(join(root, path), 'utf8');
      for (const spec of specifiers(code)) {
        if (isNodeBuiltin(spec)) offenders.push(`${[...via, path].join(' -> ')}: imports "${spec}"`);
        if (spec.startsWith('.')) {
          const target = normalize(join(dirname(path), spec));
          if (existsSync(join(root, target))) visit(target, [...via, path]);
        }
      }
    };
    const present = edgeEntries.filter((p) => existsSync(join(root, p)));
    for (const entry of present) visit(entry, []);
    expect(offenders).toEqual([]);
  });

  it('no Node-only globals (process.env, Buffer, __dirname) outside src/entries/node*.ts and tests', () => {
    const offenders = files.flatMap((path) => {
      const code = readFileSync(join(root, path), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
      return code
        .split('\n')
        .map((line, i) => [line, i + 1] as const)
        .filter(([line]) => nodeGlobals.test(line))
        .map(([line, n]) => `${path}:${n}: ${line.trim()}`);
    });
    expect(offenders, 'pass env through loadConfig(env) and use Uint8Array/TextEncoder instead').toEqual([]);
  });
});
