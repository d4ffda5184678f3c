import { describe, expect, it } from 'vitest';
import { isWithin, normalisePath, parentOf } from './paths.ts';

describe('normalisePath', () => {
  it.each([
    ['./a//b', 'a/b'],
    ['a\\b\\c.ts', 'a/b/c.ts'],
    ['src/./x/../y.ts', 'src/y.ts'],
    ['  src/a.ts  ', 'src/a.ts'],
    ['src/', 'src'],
  ])('%s → %s', (input, expected) => {
    expect(normalisePath(input)).toBe(expected);
  });

  it('refuses .. that leaves the workspace', () => {
    expect(() => normalisePath('../etc/passwd')).toThrow(/escapes the workspace/);
    expect(() => normalisePath('src/../../x')).toThrow(/escapes the workspace/);
    expect(() => normalisePath('..\\x')).toThrow(/escapes/);
  });

  it('refuses absolute paths and proposes the relative one', () => {
    expect(() => normalisePath('/src/a.ts')).toThrow(/Absolute path "\/src\/a.ts" refused.*Use "src\/a.ts"/);
    expect(() => normalisePath('C:\\work\\a.ts')).toThrow(/Absolute.*Use "work\/a.ts"/);
    expect(() => normalisePath('~/a.ts')).toThrow(/Absolute/);
    expect(() => normalisePath('file:///a.ts')).toThrow(/Absolute/);
  });

  it('allows the root only when asked', () => {
    expect(normalisePath('.', { allowRoot: true })).toBe('');
    expect(normalisePath('', { allowRoot: true })).toBe('');
    expect(() => normalisePath('./')).toThrow(/not a file path/);
  });
});

describe('path helpers', () => {
  it('parentOf and isWithin', () => {
    expect(parentOf('a/b/c.ts')).toBe('a/b');
    expect(parentOf('c.ts')).toBe('');
    expect(isWithin('src/a.ts', 'src')).toBe(true);
    expect(isWithin('srcx/a.ts', 'src')).toBe(false);
    expect(isWithin('anything', '')).toBe(true);
  });
});
