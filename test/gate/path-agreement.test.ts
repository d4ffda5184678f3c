// The gate and the workspace tools read a path the same way (src/gate/workspace-path.ts): a path the
// gate lets through for read_file is the file read_file opens, and a path read_file can open is one the
// gate lets through. Spellings are generated the ways models write paths: `./`, doubled slashes,
// backslashes, `x/../`, a leading `/`, a trailing slash, spaces around, `..` past the root.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultTools } from '../../functions/index.ts';
import { call, makeContext } from '../../functions/testing.ts';
import { buildPathIndex, gate, type ToolSpec } from 'rebound-gate';

const files: Record<string, string> = {
  'README.md': 'readme',
  'src/index.ts': 'index',
  'src/lib/util.ts': 'util',
  'src/lib/deep/x.ts': 'x',
  'docs/guide.md': 'guide',
};
const tools: ToolSpec[] = defaultTools.map(({ run: _run, ...spec }) => spec);
const paths = buildPathIndex(Object.keys(files));

const twist = fc.constantFrom(
  (p: string) => p,
  (p: string) => `./${p}`,
  (p: string) => `/${p}`,
  (p: string) => p.replaceAll('/', '//'),
  (p: string) => p.replaceAll('/', '\\'),
  (p: string) => p.replaceAll('/', '/./'),
  (p: string) => `src/../${p}`,
  (p: string) => `../${p}`,
  (p: string) => `nope/../${p}`,
  (p: string) => `${p}/`,
  (p: string) => `  ${p}\t`,
  (p: string) => `${p}/..`,
  (p: string) => `C:\\${p}`,
  (p: string) => `~/${p}`,
  (p: string) => p.replace(/[^/]*$/, '.'),
);
const spelling = fc
  .tuple(fc.constantFrom(...Object.keys(files), 'src', 'missing.ts', 'src/lib'), fc.array(twist, { maxLength: 3 }))
  .map(([p, ts]) => ts.reduce((s, t) => t(s), p));

describe('a path reads the same in the gate and in the workspace tools', () => {
  it('read_file opens exactly the paths the gate passes, and the same file', async () => {
    await fc.assert(
      fc.asyncProperty(spelling, async (path) => {
        const verdict = gate({ id: 'c', name: 'read_file', arguments: JSON.stringify({ path }) }, tools, { paths });
        const opened = await call(makeContext(files), 'read_file', { path }).then(
          (r) => ({ ok: true as const, path: r.path as string, content: r.content as string }),
          (e: Error) => ({ ok: false as const, error: e.message }),
        );
        if (opened.ok) {
          expect(verdict.verdict, `the tool opened ${opened.path} for ${JSON.stringify(path)}`).toBe('pass');
          expect(opened.content).toBe(`1\t${files[opened.path]}`);
        } else if (verdict.verdict === 'pass') {
          // Passed but not opened: only a folder (the gate checks that a path exists, not its kind).
          expect(opened.error, JSON.stringify(path)).toMatch(/folder|directory/i);
        }
      }),
      { numRuns: 600 },
    );
  });

  it('an absolute path or one leaving the workspace is refused on both sides, with the same words', async () => {
    for (const path of ['/src/index.ts', '../README.md', 'C:\\src\\index.ts']) {
      const verdict = gate({ id: 'c', name: 'read_file', arguments: JSON.stringify({ path }) }, tools, { paths });
      expect(verdict.verdict).toBe('blocked');
      if (verdict.verdict !== 'blocked') continue;
      const refused = await call(makeContext(files), 'read_file', { path }).catch((e: Error) => e.message);
      expect(verdict.problems[0]!.message).toBe(refused);
    }
    const v = gate({ id: 'c', name: 'read_file', arguments: JSON.stringify({ path: '/src/index.ts' }) }, tools, { paths });
    expect(v).toMatchObject({ verdict: 'blocked', category: 'invalid_path', suggestions: ['src/index.ts'] });
  });
});
