import { describe, expect, it } from 'vitest';
import { gate, isDestructive } from './index.ts';
import { buildPathIndex } from './paths/paths.ts';
import { MAX_RENAME_CANDIDATES } from './limits.ts';
import type { ToolSpec, Verdict } from './types.ts';

const call = (name: string, args: unknown) => ({ id: 'c1', name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
const blockedOf = (v: Verdict) => {
  if (v.verdict !== 'blocked') throw new Error(`expected blocked, got ${v.verdict}`);
  return v;
};

const tools: ToolSpec[] = [
  {
    name: 'biology.get_cell_info',
    parameters: { type: 'object', properties: { cell_type: { type: 'string' }, detailed: { type: 'boolean' } }, required: ['cell_type'] },
  },
  {
    name: 'chemistry.get_element_info',
    parameters: { type: 'object', properties: { element: { type: 'string' } }, required: ['element'] },
  },
  {
    name: 'review_code',
    parameters: { type: 'object', properties: { code: { type: 'string' }, with_verdict: { type: 'boolean' } }, required: ['code'] },
  },
  {
    name: 'write_file',
    parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    codeParams: ['content'],
  },
  {
    name: 'read_file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    pathParams: ['path'],
  },
];

describe('gate', () => {
  it('passes a valid call untouched', () => {
    const v = gate(call('review_code', { code: 'x = 1' }), tools);
    expect(v).toEqual({ verdict: 'pass', category: 'valid', call: { id: 'c1', name: 'review_code', args: { code: 'x = 1' } }, invented: [] });
  });

  it('repairs bio.get_cell_info to biology.get_cell_info when the arguments fit', () => {
    const v = gate(call('bio.get_cell_info', { cell_type: 'neuron' }), tools);
    expect(v).toMatchObject({ verdict: 'repaired', category: 'phantom_tool', call: { name: 'biology.get_cell_info' } });
  });

  it('blocks a similar name when the arguments do not fit that tool', () => {
    const v = blockedOf(gate(call('bio.get_cell_info', { organism: 'mouse' }), tools));
    expect(v.category).toBe('phantom_tool');
    expect(v.suggestions[0]).toBe('biology.get_cell_info');
  });

  it('repairs {"with_verdict": "True"} to a boolean', () => {
    const v = gate(call('review_code', { code: 'x', with_verdict: 'True' }), tools);
    expect(v).toMatchObject({ verdict: 'repaired', category: 'wrong_type', call: { args: { code: 'x', with_verdict: true } } });
  });

  it('records an unknown parameter as invented and runs the call without it', () => {
    const v = gate(call('review_code', { code: 'x', language_hint: 'py' }), tools);
    expect(v).toMatchObject({ verdict: 'repaired', category: 'unknown_parameter', invented: ['language_hint'], call: { args: { code: 'x' } } });
  });

  it('blocks an ambiguous tool name with three suggestions and says so', () => {
    const weather: ToolSpec[] = ['get_weather_forecast', 'get_weather_history', 'get_weather_alerts'].map((name) => ({ name, parameters: { type: 'object' } }));
    const v = blockedOf(gate(call('get_weather', { city: 'Oslo' }), weather));
    expect(v.category).toBe('phantom_tool');
    expect(v.suggestions).toHaveLength(3);
    expect(v.message).toContain('Did you mean');
  });

  it('blocks truncated JSON instead of closing it', () => {
    const v = blockedOf(gate(call('write_file', '{"path": "a.ts", "content": "export const a = [1, 2'), tools));
    expect(v.category).toBe('malformed_json');
    expect(v.message).toMatch(/cut off/);
  });

  it('blocks `...` standing for content in the arguments', () => {
    const v = blockedOf(gate(call('review_code', '{"code": "x", "lines": [1, 2, ...]}'), tools));
    expect(v.category).toBe('malformed_json');
  });

  it('blocks a code body that elides the rest of the file', () => {
    const body = 'export function App() {\n  return <div />;\n}\n\n// ... rest of the component\n';
    const v = blockedOf(gate(call('write_file', { path: 'src/App.tsx', content: body }), tools));
    expect(v.category).toBe('placeholder_content');
    expect(v.problems[0]?.path).toBe('$.content');
  });

  it('blocks a path that does not exist, with suggestions and the folder listing', () => {
    const paths = buildPathIndex(['src/gate/index.ts', 'src/gate/types.ts', 'src/loop/turn.ts', 'README.md']);
    const v = blockedOf(gate(call('read_file', { path: 'src/gate/indx.ts' }), tools, { paths }));
    expect(v.category).toBe('invalid_path');
    expect(v.suggestions[0]).toBe('src/gate/index.ts');
    expect(v.listing?.folder).toBe('src/gate');
    expect(gate(call('read_file', { path: 'src/gate/index.ts' }), tools, { paths }).verdict).toBe('pass');
  });

  it('resolves a call without a name to the one tool its arguments fit', () => {
    const v = gate(call('[{', { element: 'Fe' }), tools);
    expect(v).toMatchObject({ verdict: 'repaired', category: 'phantom_tool', call: { name: 'chemistry.get_element_info' } });
  });

  it('never guesses a tool and a value at once: a guessed name needs arguments that fit as they stand', () => {
    const histogram: ToolSpec = {
      name: 'create_histogram',
      parameters: {
        type: 'object',
        properties: { data: { type: 'array' }, bins: { type: 'integer', description: 'Number of bins. Default is 10.' } },
        required: ['data', 'bins'],
      },
    };
    // Called by its name, the described default fills `bins`; with no name, that would be a second guess.
    expect(gate(call('create_histogram', { data: [1, 2] }), [histogram])).toMatchObject({ verdict: 'repaired', call: { args: { data: [1, 2], bins: 10 } } });
    expect(gate(call('[{', { data: [1, 2] }), [histogram]).verdict).toBe('blocked');
    expect(gate(call('create_histogramm', { data: [1, 2] }), [histogram]).verdict).toBe('blocked');
    expect(gate(call('create_histogramm', { data: [1, 2], bins: 5 }), [histogram])).toMatchObject({ verdict: 'repaired', call: { name: 'create_histogram' } });
  });
});

describe('content language from the file name', () => {
  it("reads write_file's path (not a declared path parameter) as the language of the body", () => {
    // `...` on its own line is Python's Ellipsis in a Protocol, but an elision in JavaScript.
    const body = 'from typing import Protocol\n\nclass Greeter(Protocol):\n    def greet(self, name: str) -> str:\n        ...\n';
    expect(gate(call('write_file', { path: 'greeter.py', content: body }), tools).verdict).toBe('pass');
    const js = 'export function greet(name) {\n  ...\n}\n';
    expect(gate(call('write_file', { path: 'greet.js', content: js }), tools).verdict).toBe('blocked');
  });
});

describe('declared defaults', () => {
  const search: ToolSpec = {
    name: 'get_neuron_coordinates',
    parameters: {
      type: 'object',
      properties: { neuron_type: { type: 'string' }, brain_region: { type: 'string', default: 'All' }, species: { type: 'string' } },
      required: ['neuron_type', 'brain_region', 'species'],
    },
  };

  it('fills a missing required parameter from its declared default', () => {
    const v = gate(call('get_neuron_coordinates', { neuron_type: 'GABA', species: 'mouse' }), [search]);
    expect(v.verdict).toBe('repaired');
    if (v.verdict !== 'repaired') return;
    expect(v.call.args).toEqual({ neuron_type: 'GABA', species: 'mouse', brain_region: 'All' });
    expect(v.repairs).toEqual([{ kind: 'fill_default', path: '$.brain_region', to: '"All"', category: 'missing_required' }]);
  });

  it('never makes up a required value without a default', () => {
    const v = blockedOf(gate(call('get_neuron_coordinates', { neuron_type: 'GABA' }), [search]));
    expect(v.category).toBe('missing_required');
    expect(v.message).toMatch(/species/);
  });
});

describe('caps on what the gate reads', () => {
  it('renames a misspelt parameter, but not among more unknown names than MAX_RENAME_CANDIDATES', () => {
    expect(gate(call('biology.get_cell_info', { cell_typ: 'neuron' }), tools)).toMatchObject({ verdict: 'repaired', call: { args: { cell_type: 'neuron' } } });
    const flood: Record<string, unknown> = { cell_typ: 'neuron' };
    for (let i = 0; i <= MAX_RENAME_CANDIDATES; i++) flood[`extra_${i}`] = i;
    const v = blockedOf(gate(call('biology.get_cell_info', flood), tools));
    expect(v.category).toBe('missing_required');
    expect(v.invented).toContain('cell_typ');
  });

  it('quotes a model value in a message only up to a bounded length', () => {
    const index = buildPathIndex(['src/app.ts']);
    const v = blockedOf(gate(call('read_file', { path: `src/${'a'.repeat(500_000)}.ts` }), tools, { paths: index }));
    expect(v.category).toBe('invalid_path');
    expect(v.problems[0]!.message.length).toBeLessThan(400);
    const phantom = blockedOf(gate(call('x'.repeat(1_000_000), {}), tools));
    expect(phantom.message.length).toBeLessThan(2_000);
  });
});

describe('the real workspace tools: no guess runs delete_file (issue 24)', async () => {
  const { defaultTools } = await import('../../../functions/index.ts');
  const specs: ToolSpec[] = defaultTools.map(({ run: _run, ...spec }) => spec);
  const destructive = ['write_file', 'patch_file', 'delete_file'];

  it('marks write, patch and delete destructive, the rest not', () => {
    expect(
      specs
        .filter(isDestructive)
        .map((t) => t.name)
        .sort(),
    ).toEqual([...destructive].sort());
  });

  it('blocks update_customer_profile, remove_file, erase_file and file_delete, suggesting no destructive tool, listing the available ones', () => {
    for (const name of ['update_customer_profile', 'remove_file', 'erase_file', 'file_delete']) {
      const v = blockedOf(gate(call(name, { path: 'notes.md' }), specs));
      expect(v.category, name).toBe('phantom_tool');
      expect(
        v.suggestions.filter((s) => destructive.includes(s)),
        name,
      ).toEqual([]);
      expect(v.message, name).not.toContain('Did you mean: "delete_file"');
      for (const t of specs) expect(v.message, name).toContain(t.name);
    }
    expect(blockedOf(gate(call('remove_file', { path: 'notes.md' }), specs)).message).toContain('never guessed');
  });

  it('repairs a typo of delete_file’s own name', () => {
    expect(gate(call('delet_file', { path: 'notes.md' }), specs)).toMatchObject({ verdict: 'repaired', call: { name: 'delete_file' } });
  });

  it('does not pick a destructive tool by the arguments alone when the name is missing', () => {
    expect(gate(call('', { path: 'a.md', search: 'x', replace: 'y' }), specs).verdict).toBe('blocked');
  });
});

describe('a wrapper that names tools inside its arguments', () => {
  it('suggests the tools multi_tool_use.parallel names, as named', () => {
    const args = {
      tool_uses: [
        { recipient_name: 'functions.write_file', parameters: {} },
        { recipient_name: 'functions.review_code', parameters: {} },
      ],
    };
    expect(blockedOf(gate(call('multi_tool_use.parallel', args), tools)).suggestions).toEqual(['write_file', 'review_code']);
  });
});
