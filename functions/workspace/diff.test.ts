import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diffLines, fileDiff, MAX_DIFF_LINES, MAX_LINE_CHARS } from './diff.ts';

const text = (s: string) => ({ content: s, encoding: 'utf-8' as const });
const numbered = (n: number, edit?: (i: number) => string | null) =>
  `${Array.from({ length: n }, (_, i) => (edit ? edit(i) : `line ${i + 1}`))
    .filter((l) => l !== null)
    .join('\n')}\n`;

describe('fileDiff', () => {
  it('writes hunks as diff -u does: 3 lines of context, nearby changes in one hunk, far ones apart', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n';
    const after = 'a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nK\nl\n';
    // What `diff -u` prints for these two files, without its two header lines.
    expect(fileDiff('x.txt', text(before), text(after))).toEqual({
      path: 'x.txt',
      change: 'modified',
      added: 3,
      removed: 2,
      hunks: '@@ -1,6 +1,6 @@\n a\n b\n-c\n+C\n d\n e\n f\n@@ -8,4 +8,5 @@\n h\n i\n j\n-k\n+K\n+l',
    });
  });

  it('a created file is all added lines, a deleted one all removed lines', () => {
    expect(fileDiff('n.ts', null, text('x\ny\n'))).toMatchObject({ change: 'created', added: 2, removed: 0, hunks: '@@ -0,0 +1,2 @@\n+x\n+y' });
    expect(fileDiff('n.ts', text('x\ny\n'), null)).toMatchObject({ change: 'deleted', added: 0, removed: 2, hunks: '@@ -1,2 +0,0 @@\n-x\n-y' });
  });

  it('one changed line in a long file is one small hunk', () => {
    const d = fileDiff('big.ts', text(numbered(50_000)), text(numbered(50_000, (i) => (i === 30_000 ? 'changed' : `line ${i + 1}`))));
    expect(d.hunks.split('\n')).toEqual([
      '@@ -29998,7 +29998,7 @@',
      ' line 29998',
      ' line 29999',
      ' line 30000',
      '-line 30001',
      '+changed',
      ' line 30002',
      ' line 30003',
      ' line 30004',
    ]);
  });

  it('caps the hunks a file shows and the length of a line, and says how much was left out; the counts stay whole', () => {
    const d = fileDiff('big.ts', null, text(numbered(2_000)));
    expect(d.added).toBe(2_000);
    expect(d.hunks.split('\n')).toHaveLength(MAX_DIFF_LINES);
    expect(d.omitted).toBe(2_001 - MAX_DIFF_LINES);
    const long = fileDiff('long.txt', null, text('x'.repeat(10_000)));
    expect(long.hunks.split('\n')[1]).toHaveLength(1 + MAX_LINE_CHARS);
    expect(long.hunks.endsWith('…')).toBe(true);
  });

  it('a rewrite past the edit budget is shown as removed then added, still a correct diff', () => {
    const before = numbered(3_000, (i) => `old ${i}`);
    const after = numbered(3_000, (i) => `new ${i}`);
    const d = fileDiff('r.ts', text(before), text(after));
    expect([d.added, d.removed]).toEqual([3_000, 3_000]);
  });

  it('a binary file gets no hunks', () => {
    expect(fileDiff('img.png', null, { content: '/w==', encoding: 'base64' })).toEqual({
      path: 'img.png',
      change: 'created',
      added: 0,
      removed: 0,
      hunks: '',
      binary: true,
    });
  });
});

describe('diffLines', () => {
  it('finds a shortest edit script (the classic example has 5 edits)', () => {
    const ops = diffLines('abcabba'.split(''), 'cbabac'.split(''));
    expect(ops.filter((o) => o.kind !== ' ')).toHaveLength(5);
  });

  it('replays: the kept and removed lines are the old file, the kept and added lines the new one', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 40 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const ops = diffLines(a, b);
        expect(ops.filter((o) => o.kind !== '+').map((o) => o.text)).toEqual(a);
        expect(ops.filter((o) => o.kind !== '-').map((o) => o.text)).toEqual(b);
      }),
    );
  });
});
