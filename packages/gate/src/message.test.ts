import { describe, expect, it } from 'vitest';
import { gate } from './index.ts';
import { blockedMessage, echo, MAX_ECHO } from './message.ts';
import { buildPathIndex } from './paths/paths.ts';
import type { ToolSpec } from './types.ts';

describe('blockedMessage', () => {
  it('says what was wrong, how to fix it and offers at most three suggestions', () => {
    const m = blockedMessage({
      tool: 'get_wether',
      problems: [{ category: 'phantom_tool', path: '$name', message: 'There is no tool named "get_wether".' }],
      suggestions: ['get_weather', 'get_time', 'get_date', 'get_more'],
    });
    expect(m).toContain('There is no tool named "get_wether".');
    expect(m).toContain('Fix: Call one of the available tools');
    expect(m).toContain('Did you mean: "get_weather", "get_time", "get_date"?');
    expect(m).not.toContain('get_more');
  });

  it('echoes raw arguments only up to a bounded length', () => {
    const raw = `{"content": "${'x'.repeat(5000)}`;
    const m = blockedMessage({ tool: 't', problems: [{ category: 'malformed_json', path: '$', message: 'cut off' }], rawArguments: raw });
    expect(m.length).toBeLessThan(MAX_ECHO + 400);
    expect(m).toContain('(5013 chars)');
  });

  it('lists the nearest folder for a path problem', () => {
    const m = blockedMessage({
      tool: 'read_file',
      problems: [{ category: 'invalid_path', path: '$.path', message: '"src/x.ts" does not exist.' }],
      listing: { folder: 'src', entries: ['a.ts', 'b.ts'] },
    });
    expect(m).toContain('- $.path: "src/x.ts" does not exist.');
    expect(m).toContain('Folder "src" contains: a.ts, b.ts');
  });
});

describe('echo', () => {
  it('puts a value on one line and cuts it, saying how long it was', () => {
    expect(echo('  a\n\tb   c  ')).toBe('a b c');
    expect(echo('x'.repeat(300), 10)).toBe('xxxxxxxxxx… (300 chars)');
    expect(echo(`${'a '.repeat(1_000_000)}`, 7)).toBe('a a a a… (2000000 chars)');
    expect(echo(' \n ')).toBe('');
  });
});

describe('blocked messages stay small whatever the model sent', () => {
  const tools: ToolSpec[] = [
    {
      name: 'read_file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
      pathParams: ['path'],
    },
  ];
  const paths = buildPathIndex(['src/a.ts', 'src/b.ts', 'README.md']);
  // Over the default 1 MB arguments cap these would be blocked unread; the cap is raised to reach the layers.
  const limits = { maxArgumentsChars: 20_000_000 };

  it('a 10 MB path', () => {
    const path = `src/${'z/'.repeat(5_000_000)}a.ts`;
    const v = gate({ id: '1', name: 'read_file', arguments: JSON.stringify({ path }) }, tools, { paths, limits });
    expect(v.verdict).toBe('blocked');
    if (v.verdict !== 'blocked') return;
    expect(v.category).toBe('invalid_path');
    expect(v.message.length).toBeLessThan(2_000);
    expect(v.message).toContain(`(${path.length} chars)`);
    expect(v.message).toContain('Folder "src" contains: a.ts, b.ts');
    expect(JSON.stringify(v.problems).length).toBeLessThan(2_000);
  });

  it('a 1 MB parameter name', () => {
    const name = 'q'.repeat(1_000_000);
    const v = gate({ id: '1', name: 'read_file', arguments: JSON.stringify({ [name]: 'x' }) }, tools, { paths, limits });
    expect(v.verdict).toBe('blocked');
    if (v.verdict !== 'blocked') return;
    expect(v.message.length).toBeLessThan(2_000);
    expect(v.message).toContain('(1000000 chars)');
    expect(JSON.stringify(v.problems).length).toBeLessThan(2_000);
  });

  it('every part of the message at once', () => {
    const huge = (c: string) => c.repeat(1_000_000);
    const m = blockedMessage({
      tool: huge('t'),
      problems: Array.from({ length: 9 }, () => ({ category: 'unknown_parameter' as const, path: `$.${huge('p')}`, message: huge('m ') })),
      suggestions: [huge('s'), huge('s'), huge('s'), huge('s')],
      listing: { folder: huge('f'), entries: Array.from({ length: 50 }, () => huge('e')) },
      invented: Array.from({ length: 9 }, () => huge('i')),
      rawArguments: huge('r'),
    });
    expect(m.length).toBeLessThan(12_000);
    expect(m).toContain('- … and 4 more');
    expect(m).toContain(', … (50 entries)');
  });
});
