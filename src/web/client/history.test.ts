import { describe, expect, it } from 'vitest';
import { historyResult } from './history.js';
import { rememberCall, rememberedCalls } from './resume.js';

/** localStorage as the page has it, with a quota in characters. */
function storage(quota = Infinity): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => void items.delete(k),
    setItem: (k, v) => {
      if (v.length > quota) throw new DOMException('full', 'QuotaExceededError');
      items.set(k, v);
    },
  };
}

const card = (content: string) => historyResult({ id: 'c1', name: 'read_file', content, remembered: undefined });

describe('a tool card from the history, derived from the tool message', () => {
  it('a call that ran: "ran", with its result', () => {
    expect(card('{"ok":true,"result":{"content":"x"}}')).toEqual({
      id: 'c1',
      name: 'read_file',
      verdict: 'ran',
      ok: true,
      result: { content: 'x' },
      derived: true,
    });
  });

  it('a call the gate blocked (suggestions, possibly none) or the loop breaker refused (no hint): blocked', () => {
    expect(card('{"ok":false,"error":"path does not exist","suggestions":["src/a.ts"]}')).toMatchObject({
      verdict: 'blocked',
      ok: false,
      error: 'path does not exist',
      suggestions: ['src/a.ts'],
    });
    expect(card('{"ok":false,"error":"unknown tool","suggestions":[]}')).toMatchObject({ verdict: 'blocked' });
    expect(card('{"ok":false,"error":"read_file is withheld for the rest of this turn"}')).toMatchObject({ verdict: 'blocked' });
  });

  it('a call that ran and failed (an error with a hint): ran, not ok', () => {
    expect(card('{"ok":false,"error":"read_file failed: EIO","hint":"Try again."}')).toMatchObject({
      verdict: 'ran',
      ok: false,
      error: 'read_file failed: EIO',
    });
  });

  it('a message that is not a payload is shown as the result it is', () => {
    expect(card('plain text')).toMatchObject({ verdict: 'ran', result: 'plain text' });
  });
});

describe('remembered calls', () => {
  it('a reload in the same browser shows the verdict, repairs and diffs the events had, with the result from the history', () => {
    const s = storage();
    const diffs = [{ path: 'a.ts', change: 'created' as const, added: 1, removed: 0, hunks: '@@ -0,0 +1 @@\n+x' }];
    const repairs = [{ kind: 'coerce' as const, path: '$.n', from: '"1"', to: '1', category: 'wrong_type' as const }];
    rememberCall(s, {
      id: 'c1',
      name: 'write_file',
      verdict: 'repaired',
      category: 'wrong_type',
      ok: true,
      result: { big: true },
      repairs,
      diffs,
      durationMs: 4,
    });
    const remembered = rememberedCalls(s).c1;
    expect(remembered).toEqual({ verdict: 'repaired', category: 'wrong_type', ok: true, durationMs: 4, repairs, diffs });
    expect(historyResult({ id: 'c1', name: 'write_file', content: '{"ok":true,"result":{"path":"a.ts"}}', remembered })).toEqual({
      id: 'c1',
      name: 'write_file',
      verdict: 'repaired',
      category: 'wrong_type',
      ok: true,
      durationMs: 4,
      repairs,
      diffs,
      result: { path: 'a.ts' },
    });
  });

  it('keeps the newest calls, fewer when storage is full, and survives garbage', () => {
    const s = storage(2_000);
    for (let i = 0; i < 300; i++) rememberCall(s, { id: `c${i}`, name: 't', verdict: 'pass', category: 'valid', ok: true, durationMs: 1 });
    const ids = Object.keys(rememberedCalls(s));
    expect(ids.at(-1)).toBe('c299');
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThan(300);
    s.setItem('rebound.calls', 'not json');
    expect(rememberedCalls(s)).toEqual({});
  });
});
