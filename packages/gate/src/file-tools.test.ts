import { describe, expect, it } from 'vitest';
import { withFileParams } from './file-tools.ts';
import { gate, toolSpec } from './index.ts';
import type { JSONSchema, ToolSpec } from './types.ts';

const str = { type: 'string' } as const;
const tool = (name: string, properties: Record<string, JSONSchema>): ToolSpec => withFileParams(toolSpec({ name, parameters: { type: 'object', properties } }));
// The agents' own tools, as their schemas name the parameters.
const WRITE = tool('Write', { file_path: str, content: str });
const EDIT = tool('Edit', { file_path: str, old_string: str, new_string: str, replace_all: { type: 'boolean' } });
const APPLY_PATCH = tool('apply_patch', { input: str });
const EXEC = tool('exec_command', { cmd: str, workdir: str });
const SHELL = tool('shell', { command: { type: 'array', items: str } });
const call = (name: string, args: unknown) => ({ id: 'c1', name, arguments: JSON.stringify(args) });
const kind = (t: ToolSpec, args: unknown) => gate(call(t.name, args), [t]).verdict;

const CUT = 'export function add(a: number, b: number) {\n  return a + b;\n}\n\n// ... rest of the code unchanged\n';
const WHOLE = 'export function add(a: number, b: number) {\n  return a + b;\n}\n';

describe("withFileParams: the file-carrying parameters of the coding agents' tools", () => {
  it("finds a whole file beside a path, an edit's new text, a patch tool's text and a shell command", () => {
    expect(WRITE).toMatchObject({ codeParams: ['content'] });
    expect(EDIT).toMatchObject({ fragmentParams: ['new_string'] });
    expect(EDIT.codeParams).toBeUndefined();
    expect(APPLY_PATCH).toMatchObject({ patchParams: ['input'] });
    expect(EXEC).toMatchObject({ patchParams: ['cmd'] });
    expect(SHELL).toMatchObject({ patchParams: ['command'] });
    // No path beside it: a "text" parameter is not a file.
    expect(tool('send_message', { text: str, channel: str })).toEqual(
      toolSpec({ name: 'send_message', parameters: { type: 'object', properties: { text: str, channel: str } } }),
    );
  });

  it('Write.content cut short with a placeholder is blocked; the whole file passes', () => {
    expect(kind(WRITE, { file_path: 'src/add.ts', content: CUT })).toBe('blocked');
    expect(kind(WRITE, { file_path: 'src/add.ts', content: WHOLE })).toBe('pass');
  });

  it('Edit.new_string: a placeholder is blocked; a fragment whose brackets do not balance passes', () => {
    expect(kind(EDIT, { file_path: 'src/add.ts', old_string: 'return a + b;', new_string: '// ... existing code ...\n  return a + b + 0;' })).toBe('blocked');
    expect(kind(EDIT, { file_path: 'src/add.ts', old_string: 'if (a) {', new_string: 'if (a && b) {' })).toBe('pass');
  });

  it("an apply_patch text: a new file with a placeholder is blocked, an update's added lines only for placeholders", () => {
    const added = (body: string) =>
      `*** Begin Patch\n*** Add File: src/add.ts\n${body
        .split('\n')
        .slice(0, -1)
        .map((l) => `+${l}`)
        .join('\n')}\n*** End Patch\n`;
    expect(kind(APPLY_PATCH, { input: added(CUT) })).toBe('blocked');
    expect(kind(APPLY_PATCH, { input: added(WHOLE) })).toBe('pass');
    const update = '*** Begin Patch\n*** Update File: src/add.ts\n@@ export function add\n-  return a + b;\n+  if (a > b) {\n*** End Patch\n';
    expect(kind(APPLY_PATCH, { input: update })).toBe('pass');
    const elided = '*** Begin Patch\n*** Update File: src/add.ts\n@@\n+// ... rest of the code unchanged\n*** End Patch\n';
    const v = gate(call('apply_patch', { input: elided }), [APPLY_PATCH]);
    expect(v.verdict).toBe('blocked');
    expect(v.verdict === 'blocked' && v.message).toContain('src/add.ts');
  });

  it("a patch as a heredoc in exec_command's cmd or a shell argv is checked; other commands pass", () => {
    const heredoc = (body: string) => `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.py\n${body}\n*** End Patch\nEOF\n`;
    expect(kind(EXEC, { cmd: heredoc('+def f():\n+    # ... rest of the implementation') })).toBe('blocked');
    expect(kind(EXEC, { cmd: heredoc('+def f():\n+    return 1') })).toBe('pass');
    expect(kind(SHELL, { command: ['bash', '-lc', heredoc('+# ... rest of code here')] })).toBe('blocked');
    expect(kind(EXEC, { cmd: 'ls -la ... && echo "// ... rest"' })).toBe('pass');
  });

  it('a spec toolSpec did not make keeps its keywords read by the gate, with file parameters found or not', () => {
    // Made by hand: the x-rebound-code keyword unread. withFileParams finds only a fragment here, so the
    // gate must still read the keyword (toolSpec's specs and what withFileParams makes of them are taken as they are).
    const parameters: JSONSchema = { type: 'object', properties: { file_path: str, new_string: str, source_code: { type: 'string', 'x-rebound-code': true } } };
    const handMade = withFileParams({ name: 'Patch', parameters });
    expect(handMade).toMatchObject({ fragmentParams: ['new_string'] });
    expect(kind(handMade, { file_path: 'src/add.ts', new_string: 'x', source_code: CUT })).toBe('blocked');
    expect(kind(withFileParams(toolSpec({ name: 'Patch', parameters })), { file_path: 'src/add.ts', new_string: 'x', source_code: CUT })).toBe('blocked');
  });
});
