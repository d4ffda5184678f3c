import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME_CHARS } from './limits.ts';
import { isReadOnly } from './annotations.ts';
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

describe('beyond a typo, a guess lands only on a tool known to change nothing (issues 24, 29)', () => {
  const workspace = ['read_file', 'write_file', 'patch_file', 'delete_file', 'list_files', 'search_files', 'save_memory', 'recall_memories'];
  const readOnly = (name: string) => ['read_file', 'list_files', 'search_files', 'recall_memories'].includes(name);

  it('repairs a near-certain typo of any tool’s own name', () => {
    expect(resolveToolName('delet_file', workspace, { readOnly })).toMatchObject({ kind: 'similar', candidate: 'delete_file' });
    expect(resolveToolName('delete_fle', workspace, { readOnly })).toMatchObject({ kind: 'similar', candidate: 'delete_file' });
    expect(resolveToolName('dleete_file', workspace, { readOnly })).toMatchObject({ kind: 'similar', candidate: 'delete_file' });
    expect(resolveToolName('Delete-File', workspace, { readOnly })).toEqual({ kind: 'normalised', name: 'delete_file' });
  });

  it('never repairs to or suggests a tool that may change something for a synonym, a reordering or a loose match, and says one was held back', () => {
    for (const written of ['remove_file', 'erase_file', 'file_delete', 'undelete_file', 'rm_file', 'delete', 'update_customer_profile', 'store_memory']) {
      const r = resolveToolName(written, workspace, { readOnly });
      expect(r.kind, written).toBe('unknown');
      expect(r.kind === 'unknown' && r.suggestions.filter((n) => !readOnly(n)), written).toEqual([]);
    }
    expect(resolveToolName('remove_file', workspace, { readOnly })).toMatchObject({ heldBack: true });
  });

  it('by default, judges by the name: without a read-only verb a tool is guessed only for a typo, whatever its verb', () => {
    // The review's three: verbs no list of destructive words had.
    expect(resolveToolName('flush', ['flush_db', 'get_db_stats'])).toMatchObject({ kind: 'unknown', suggestions: [] });
    expect(resolveToolName('deactivate', ['deactivate_user', 'get_user'])).toMatchObject({ kind: 'unknown', suggestions: [] });
    expect(resolveToolName('cancel_sub', ['cancel_subscription', 'list_subscriptions'])).toMatchObject({ kind: 'unknown', suggestions: [] });
    expect(resolveToolName('remove_user', ['delete_user', 'get_user']).kind).toBe('unknown');
    expect(resolveToolName('delete_usr', ['delete_user', 'get_user'])).toMatchObject({ kind: 'similar', candidate: 'delete_user' });
    expect(resolveToolName('drop_tables', ['drop_table'])).toMatchObject({ kind: 'similar', candidate: 'drop_table' });
    expect(resolveToolName('remove_table', ['drop_table'])).toMatchObject({ kind: 'unknown', suggestions: [] });
    expect(resolveToolName('cancel_subscriptoin', ['cancel_subscription'])).toMatchObject({ kind: 'similar', candidate: 'cancel_subscription' });
  });

  it('never guesses a tool that may change something from another word one letter away (issue 29’s closing note)', () => {
    for (const [written, tools] of [
      // The first letter added, dropped or changed: another word, not a slip.
      ['preset_config', ['reset_config', 'get_config']],
      ['skill_process', ['kill_process', 'list_processes']],
      ['prop_table', ['drop_table', 'describe_table']],
      ['elete_file', ['delete_file', 'read_file']],
      // A word the gate knows as a word of its own (its verb lists, OTHER_WORDS).
      ['clone_account', ['close_account', 'get_account']],
      ['stat_job', ['start_job', 'get_job']],
      ['flash_firmware', ['flush_firmware']],
      ['exit_post', ['edit_post']],
      ['deplete_user', ['delete_user']],
      ['change_card', ['charge_card']],
      // A word of the toolset's names.
      ['seed_invoice', ['send_invoice', 'seed_database']],
    ] as const) {
      const r = resolveToolName(written, tools);
      expect(r, written).toMatchObject({ kind: 'unknown' });
      expect(r.kind === 'unknown' && r.suggestions.filter((n) => !isReadOnly({ name: n })), written).toEqual([]);
    }
    expect(resolveToolName('preset_config', ['reset_config', 'get_config'])).toMatchObject({ heldBack: true });
  });

  it('still repairs a slip inside a word, a transposition and a plural, onto any tool', () => {
    for (const [written, tool] of [
      ['reset_confg', 'reset_config'],
      ['rest_config', 'reset_config'],
      ['sned_invoice', 'send_invoice'],
      ['kill_proces', 'kill_process'],
      ['drop_tables', 'drop_table'],
      ['close_acount', 'close_account'],
      ['delte_user', 'delete_user'],
    ] as const) {
      expect(resolveToolName(written, [tool, 'get_config']), written).toMatchObject({ kind: 'similar', candidate: tool });
    }
  });

  it('read-only tools need a match on the name as a whole, not a shared word or substring', () => {
    // profile ⊃ file, update ~ patch: no suggestion at all.
    expect(resolveToolName('update_customer_profile', ['read_file', 'patch_file', 'list_files'], { readOnly: () => true })).toEqual({
      kind: 'unknown',
      suggestions: [],
    });
    expect(resolveToolName('calculus_compute_derivative', ['calculus_compute_definite_integral'])).toEqual({ kind: 'unknown', suggestions: [] });
    expect(resolveToolName('get_gold_price', ['calculate_Bond_Price'])).toEqual({ kind: 'unknown', suggestions: [] });
    // Every word of one side matched in the other: still offered.
    expect(resolveToolName('get_weather', ['get_weather_forecast'])).toMatchObject({ suggestions: ['get_weather_forecast'] });
    expect(resolveToolName('fetch_weather', ['get_weather', 'send_email'])).toMatchObject({ kind: 'similar', candidate: 'get_weather' });
  });
});

