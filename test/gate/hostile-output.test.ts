// Whatever a model writes — random text, any code units, broken JSON, pathological shapes — the gate
// with the real tools, and the extraction of calls written into the text, never throw and always
// answer with a well-formed verdict. Property-based (fast-check), at modest sizes so the suite stays
// fast; how the time grows with size is bench:gate --adversarial's business, not a test's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultTools } from '../../functions/index.ts';
import { buildPathIndex, type Category, gate, type GateContext, MAX_ARGUMENTS_CHARS, MAX_NESTING_DEPTH, type ToolSpec, type Verdict } from 'rebound-gate';
import { extractTextCalls } from 'rebound-gate/host';

const tools: ToolSpec[] = defaultTools.map(({ run: _run, ...spec }) => spec);
const names = tools.map((t) => t.name);
const context: GateContext = {
  paths: buildPathIndex([
    'README.md',
    'package.json',
    'src/index.ts',
    'src/app.ts',
    'src/lib/util.ts',
    'src/lib/parse.py',
    'docs/guide.md',
    'test/app.test.ts',
  ]),
};

const PROBLEM_CATEGORIES: Category[] = [
  'phantom_tool',
  'malformed_json',
  'missing_required',
  'wrong_type',
  'enum_violation',
  'unknown_parameter',
  'invalid_path',
  'placeholder_content',
  'syntax_error',
  'text_embedded_call',
];
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What every verdict must look like, whatever it says. */
function expectWellFormed(v: Verdict): void {
  expect(['pass', 'repaired', 'blocked']).toContain(v.verdict);
  expect(v.invented.every((k) => typeof k === 'string')).toBe(true);
  if (v.verdict === 'blocked') {
    expect(PROBLEM_CATEGORIES).toContain(v.category);
    expect(v.problems.length).toBeGreaterThan(0);
    expect(v.problems[0]!.category).toBe(v.category);
    for (const p of v.problems) {
      expect(PROBLEM_CATEGORIES).toContain(p.category);
      expect(typeof p.path).toBe('string');
      expect(p.message.length).toBeGreaterThan(0);
    }
    expect(typeof v.message).toBe('string');
    expect(v.message.length).toBeGreaterThan(0);
    expect(v.suggestions.length).toBeLessThanOrEqual(3);
    expect(v.suggestions.every((s) => typeof s === 'string')).toBe(true);
    return;
  }
  if (v.verdict === 'pass') expect(v.category).toBe('valid');
  else {
    expect(PROBLEM_CATEGORIES).toContain(v.category);
    expect(v.repairs.length).toBeGreaterThan(0);
    for (const r of v.repairs) expect(typeof r.kind).toBe('string');
  }
  expect(names).toContain(v.call.name);
  expect(isPlainObject(v.call.args)).toBe(true);
  // The loop serialises what it runs and what it stores: that must always work.
  expect(typeof JSON.stringify(v.call.args)).toBe('string');
}

// ---- generators ----------------------------------------------------------------------------------

const codeUnits = (maxLength: number) => fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength }).map((u) => String.fromCharCode(...u));
const pieces = <T extends string>(parts: T[], maxLength = 40) => fc.array(fc.constantFrom(...parts), { maxLength }).map((p) => p.join(''));

