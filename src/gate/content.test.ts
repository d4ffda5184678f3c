import { describe, expect, it } from 'vitest';
import { checkContent } from './content.ts';

const cats = (content: string, path?: string) => checkContent(content, path ? { path } : undefined).map((p) => p.category);

describe('checkContent', () => {
  it('passes a React component with {...props} and rest parameters', () => {
    const src = `import React from 'react';

export function Button({ label, ...rest }: Props) {
  const merged = { ...defaults, ...rest };
  return <button {...merged} onClick={() => console.log(\`clicked \${label}...\`)}>{label}</button>;
}
`;
    expect(cats(src, 'src/Button.tsx')).toEqual([]);
  });

  it('passes a Python Protocol stub with Ellipsis bodies', () => {
    const src = `from typing import Protocol, Callable

class Reader(Protocol):
    def read(self, n: int = ...) -> bytes: ...
    def close(self) -> None:
        ...

Handler = Callable[..., None]
`;
    expect(cats(src, 'reader.py')).toEqual([]);
  });

  it('passes Go variadics, Lua varargs, ranges, strings with "..." and TODO notes', () => {
    expect(cats('package main\n\nfunc sum(xs ...int) int {\n\t// TODO: overflow check\n\treturn 0\n}\n', 'sum.go')).toEqual([]);
    expect(cats('local function f(...)\n  local n = select("#", ...)\n  for i = 1, n do print("Loading...") end\nend\n', 'f.lua')).toEqual([]);
    expect(cats('fn main() {\n    for i in 0..10 { println!("{}...", i); }\n}\n', 'main.rs')).toEqual([]);
  });

  it('blocks a component ending in "// ... rest of the component"', () => {
    const src = `export function Profile({ user }: Props) {
  const [tab, setTab] = useState('posts');
  // ... rest of the component
}
`;
    expect(cats(src, 'Profile.tsx')).toContain('placeholder_content');
  });

  it('blocks "# ... existing code ..." and "your code here" in Python', () => {
    expect(cats('def main():\n    # ... existing code ...\n    run()\n', 'main.py')).toContain('placeholder_content');
    expect(cats('def handler(event):\n    # your code here\n    pass\n', 'h.py')).toContain('placeholder_content');
  });

  it('blocks a bare "..." line standing for code in TypeScript but not in Python', () => {
    expect(cats('class A {\n  constructor() {\n    ...\n  }\n}\n', 'a.ts')).toContain('placeholder_content');
    expect(cats('class A:\n    def f(self):\n        ...\n', 'a.py')).toEqual([]);
  });

  it('flags unbalanced braces when the body is cut off', () => {
    const cut = `export function parse(input: string) {
  const out = [];
  for (const line of input.split('\\n')) {
    if (line.startsWith('#')) {
      out.push(line.slice(1));
`;
    expect(cats(cut, 'parse.ts')).toEqual(['syntax_error']);
  });

  it('ignores brackets inside strings, template literals, comments and regexes', () => {
    const src = "const a = '{[(';\nconst b = `${x} }`;\n// )))\nconst re = /[{(]/g;\nconst c = \"]\";\n";
    expect(cats(src, 'x.ts')).toEqual([]);
  });

  it('sniffs the language when there is no path', () => {
    expect(cats('def f(x: int = ...) -> None:\n    ...\n')).toEqual([]);
    expect(cats("import { x } from './x';\nfunction g() {\n  // ...\n}\n")).toContain('placeholder_content');
  });
});
