import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commentStyle } from './code-lang.ts';
import { afterLeadingEllipsis, beforeTrailingEllipsis, commentText, isElisionComment, isInlinePlaceholder, withoutTrailingEllipsis } from './code-markers.ts';

// The patterns the scanners replaced (quadratic on long runs of dots or spaces): the references.
const LEADING = /^(?:\.{3,}|…)\s*(.*)$/;
const TRAILING = /^(.*?)\s*(?:\.{3,}|…)\s*$/;
const TRAILING_CUT = /(?:\.{3,}|…)\s*$/;

const lineChars = fc.constantFrom('.', '.', '.', '…', ' ', ' ', '\t', '\r', '\u2028', '\u00a0', 'a', 'x', ',', '(');
const lines = fc.array(lineChars, { maxLength: 24 }).map((cs) => cs.join(''));

describe('ellipsis scanners', () => {
  it('agree with the patterns they replaced', () => {
    fc.assert(
      fc.property(lines, (s) => {
        expect(afterLeadingEllipsis(s)).toBe(LEADING.exec(s)?.[1]);
        expect(beforeTrailingEllipsis(s)).toBe(TRAILING.exec(s)?.[1]);
        expect(withoutTrailingEllipsis(s)).toBe(s.replace(TRAILING_CUT, ''));
      }),
      { numRuns: 5000 },
    );
  });

  it('take the whole run of dots, and only the last ellipsis of several', () => {
    expect(afterLeadingEllipsis('..... rest of code')).toBe('rest of code');
    expect(afterLeadingEllipsis('.. two dots')).toBeUndefined();
    expect(beforeTrailingEllipsis('rest of code ...')).toBe('rest of code');
    expect(withoutTrailingEllipsis('a ... …  ')).toBe('a ... ');
    expect(withoutTrailingEllipsis('a ......')).toBe('a ');
  });

  it('read a megabyte of dots in one pass', () => {
    const dots = '.'.repeat(1_000_000);
    expect(afterLeadingEllipsis(`${dots}x`)).toBe('x');
    expect(beforeTrailingEllipsis(`x${dots}`)).toBe('x');
    expect(beforeTrailingEllipsis(`${dots}x`)).toBeUndefined();
  });
});

describe('isElisionComment', () => {
  it('recognises how assistants elide code', () => {
    for (const body of [
      '...',
      '... existing code ...',
      'rest of the function',
      'existing code remains unchanged',
      'other methods   stay the same',
      '... unchanged ...',
      'unchanged  .',
      'TODO: implement this  .',
      'your code here',
      'more handlers...',
      'etc...',
    ]) {
      expect(isElisionComment(body), body).toBe(true);
    }
  });

  it('leaves notes, prose and sentences that trail off alone', () => {
    for (const body of [
      'TODO: handle errors',
      'Loading...',
      'This keeps the existing behaviour, which callers rely on',
      '...and then we retry',
      'see https://example.com/a...b',
      'wait for it...',
    ]) {
      expect(isElisionComment(body), body).toBe(false);
    }
  });

  it('stays linear on long runs of spaces and dots between the words it looks for', () => {
    const spaces = ' '.repeat(200_000);
    expect(isElisionComment(`existing${spaces}x`)).toBe(false);
    expect(isElisionComment(`unchanged${spaces}x`)).toBe(false);
    expect(isElisionComment(`TODO: implement${spaces}x`)).toBe(false);
    expect(isElisionComment(`...x${'.'.repeat(200_000)}y`)).toBe(false);
    expect(isElisionComment(`existing code${spaces}remains unchanged`)).toBe(true);
  });
});

describe('commentText and isInlinePlaceholder', () => {
  it('reads whole comment lines in the language’s syntax only', () => {
    const js = commentStyle('js');
    expect(commentText('  // ... rest of code', js)).toBe('... rest of code');
    expect(commentText('/* existing code */', js)).toBe('existing code');
    expect(commentText('/// doc comment', js)).toBeUndefined();
    expect(commentText('x = 1; // trailing', js)).toBeUndefined();
    expect(commentText('#include <a.h>', commentStyle('unknown'))).toBeUndefined();
  });

  it('finds placeholders that are not comments', () => {
    expect(isInlinePlaceholder('<placeholder>', { ellipsisIsCode: false })).toBe(true);
    expect(isInlinePlaceholder('function f() { ... }', { ellipsisIsCode: false })).toBe(true);
    expect(isInlinePlaceholder('def f(): ...', { ellipsisIsCode: true })).toBe(false);
    expect(isInlinePlaceholder('f({ ...rest })', { ellipsisIsCode: false })).toBe(false);
  });
});