/** Pathological shapes, at sizes a test can afford. */
const shapes = fc
  .tuple(
    fc.integer({ min: 1, max: 3_000 }),
    fc.constantFrom(
      (k: number) => `\`\`\`${' '.repeat(k)}`,
      (k: number) => `\`\`\`json\n${' \n'.repeat(k)}\`\`\``,
      (k: number) => `{"path":${'['.repeat(k)}`,
      (k: number) => `{"path": "a", "x": ${'['.repeat(k)}${']'.repeat(k)}}`,
      (k: number) => `{"path":${'{"a":'.repeat(k)}1${'}'.repeat(k)}}`,
      (k: number) => `{"path":${'"'.repeat(k)}`,
      (k: number) => `{'path': '${"\\'".repeat(k)}`,
      (k: number) => `{"path": "${'.'.repeat(k)}"}`,
      (k: number) => `{"path": "${'/'.repeat(k)}"}`,
      (k: number) => `{"path": "${'\\\\'.repeat(k)}"}`,
      (k: number) => `{"path": "${'../'.repeat(k)}x"}`,
      (k: number) => `{"path": "${'src/lib/'.repeat(k)}util.tz"}`,
      (k: number) => `{"path": "src/a.ts", "content": ${JSON.stringify('// ... /* # -- <!-- '.repeat(k))}}`,
      (k: number) => `{"path": "src/a.ts", "content": ${JSON.stringify('f(['.repeat(k) + '"\'`'.repeat(k))}}`,
      (k: number) => `{"path": "a.py", "content": ${JSON.stringify(`x = [${'True, None, '.repeat(k)}]`)}}`,
      (k: number) => `{'path': 'README.md', 'x': [${'True, False, None, '.repeat(k)}]}`,
      (k: number) => `{"path": "README.md" ${'/* */ // c\n'.repeat(k)}}`,
      (k: number) => `{"path": "README.md"${Array.from({ length: k }, (_, i) => `,"k${i}":${i}`).join('')}}`,
      (k: number) => `{"path": "README.md", "${'x'.repeat(k)}": 1}`,
      (k: number) => `{"path": "README.md", "offset": "${'1'.repeat(k)}x"}`,
    ),
  )
  .map(([k, make]) => make(k));

const argumentsText = fc.oneof(
  codeUnits(120),
  fc.string({ maxLength: 120 }),
  fc.json({ maxDepth: 4 }),
  pieces([
    '{',
    '}',
    '[',
    ']',
    '"',
    "'",
    ',',
    ':',
    ' ',
    '\n',
    '//',
    '/*',
    '*/',
    '...',
    '…',
    'True',
    'None',
    '```',
    '```json\n',
    '"path"',
    '"content"',
    '"README.md"',
    '1',
    '"x"',
    '\\',
    '\u0000',
    '\ud800',
  ]),
  shapes,
);

/** A tool's own parameter names with values of any type: near-misses of real calls. */
const nearCall = fc.constantFrom(...tools).chain((t) =>
  fc
    .dictionary(
      fc.oneof(fc.constantFrom(...Object.keys(t.parameters.properties ?? {}), 'arguments', 'file_path', 'Path'), fc.string({ maxLength: 8 })),
      fc.jsonValue({ maxDepth: 3 }),
      { maxKeys: 5 },
    )
    .chain((args) =>
      fc.constantFrom(
        JSON.stringify(args),
        JSON.stringify(JSON.stringify(args)),
        `\`\`\`json\n${JSON.stringify(args, null, 2)}\n\`\`\``,
        JSON.stringify([args]),
        JSON.stringify(args).replace(/"/g, "'").replace(/true/g, 'True').replace(/}$/, ',}'),
      ),
    )
    .map((text) => ({ name: t.name, text })),
);

const toolName = fc.oneof(
  fc.constantFrom(...names),
  fc.constantFrom(...names).map((n) => n.toUpperCase().replace(/_/g, '-')),
  fc.constantFrom(...names).map((n) => `functions.${n}`),
  fc.constantFrom('', ' ', '[{', 'readFile', 'read_fil', 'write', 'functions.functions.list_files', 'HTTPServerGETRequest'),
  fc.string({ maxLength: 30 }),
  codeUnits(30),
);

// ---- properties ----------------------------------------------------------------------------------

