import { describe, expect, it } from 'vitest';
import { bound, boundedProblems, boundedRepairs, MAX_LISTED } from './bounded.ts';
import { gate } from './index.ts';
import type { ToolSpec, Verdict } from './types.ts';

const KB = 1024;
const tools: ToolSpec[] = [
  {
    name: 'write_file',
    parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
  },
  {
    name: 'set_flags',
    parameters: {
      type: 'object',
      properties: { flags: { type: 'object', additionalProperties: { type: 'number' } }, note: { type: 'array', items: { type: 'string' } } },
      required: ['flags'],
    },
  },
];
const call = (name: string, args: Record<string, unknown>) => ({ id: 'c1', name, arguments: JSON.stringify(args) });
/** What leaves the gate for the event and the activity row: everything but the arguments it runs. */
const sizeOutside = (v: Verdict) => JSON.stringify({ ...v, call: undefined }).length;

describe('bound', () => {
  it('keeps a short text exactly as written, white space included', () => {
    expect(bound('a  b\tc', 10)).toBe('a  b\tc');
  });
  it('cuts a long one with echo, saying its length', () => {
    expect(bound('x'.repeat(50), 10)).toBe('xxxxxxxxxx… (50 chars)');
  });
});

describe('lists', () => {
  it('keep MAX_LISTED entries, the last saying how many more there were', () => {
    const repairs = Array.from({ length: 100 }, (_, i) => ({ kind: 'drop_unknown', path: `$.k${i}`, from: `k${i}`, category: 'unknown_parameter' as const }));
    const out = boundedRepairs(repairs);
    expect(out).toHaveLength(MAX_LISTED);
    expect(out.slice(0, -1)).toEqual(repairs.slice(0, MAX_LISTED - 1));
    expect(out.at(-1)).toEqual({ kind: 'omitted', path: '$', to: '81 more repairs of this call, not listed', category: 'unknown_parameter' });
    expect(boundedRepairs(repairs.slice(0, MAX_LISTED))).toEqual(repairs.slice(0, MAX_LISTED));
    const problems = repairs.map((r) => ({ category: r.category, path: r.path, message: 'unknown' }));
    expect(boundedProblems(problems).at(-1)).toEqual({ category: 'unknown_parameter', path: '$', message: '… and 81 more problems, not listed' });
  });
});

describe('verdicts through gate() stay a few KB whatever the model sent', () => {
  it('a parameter name of almost 1 MB: repaired, the name cut in the repair and the invented list', () => {
    const name = 'q'.repeat(999_000);
    const v = gate(call('write_file', { path: 'a.txt', content: 'hi', [name]: 1 }), tools);
    expect(v.verdict).toBe('repaired');
    if (v.verdict !== 'repaired') return;
    expect(v.call.args).toEqual({ path: 'a.txt', content: 'hi' });
    expect(v.repairs).toHaveLength(1);
    expect(v.repairs[0]).toMatchObject({ kind: 'drop_unknown', category: 'unknown_parameter' });
    expect(v.repairs[0]!.from).toContain('(999000 chars)');
    expect(v.invented).toHaveLength(1);
    expect(v.invented[0]).toContain('(999000 chars)');
    expect(sizeOutside(v)).toBeLessThan(2 * KB);
  });

  it('8,000 invented names: at most MAX_LISTED of them and of the repairs', () => {
    const args: Record<string, unknown> = { path: 'a.txt', content: 'hi' };
    for (let i = 0; i < 8_000; i++) args[`invented_${i}`] = i;
    const v = gate(call('write_file', args), tools);
    expect(v.verdict).toBe('repaired');
    if (v.verdict !== 'repaired') return;
    expect(v.invented).toEqual(Array.from({ length: MAX_LISTED }, (_, i) => `invented_${i}`));
    expect(v.repairs).toHaveLength(MAX_LISTED);
    expect(v.repairs.at(-1)).toMatchObject({ kind: 'omitted', to: '7,981 more repairs of this call, not listed' });
    expect(sizeOutside(v)).toBeLessThan(4 * KB);
  });

  it('8,000 invented names on a call that is blocked', () => {
    const args: Record<string, unknown> = { path: 'a.txt' };
    for (let i = 0; i < 8_000; i++) args[`${'n'.repeat(100)}${i}`] = i;
    const v = gate(call('write_file', args), tools);
    expect(v.verdict).toBe('blocked');
    expect(v.invented).toHaveLength(MAX_LISTED);
    expect(sizeOutside(v)).toBeLessThan(8 * KB);
  });

  it('8,000 wrong values under model-sent keys: problem paths cut, the list capped', () => {
    const flags: Record<string, unknown> = {};
    flags['f'.repeat(200_000)] = 'one';
    for (let i = 1; i < 8_000; i++) flags[`f${i}`] = 'one';
    const v = gate(call('set_flags', { flags }), tools);
    expect(v.verdict).toBe('blocked');
    if (v.verdict !== 'blocked') return;
    expect(v.problems).toHaveLength(MAX_LISTED);
    expect(v.problems[0]!.path).toContain('(200008 chars)');
    expect(v.problems.at(-1)!.message).toBe('… and 7,981 more problems, not listed');
    expect(v.message).toContain('- … and 7995 more');
    expect(sizeOutside(v)).toBeLessThan(8 * KB);
  });

  it('a long value coerced: the repair shows its start, not all of it', () => {
    const note = 'word '.repeat(100_000);
    const v = gate(call('set_flags', { flags: {}, note }), tools);
    expect(v.verdict).toBe('repaired');
    if (v.verdict !== 'repaired') return;
    expect(v.call.args.note).toEqual([note]);
    expect(v.repairs[0]!.from!.length).toBeLessThan(300);
    expect(sizeOutside(v)).toBeLessThan(2 * KB);
  });
});
