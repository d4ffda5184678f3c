import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameKey, nameTokens, singular, singularKey, words } from './words.ts';

/** The regex `words` the scanner replaced (quadratic on a run of capitals): the reference on short names. */
function wordsByRegex(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_\-.@/:]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

const nameChars = fc.constantFrom(...'aAbBsSxXeE19_-.@/: \t\u00a0\u2028\u3000éÉ'.split(''));
const names = fc.array(nameChars, { maxLength: 16 }).map((cs) => cs.join(''));

describe('words', () => {
  it('splits on separators, camelCase and acronyms, lowercased', () => {
    expect(words('HTTPServer')).toEqual(['http', 'server']);
    expect(words('XMLHttpRequest')).toEqual(['xml', 'http', 'request']);
    expect(words('v2Beta_user-profile.ts')).toEqual(['v2', 'beta', 'user', 'profile', 'ts']);
    expect(words('  a\u00a0b\u3000c  ')).toEqual(['a', 'b', 'c']);
    expect(words('functions:api/get')).toEqual(['functions', 'api', 'get']);
    expect(words('')).toEqual([]);
  });

  it('agrees with the regex definition on any short name', () => {
    fc.assert(
      fc.property(names, (n) => {
        expect(words(n)).toEqual(wordsByRegex(n));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a long run of capitals in one pass, splitting only before the last one', () => {
    const w = words(`${'A'.repeat(50_000)}a`);
    expect(w).toEqual(['a'.repeat(49_999), 'aa']);
  });
});

describe('keys', () => {
  it('nameKey erases case and separators, the same for tool, parameter and path names', () => {
    expect(nameKey('player_stats.getLast-game')).toBe('playerstatsgetlastgame');
    expect(nameKey('getHTTPServer')).toBe(nameKey('get_http_server'));
    expect(nameKey('get-http.server')).toBe(nameKey('GetHttpServer'));
    expect(nameKey('User_Profiles')).not.toBe(nameKey('userProfile'));
  });

  it('singularKey erases plurals too (for file and folder names)', () => {
    expect(['cities', 'boxes', 'classes', 'matches', 'dishes', 'files', 'class', 'bus'].map(singular)).toEqual([
      'city',
      'box',
      'class',
      'match',
      'dish',
      'file',
      'class',
      'bus',
    ]);
    expect(singularKey('User_Profiles')).toBe(singularKey('userProfile'));
  });

  it('nameTokens drops bare numbers, keeps words with digits', () => {
    expect(nameTokens('getHTTPResponse_v2.fetch-all')).toEqual(['get', 'http', 'response', 'v2', 'fetch', 'all']);
    expect(nameTokens('Trains_1_FindTrains')).toEqual(['trains', 'find', 'trains']);
  });
});
