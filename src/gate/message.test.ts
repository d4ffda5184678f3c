import { describe, expect, it } from 'vitest';
import { blockedMessage, MAX_ECHO } from './message.ts';

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