describe("a server's tools never shadow the app's own (issue 18)", () => {
  const own = ['read_file', 'write_file', 'list_files'];
  const fromServer = (name: string) => name.startsWith('evil__');

  it('read_fil is still repaired to the own read_file when a server exposes read_file too', () => {
    expect(resolveToolName('read_fil', [...own, 'evil__read_file'], { fromServer })).toMatchObject({ kind: 'similar', candidate: 'read_file' });
    // Without the origin, the two tie and nothing is repaired: the origin is what decides.
    expect(resolveToolName('read_fil', [...own, 'evil__read_file']).kind).toBe('unknown');
  });

  it('own tools come first among equals; then names alphabetically', () => {
    const r = resolveToolName('read', ['read_file', 'aaa__read_file', 'evil__read_file'], { fromServer: (n) => n.includes('__') });
    expect(r.kind === 'unknown' ? r.suggestions : r.kind === 'similar' ? r.suggestions : []).toEqual(['read_file', 'aaa__read_file', 'evil__read_file']);
  });

  it("a name that says the server still goes to the server's tool", () => {
    expect(resolveToolName('evil__read_fil', [...own, 'evil__read_file'], { fromServer })).toMatchObject({ kind: 'similar', candidate: 'evil__read_file' });
  });
});

describe('isReadOnly: the one rule of what may be reached without being called by name (annotations.ts)', () => {
  it('trusts readOnlyHint where there are annotations, and reads the name where there are none', () => {
    expect(isReadOnly({ name: 'delete_file', annotations: { readOnlyHint: true } })).toBe(true);
    expect(isReadOnly({ name: 'get_weather', annotations: { destructiveHint: false } })).toBe(false);
    for (const name of ['get_weather', 'searchFiles', 'list_users', 'hotel_room_pricing_get', 'functions.lookup_order', 'count_rows', 'calculate_density']) {
      expect(isReadOnly({ name }), name).toBe(true);
    }
    for (const name of [
      'flush_db',
      'deactivate_user',
      'cancel_subscription',
      'get_or_create_user',
      'fetch_and_delete',
      'solve_quadratic',
      'send_email',
      'delete_file',
      'mat_mul',
      // A lookup verb beside a verb that acts.
      'show_notification',
      'count_vote',
      'check_out_cart',
      'get_share_link',
    ]) {
      expect(isReadOnly({ name }), name).toBe(false);
    }
  });
});