describe('gate() with the real tools, on hostile model output', () => {
  it('answers every call with a well-formed verdict and never throws', () => {
    fc.assert(
      fc.property(toolName, argumentsText, (name, text) => {
        expectWellFormed(gate({ id: 'c', name, arguments: text }, tools, context));
      }),
      { numRuns: 1500 },
    );
  });

  it('does so for near-misses of each tool’s own parameters', () => {
    fc.assert(
      fc.property(nearCall, ({ name, text }) => {
        expectWellFormed(gate({ id: 'c', name, arguments: text }, tools, context));
      }),
      { numRuns: 1500 },
    );
  });

  it('blocks arguments nested 20,000 deep with a clear verdict, for every tool', () => {
    const deep = `{"path": "README.md", "x": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    for (const name of names) {
      const v = gate({ id: 'c', name, arguments: deep }, tools, context);
      expectWellFormed(v);
      expect(v).toMatchObject({ verdict: 'blocked', category: 'malformed_json' });
      if (v.verdict === 'blocked') expect(v.message).toContain(`more than ${MAX_NESTING_DEPTH} levels deep`);
    }
  });

  it('blocks 10 MB of arguments unread, with a short message that says the size and the limit', () => {
    const huge = JSON.stringify({ path: 'src/big.ts', content: 'x'.repeat(10_000_000) });
    const v = gate({ id: 'c', name: 'write_file', arguments: huge }, tools, context);
    expect(v).toMatchObject({ verdict: 'blocked', category: 'malformed_json' });
    if (v.verdict !== 'blocked') return;
    expect(v.message).toContain(`${huge.length.toLocaleString('en-US')} characters long, over the limit of ${MAX_ARGUMENTS_CHARS.toLocaleString('en-US')}`);
    expect(v.message).toMatch(/smaller call/);
    expect(v.message.length).toBeLessThan(1_000);
  });
});

describe('extractTextCalls with the real tools, on hostile model text', () => {
  const call = (name: string, args: string) => `{"name": "${name}", "arguments": ${args}}`;
  const text = fc.oneof(
    codeUnits(200),
    fc.string({ maxLength: 200 }),
    pieces(
      [
        '\n',
        ' ',
        '{',
        '[',
        ']',
        '}',
        ':',
        '=',
        '"',
        ',',
        ';',
        '```',
        '```json\n',
        '<tool_call>',
        '</tool_call>',
        '<function_call>',
        '<|im_start|>',
        '<|im_end|>',
        '[TOOL_CALLS]',
        '<?xml version="1.0"?>',
        'for example:',
        'read_file',
        call('read_file', '{"path": "README.md"}'),
        call('list_files', '{}'),
        '{"name": "write_file"',
        '"arguments": "{\\"path\\": \\"a\\"}"',
        'True',
        'None',
      ],
      30,
    ),
    fc.integer({ min: 1, max: 2_000 }).map((k) => `<tool_call>${call('read_file', `{"x": ${'['.repeat(k)}${']'.repeat(k)}}`)}</tool_call>`),
    fc.integer({ min: 1, max: 2_000 }).map((k) => '\n{'.repeat(k) + '\n}'.repeat(k % 7)),
  );

  it('never throws; every call it finds names a tool, has object arguments, and gates to a well-formed verdict', () => {
    fc.assert(
      fc.property(text, (t) => {
        const r = extractTextCalls(t, tools);
        expect(typeof r.visibleText).toBe('string');
        r.calls.forEach((c, i) => {
          expect(names).toContain(c.name);
          expect(isPlainObject(c.arguments)).toBe(true);
          // What the loop does with an extracted call.
          expectWellFormed(gate({ id: `t${i}`, name: c.name, arguments: JSON.stringify(c.arguments) }, tools, context));
        });
      }),
      { numRuns: 1500 },
    );
  });

  it('does not take a call nested past the depth cap (nothing downstream could serialise it)', () => {
    const deep = `<tool_call>${call('read_file', `{"path": "README.md", "x": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`)}</tool_call>`;
    const r = extractTextCalls(`Reading.\n${deep}`, tools);
    expect(r.calls).toEqual([]);
    const asString = `<tool_call>${call('read_file', JSON.stringify(`{"x": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`))}</tool_call>`;
    expect(extractTextCalls(asString, tools).calls).toEqual([]);
  });
});
