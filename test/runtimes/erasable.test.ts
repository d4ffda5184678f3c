// `npm start` runs the Node server under Node's own type stripping (package.json, docs/deploy.md), which
// only erases types: a parameter property, an enum or a namespace with values in any module the server
// loads, at start or on first use, fails there with ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX. tsconfig's
// erasableSyntaxOnly says so to the typecheck; this says it in the suite, with Node's own stripper over
// every source the server may load (src, functions, the gate's package), tests aside.
import { readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, sources } from './source-scan.ts';

const scanned = ['src', 'functions', 'packages/gate/src'];

/** Node's stripper on a module's text: its error's code and message, or null when it strips. */
function unsupported(code: string): string | null {
  try {
    stripTypeScriptTypes(code, { mode: 'strip' });
    return null;
  } catch (err) {
    return `${(err as { code?: string }).code}: ${(err as Error).message.split('\n')[0]}`;
  }
}

describe('what npm start loads is erasable TypeScript', () => {
  const files = scanned.flatMap((d) => [...sources(d)]).filter((p) => p.endsWith('.ts') && !p.endsWith('.test.ts'));

  it('finds the sources, and tells what Node cannot strip', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(unsupported('class A { constructor(private readonly x: number) {} }')).toMatch(/^ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX/);
    expect(unsupported('enum E { A }')).toMatch(/^ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX/);
    expect(unsupported('const a: number = 1; export type B = { a: typeof a };')).toBeNull();
  });

  it('every module strips', () => {
    const failing = files.map((p) => [p, unsupported(readFileSync(join(root, p), 'utf8'))] as const).filter(([, e]) => e !== null);
    expect(failing).toEqual([]);
  });
});
