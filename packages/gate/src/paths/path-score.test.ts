import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileNameSimilarity, osaDistance, pathScore, splitExt, stemSimilarity } from './path-score.ts';

const nameChars = fc.constantFrom(...'aAbBsSxXeE19_-.@ \t\u00a0\u2028\u3000éÉ'.split(''));
const names = fc.array(nameChars, { maxLength: 16 }).map((cs) => cs.join(''));

describe('splitExt', () => {
  it('tells extensions from version numbers', () => {
    expect(splitExt('main.rs')).toEqual({ stem: 'main', ext: 'rs' });
    expect(splitExt('v8.3')).toEqual({ stem: 'v8.3', ext: '' });
    expect(splitExt('.bashrc')).toEqual({ stem: '.bashrc', ext: '' });
  });
});

describe('fileNameSimilarity', () => {
  it('ranks the kinds of slip below an exact match', () => {
    const s = fileNameSimilarity('WeaponMgr.lua');
    expect(s.base('WeaponMgr.lua')).toBe(1);
    expect(s.base('WeaponManager.lua')).toBeGreaterThan(0.5);
    expect(s.base('WeaponManager.lua')).toBeLessThan(1);
    expect(s.base('weaponmgr.lua')).toBe(0.95);
    expect(s.base('WeaponMgr.ts')).toBeCloseTo(0.9);
    expect(s.base('Inventory.lua')).toBe(0);
    expect(s.key).toBe('weaponmgr');
  });

  it('is looser for siblings: a transposition in a short name still counts', () => {
    expect(fileNameSimilarity('mian.ts').base('main.ts')).toBe(0);
    expect(fileNameSimilarity('mian.ts').sibling('main.ts')).toBeCloseTo(0.6);
  });

  it('compares stems alike through either entry point, within [0, 1]', () => {
    fc.assert(
      fc.property(names, names, (a, b) => {
        const s = stemSimilarity(a)(b);
        if (a !== '') expect(fileNameSimilarity(`${a}.ts`).stem(b)).toBe(s);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(fileNameSimilarity(a).sibling(b)).toBeGreaterThanOrEqual(fileNameSimilarity(a).base(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('compares a megabyte-long name with a short one without reading it per comparison', () => {
    const long = `manager${'x'.repeat(1_000_000)}`;
    const s = fileNameSimilarity(long);
    // An abbreviation of it (a subsequence with the same first letter) is found by indexOf.
    expect(s.stem('mgr')).toBeGreaterThan(0);
    expect(s.stem('mgz')).toBe(0);
    expect(s.base('index.ts')).toBe(0);
  });
});

describe('pathScore', () => {
  const dirSim = (a: string, b: string): number => stemSimilarity(a)(b);
  const score = (att: string, cand: string, floor?: number): number => {
    const a = att.split('/');
    return pathScore(a, cand.split('/'), { nameSim: fileNameSimilarity(a[a.length - 1]!).base, dirSim, floor });
  };

  it('prefers the candidate whose folders align', () => {
    expect(score('src/utils/format.ts', 'src/utils/format.ts')).toBe(1);
    expect(score('src/util/format.ts', 'src/utils/format.ts')).toBeGreaterThan(score('src/util/format.ts', 'lib/other/format.ts'));
    expect(score('src/format.ts', 'src/utils/format.ts')).toBeGreaterThan(0.55);
  });

  it('skips the alignment when the floor cannot be reached, and only then', () => {
    let aligned = 0;
    const counting = (a: string, b: string): number => {
      aligned++;
      return dirSim(a, b);
    };
    const deep = [...Array(5000).fill('a'), 'format.ts'];
    const s = pathScore(deep, ['src', 'format.ts'], { nameSim: fileNameSimilarity('format.ts').base, dirSim: counting, floor: 0.55 });
    expect(s).toBe(0);
    expect(aligned).toBe(0);
    // A score that reaches the floor is the full alignment's; one below it may read 0.
    for (const [a, c] of [
      ['src/util/format.ts', 'src/utils/format.ts'],
      ['x/y/z/format.ts', 'src/format.ts'],
      ['a/b/c/d/e/f/format.ts', 'format.ts'],
      ['format.ts', 'a/b/c/d/format.ts'],
    ] as const) {
      const full = score(a, c);
      const floored = score(a, c, 0.55);
      if (full >= 0.55) expect(floored).toBe(full);
      else expect([0, full]).toContain(floored);
    }
  });
});

describe('osaDistance', () => {
  it('counts a transposition as one edit', () => {
    expect(osaDistance('mian', 'main')).toBe(1);
    expect(osaDistance('abc', 'abc')).toBe(0);
    expect(osaDistance('kitten', 'sitting')).toBe(3);
  });

  it('answers at once for lengths far apart', () => {
    expect(osaDistance('a', 'a'.repeat(1_000_000))).toBe(999_999);
  });
});
