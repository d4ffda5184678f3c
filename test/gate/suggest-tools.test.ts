import { describe, expect, it } from 'vitest';
import { defaultTools } from '../../functions/index.ts';
// The suggestion ranking is the package's own (not its public surface): a test that needs the server's
// tools (functions/) reads it by path, from here, not from the server's code.
import { renameUnknown } from '../../packages/gate/src/schema/rename.ts';
import { closestValues } from '../../packages/gate/src/schema/schema-repair.ts';
import { RUNNER_UP_SHARE, worthOffering } from '../../packages/gate/src/suggest.ts';
import { resolveToolName } from '../../packages/gate/src/tool-name.ts';

const byScore = (x: { s: number }) => x.s;

describe('worthOffering', () => {
  it('keeps at most three, none below the share of the best', () => {
    const ranked = [{ s: 1 }, { s: 0.9 }, { s: RUNNER_UP_SHARE }, { s: 0.79 }];
    expect(worthOffering(ranked, byScore)).toEqual([{ s: 1 }, { s: 0.9 }, { s: RUNNER_UP_SHARE }]);
    expect(worthOffering([{ s: 0.5 }, { s: 0.38 }], byScore)).toEqual([{ s: 0.5 }]);
    expect(worthOffering([], byScore)).toEqual([]);
  });
});

describe('every kind of suggestion is cut the same way', () => {
  it('tool names: list_file is told list_files, not save_memory too; list_directory nothing (one shared word is no match)', () => {
    const names = defaultTools.map((t) => t.name);
    expect(resolveToolName('list_file', names)).toMatchObject({ suggestions: ['list_files'] });
    expect(resolveToolName('list_directory', names)).toEqual({ kind: 'unknown', suggestions: [] });
    // Close runner-ups all stay.
    expect(resolveToolName('get_weather', ['get_weather_forecast', 'get_weather_history', 'send_email'])).toMatchObject({
      suggestions: ['get_weather_forecast', 'get_weather_history'],
    });
  });

  it('parameter names', () => {
    const schema = { type: 'object', properties: { file_path: { type: 'string' }, file_mode: { type: 'string' }, recursive: { type: 'boolean' } } };
    expect(renameUnknown({ filepaths: 'a', x: 1 }, schema).near.filepaths).toEqual(['file_path']);
  });

  it('enum values', () => {
    expect(closestValues('celcius', ['celsius', 'fahrenheit', 'kelvin'])).toEqual(['celsius']);
    expect(closestValues('c', ['celsius', 'fahrenheit', 'kelvin'])).toEqual(['celsius']);
    expect(closestValues('zzz', ['celsius', 'fahrenheit'])).toEqual([]);
  });
});
