import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME_CHARS } from './limits.ts';
import { resolveToolName, toolNameMatcher } from './tool-name.ts';
import { nameTokens } from './words.ts';

describe('resolveToolName', () => {
  it('returns an exact name as is', () => {
    expect(resolveToolName('get_weather', ['get_weather', 'get_time'])).toEqual({ kind: 'exact', name: 'get_weather' });
  });

  it('normalises case, separators and namespace prefixes', () => {
    const tools = ['biology.get_cell_info', 'player_stats_getLastGame'];
    expect(resolveToolName('biology_get_cell_info', tools)).toEqual({ kind: 'normalised', name: 'biology.get_cell_info' });
    expect(resolveToolName('functions.Biology-Get-Cell-Info', tools)).toEqual({ kind: 'normalised', name: 'biology.get_cell_info' });
    expect(resolveToolName('default_api.player_stats_getLast_game', tools)).toEqual({ kind: 'normalised', name: 'player_stats_getLastGame' });
  });

  it('proposes biology.get_cell_info for bio.get_cell_info when it is the one clear candidate', () => {
    const r = resolveToolName('bio.get_cell_info', ['biology.get_cell_info', 'chemistry.get_element_info', 'physics.get_constant']);
    expect(r).toMatchObject({ kind: 'similar', candidate: 'biology.get_cell_info' });
  });

  it('proposes a typo fix and a dropped namespace', () => {
    expect(resolveToolName('ecology_data_precipipitation_stats', ['ecology_data_precipitation_stats'])).toMatchObject({
      candidate: 'ecology_data_precipitation_stats',
    });
    expect(resolveToolName('FindTrains', ['Trains_1_GetTrainTickets', 'Trains_1_FindTrains'])).toMatchObject({ candidate: 'Trains_1_FindTrains' });
  });

  it('blocks an ambiguous name with the three best suggestions', () => {
    const tools = ['get_weather_forecast', 'get_weather_history', 'get_weather_alerts', 'send_email'];
    const r = resolveToolName('get_weather', tools);
    expect(r.kind).toBe('unknown');
    expect(r.kind === 'unknown' && r.suggestions).toHaveLength(3);
    expect(r.kind === 'unknown' && [...r.suggestions].sort()).toEqual(['get_weather_alerts', 'get_weather_forecast', 'get_weather_history']);
  });

  it('does not propose an unrelated tool', () => {
    const r = resolveToolName('get_average_temperature', ['calculate_bmi']);
    expect(r).toMatchObject({ kind: 'unknown', suggestions: [] });
    expect(resolveToolName('sports_team_get_roster', ['sports_team_get_top_scorer']).kind).not.toBe('normalised');
  });

  it('splits camelCase and separators into words', () => {
    expect(nameTokens('getHTTPResponse_v2.fetch-all')).toEqual(['get', 'http', 'response', 'v2', 'fetch', 'all']);
  });
});

describe('a written name longer than any tool name', () => {
  it('is no tool, and is not ranked against the toolset', () => {
    const long = `read_file${'_'.repeat(MAX_TOOL_NAME_CHARS)}`;
    expect(resolveToolName(long, ['read_file', 'write_file'])).toEqual({ kind: 'unknown', suggestions: [] });
    expect(resolveToolName(long.slice(0, MAX_TOOL_NAME_CHARS), ['read_file', 'write_file']).kind).not.toBe('exact');
  });
});

describe('MCP tools (<server>__<tool>)', () => {
  const everything = ['echo', 'get-env', 'get-sum', 'get-tiny-image', 'get-roots-list', 'trigger-long-running-operation'].map((n) => `everything__${n}`);

  it('ranks by the part after __: the shared server part is no evidence between its tools', () => {
    const r = resolveToolName('everything__add', everything);
    expect(r).toMatchObject({ kind: 'unknown' });
    expect(r.kind === 'unknown' && r.suggestions[0]).toBe('everything__get-sum');
    expect(resolveToolName('everything__sum', everything)).toMatchObject({ suggestions: ['everything__get-sum'] });
    expect(resolveToolName('everything__get_sum', everything)).toEqual({ kind: 'normalised', name: 'everything__get-sum' });
  });

  it('compares the whole name across servers, and a tool part written without its server', () => {
    expect(resolveToolName('crm__get-sum', [...everything, 'crm__find_customer']).kind).toBe('unknown');
    expect(resolveToolName('get_tiny_image', everything)).toMatchObject({ kind: 'similar', candidate: 'everything__get-tiny-image' });
  });
});

describe('one matcher for calls and for text calls', () => {
  it('exact, or the same up to case, separators and namespace prefixes, api included', () => {
    const match = toolNameMatcher(['get_weather', 'math.hypot', 'a_b', 'a-b']);
    expect(match('get_weather')).toEqual({ kind: 'exact', name: 'get_weather' });
    expect(match('api.GetWeather')).toEqual({ kind: 'normalised', name: 'get_weather' });
    expect(match('functions.api:math_hypot')).toEqual({ kind: 'normalised', name: 'math.hypot' });
    expect(match('AB')).toEqual({ kind: 'ambiguous', names: ['a_b', 'a-b'] });
    expect(match('get_wether')).toBeUndefined();
  });
});
