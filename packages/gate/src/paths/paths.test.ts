import { describe, expect, it } from 'vitest';
import { buildPathIndex } from './paths.ts';

const roblox = buildPathIndex([
  'ServerScriptService/Core/Systems/Combat/WeaponManager.lua',
  'ServerScriptService/Core/Systems/Combat/DamageHandler.lua',
  'ServerScriptService/Core/Systems/Inventory/InventoryManager.lua',
  'ReplicatedStorage/Shared/Config.lua',
]);

const repo = buildPathIndex([
  'src/components/Button.tsx',
  'src/components/Modal.tsx',
  'src/utils/format.ts',
  'src/utils/parse.ts',
  'tests/unit/format_test.ts',
  'tests/unit/parse_test.ts',
  'docs/configuration.md',
  'README.md',
]);

describe('buildPathIndex', () => {
  it('implies folders from files', () => {
    expect(repo.has('src/components')).toBe(true);
    expect(repo.has('src/components/')).toBe(true);
    expect(repo.has('./src/utils/format.ts')).toBe(true);
    expect(repo.has('src/helpers')).toBe(false);
    expect(repo.size).toBe(8 + 6);
  });

  it('resolves a dotted module path with an abbreviation to the Manager file', () => {
    expect(roblox.suggest('ServerScriptService.Core.Systems.Combat.WeaponMgr')[0]).toBe('ServerScriptService/Core/Systems/Combat/WeaponManager.lua');
  });

  it('fixes a typo, a wrong extension, a plural and a missing folder', () => {
    expect(repo.suggest('src/utils/fromat.ts')[0]).toBe('src/utils/format.ts');
    expect(repo.suggest('src/components/Button.jsx')[0]).toBe('src/components/Button.tsx');
    expect(repo.suggest('src/component/Modal.tsx')[0]).toBe('src/components/Modal.tsx');
    expect(repo.suggest('tests/parse_test.ts')[0]).toBe('tests/unit/parse_test.ts');
    expect(repo.suggest('docs/config.md')[0]).toBe('docs/configuration.md');
  });

  it('finds a file given relative to another folder, or with the working folder repeated', () => {
    const fs = buildPathIndex(['projects/', 'projects/photography/', 'projects/photography/test_image1.jpg', 'notes.txt']);
    expect(fs.suggest('test_image1.jpg')[0]).toBe('projects/photography/test_image1.jpg');
    expect(fs.suggest('projects/photography/projects/')[0]).toBe('projects/');
  });

  it('fixes a wrong root folder', () => {
    expect(repo.suggest('lib/utils/parse.ts')[0]).toBe('src/utils/parse.ts');
  });

  it('abstains when nothing is close', () => {
    expect(repo.suggest('kangaroo/umbrella/sandwich.py')).toEqual([]);
    expect(roblox.suggest('totally/unrelated.rb')).toEqual([]);
  });

  it('returns at most `limit` suggestions, best first', () => {
    const s = repo.suggest('src/utils/pars.ts', 1);
    expect(s).toEqual(['src/utils/parse.ts']);
  });

  it('lists the nearest existing folder', () => {
    expect(repo.nearestListing('src/utils/missing/deeper.ts')).toEqual({ folder: 'src/utils', entries: ['format.ts', 'parse.ts'] });
    expect(repo.nearestListing('nowhere/x.ts').folder).toBe('');
    expect(repo.nearestListing('nowhere/x.ts').entries).toContain('src/');
  });

  it('answers on a large tree', () => {
    // Speed is measured by `npm run bench:gate -- --paths-100k`, not asserted here.
    const big: string[] = [];
    for (let r = 0; r < 50; r++) for (let i = 0; i < 2000; i++) big.push(`root${r}/pkg${i % 100}/mod${i}/index.ts`);
    const ix = buildPathIndex(big);
    expect(ix.suggest('root7/pkg3/mod303/indx.ts')[0]).toBe('root7/pkg3/mod303/index.ts');
  });
});

describe('pathological attempts', () => {
  // Each would have rescanned or re-joined the attempt per slash; the answers are what they were.
  it('finds the tail that exists behind a megabyte of folders', () => {
    expect(repo.suggest(`${'x/'.repeat(500_000)}src/utils/format.ts`)[0]).toBe('src/utils/format.ts');
    expect(repo.suggest(`${'../'.repeat(300_000)}src/utils/format.ts`)[0]).toBe('src/utils/format.ts');
  });

  it('lists the nearest folder of a path a million folders deep', () => {
    expect(repo.nearestListing(`src/components/${'x/'.repeat(500_000)}a.ts`).folder).toBe('src/components');
    expect(repo.nearestListing('/'.repeat(1_000_000)).folder).toBe('');
  });

  it('abstains on runs of dots, slashes and backslashes, and on deep near misses', () => {
    for (const p of ['.'.repeat(1_000_000), '/'.repeat(1_000_000), '\\'.repeat(1_000_000), `${'a/'.repeat(500_000)}b`, `${'a.'.repeat(500_000)}b`]) {
      expect(repo.has(p)).toBe(false);
      expect(repo.suggest(p)).toEqual([]);
    }
  });

  it('knows a file with a megabyte-long path exists without indexing each of its folders', () => {
    const deep = `${'d/'.repeat(500_000)}f.ts`;
    const ix = buildPathIndex(['src/a.ts', deep]);
    expect(ix.has(deep)).toBe(true);
    expect(ix.has(`./${deep}`)).toBe(true);
    expect(ix.has('d/d')).toBe(false);
    expect(ix.size).toBe(2);
    expect(ix.suggest('src/aa.ts')).toEqual(['src/a.ts']);
    expect(ix.nearestListing(deep).folder).toBe('');
  });

  it('still scores a long name against the names it could mean', () => {
    expect(repo.suggest(`src/utils/format${'_'.repeat(200_000)}.ts`)[0]).toBe('src/utils/format.ts');
    expect(repo.suggest(`src/components/${'B'.repeat(100_000)}utton.tsx`)).toEqual([]);
  });
});
