// bench:gate's repairPrecision, judged as ../shared/bench/README.md § Scoring defines it, on
// hand-written cases: only the gate's own changes are judged, by the gold entries that the untouched
// arguments already match.
import { describe, expect, it } from 'vitest';
import { judgeRepair } from '../../bench/gate/tool-calls.ts';

const gold = [
  { name: 'get_stock_prices', arguments: { companies: [['Apple']], duration: ['1 week'] } },
  { name: 'get_stock_prices', arguments: { companies: [['Microsoft']], duration: ['2 weeks'] } },
];
const caseOf = (args: string) =>
  ({
    id: 'x',
    tools: [],
    call: { name: 'get_stock_prices', arguments: args },
    expect: { valid: false, labels: ['wrong_type'], gold },
    meta: { gold_kind: 'possible_answer' },
  }) as never;
const repaired = (args: Record<string, unknown>, name = 'get_stock_prices') => ({ verdict: 'repaired' as const, name, args });

describe('judgeRepair', () => {
  it('is right when the changed argument matches the entry the untouched ones match', () => {
    expect(judgeRepair(caseOf('{"companies": "[\\"Microsoft\\"]", "duration": "2 weeks"}'), repaired({ companies: ['Microsoft'], duration: '2 weeks' }))).toBe(
      true,
    );
  });

  it('is wrong when the changed argument matches no acceptable value of that entry', () => {
    expect(
      judgeRepair(caseOf('{"companies": "[\\"Apple\\", \\"Tesla\\"]", "duration": "1 week"}'), repaired({ companies: ['Apple', 'Tesla'], duration: '1 week' })),
    ).toBe(false);
  });

  it('takes a list the model left short as right (each item matches an item of an acceptable list)', () => {
    const g = [{ name: 'f', arguments: { items: [['a', 'b', 'c']], n: [1] } }];
    const c = {
      ...(caseOf('{"items": "a", "n": 1}') as object),
      call: { name: 'f', arguments: '{"items": "a", "n": 1}' },
      expect: { valid: false, labels: [], gold: g },
    } as never;
    expect(judgeRepair(c, repaired({ items: ['a'], n: 1 }, 'f'))).toBe(true);
  });

  it('leaves out a repair no entry judges: an untouched argument matches no gold entry', () => {
    expect(
      judgeRepair(caseOf('{"companies": "[\\"Apple\\"]", "duration": "5 years"}'), repaired({ companies: ['Apple'], duration: '5 years' })),
    ).toBeUndefined();
    expect(
      judgeRepair(caseOf('{"companies": "[\\"Apple\\"]", "duration": "1 week"}'), repaired({ companies: ['Apple'], duration: '1 week' }, 'other')),
    ).toBeUndefined();
  });

  it('judges a removed argument right only when the entry lacks it or lets it be omitted', () => {
    const g = [{ name: 'f', arguments: { a: [1], b: ['', 2] } }];
    const c = (args: string) =>
      ({
        id: 'x',
        tools: [],
        call: { name: 'f', arguments: args },
        expect: { valid: false, labels: [], gold: g },
        meta: { gold_kind: 'possible_answer' },
      }) as never;
    expect(judgeRepair(c('{"a": 1, "b": null}'), repaired({ a: 1 }, 'f'))).toBe(true);
    expect(judgeRepair(c('{"a": 1, "zzz": 3}'), repaired({ a: 1 }, 'f'))).toBe(true);
    const strict = [{ name: 'f', arguments: { a: [1], b: [2] } }];
    const s = {
      id: 'x',
      tools: [],
      call: { name: 'f', arguments: '{"a": 1, "b": null}' },
      expect: { valid: false, labels: [], gold: strict },
      meta: { gold_kind: 'possible_answer' },
    } as never;
    expect(judgeRepair(s, repaired({ a: 1 }, 'f'))).toBe(false);
  });

  it('counts every argument as changed when the original does not parse', () => {
    expect(judgeRepair(caseOf("{'companies': ['Apple'], 'duration': '1 week',}"), repaired({ companies: ['Apple'], duration: '1 week' }))).toBe(true);
    expect(judgeRepair(caseOf("{'companies': ['Apple'], 'duration': '3 weeks',}"), repaired({ companies: ['Apple'], duration: '3 weeks' }))).toBe(false);
  });
});
