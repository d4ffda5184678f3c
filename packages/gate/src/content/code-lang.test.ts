import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bareEllipsisIsCode, langFromPath, sniffLang, type Lang } from './code-lang.ts';

/** sniffLang as it was, with `^\s*` crossing lines under the m flag (quadratic on blank lines): the reference. */
function sniffByOldPatterns(content: string): Lang {
  const head = content.slice(0, 4000);
  if (/^#!.*\bpython/.test(head)) return 'python';
  if (/^#!.*\b(ba|z)?sh\b/.test(head)) return 'shell';
  if (/^#!.*\b(node|deno|bun)\b/.test(head)) return 'js';
  const t = head.trimStart();
  if ((t.startsWith('{') || t.startsWith('[')) && /^[[{]\s*"/.test(t)) return 'json';
  if (/^\s*<(!doctype|html|template|div|script)\b/i.test(t)) return 'html';
  if (
    /^\s*(def|class)\s+\w+.*:\s*$/m.test(head) ||
    (/^\s*(from\s+[\w.]+\s+)?import\s+[\w., ]+$/m.test(head) && /:\s*$/m.test(head) && !/[;{}]\s*$/m.test(head))
  )
    return 'python';
  if (/^\s*(import|export)\s.+from\s+['"]/m.test(head) || /\b(const|let)\s+\w+\s*=/.test(head) || /=>\s*[{(]/.test(head)) return 'js';
  if (/^\s*package\s+\w+\s*$/m.test(head) && /\bfunc\b/.test(head)) return 'go';
  if (/^\s*(fn|pub fn|use\s+\w+::|impl\b|struct\s+\w+\s*[{<])/m.test(head)) return 'rust';
  if (/^\s*#include\s*[<"]/m.test(head)) return 'c';
  if (/^\s*local\s+\w+\s*=|\bfunction\s+[\w.:]+\(.*\)\s*$/m.test(head) && /^\s*end\s*$/m.test(head)) return 'lua';
  if (/^\s*(SELECT|CREATE|INSERT|ALTER)\s/im.test(head) && /;\s*$/m.test(head)) return 'sql';
  return 'unknown';
}

const tokens = fc.constantFrom(
  ...['def', 'class', 'import', 'from', 'export', 'package', 'func', 'fn', 'use', 'impl', 'struct', '#include', 'local', 'function', 'end'],
  ...['SELECT', 'const', 'let', '=>', 'x', 'a.b', ',', ':', ';', '{', '}', '(', ')', '<', '"', '=', '::', ' ', '  ', '\t', '\n', '\n\n'],
  ...['\r', '\r\n', '\u2028', '\u00a0', '#!', 'python', '<html', '['],
);

describe('sniffLang', () => {
  it('guesses from the first lines', () => {
    expect(sniffLang('#!/usr/bin/env python3\nprint(1)')).toBe('python');
    expect(sniffLang('\n\n  def main():\n    pass')).toBe('python');
    expect(sniffLang('import os, sys\n\nif x:\n    y')).toBe('python');
    expect(sniffLang("import { a } from '../../../../src/gate/a';\n")).toBe('js');
    expect(sniffLang('package main\n\nfunc main() {}')).toBe('go');
    expect(sniffLang('\n\n#include <stdio.h>')).toBe('c');
    expect(sniffLang('{"a": 1}')).toBe('json');
    expect(sniffLang('just some words')).toBe('unknown');
  });

  it('gives the answers the line-crossing patterns gave', () => {
    fc.assert(
      fc.property(fc.array(tokens, { maxLength: 24 }), fc.boolean(), (ts, spaced) => {
        const head = ts.join(spaced ? ' ' : '');
        expect(sniffLang(head)).toBe(sniffByOldPatterns(head));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads 4 KB of blank lines without rescanning them from every line start', () => {
    // The answers only: the time is measured by the adversarial gate bench.
    expect(sniffLang('\n'.repeat(100_000))).toBe('unknown');
    expect(sniffLang(`${' \n'.repeat(1990)}def f():`)).toBe('python');
    expect(sniffLang(`import${' '.repeat(3990)}#`)).toBe('unknown');
  });
});

describe('langFromPath', () => {
  it('takes the language from the extension or a well-known name', () => {
    expect(langFromPath('src/App.tsx')).toBe('js');
    expect(langFromPath('Dockerfile')).toBe('shell');
    expect(langFromPath('notes')).toBeUndefined();
    expect(langFromPath(undefined)).toBeUndefined();
    expect(bareEllipsisIsCode('python')).toBe(true);
    expect(bareEllipsisIsCode('js')).toBe(false);
  });
});
