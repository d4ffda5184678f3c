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
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source as the checker input: the template literal is the point
    const src = 'const a = \'{[(\';\nconst b = `${x} }`;\n// )))\nconst re = /[{(]/g;\nconst c = "]";\n';
    expect(cats(src, 'x.ts')).toEqual([]);
  });

  it('sniffs the language when there is no path', () => {
    expect(cats('def f(x: int = ...) -> None:\n    ...\n')).toEqual([]);
    expect(cats("import { x } from '../../../../src/gate/x';\nfunction g() {\n  // ...\n}\n")).toContain('placeholder_content');
  });
});

describe('language constructs that look like elision are code', () => {
  it('Lua varargs: `...`, `{ ... }` and select("#", ...) in a vararg function', () => {
    const src = `local function pack(...)
  local args = { ... }
  local n = select('#', ...)
  return {
    ...
  }
end

function M.log(fmt, ...)
  print(string.format(fmt, ...))
end
`;
    expect(cats(src, 'pack.lua')).toEqual([]);
    expect(cats(src)).toEqual([]);
    // Without a vararg function, a `...` line stands for code.
    expect(cats('local function f(a)\n  ...\nend\n', 'f.lua')).toContain('placeholder_content');
    expect(cats('local function f(a)\n  local t = { ... }\nend\n', 'f.lua')).toContain('placeholder_content');
  });

  it('spread and rest in JavaScript and TypeScript', () => {
    const src = `type Fn = (...args: unknown[]) => void;
export function call<T extends unknown[]>(fn: (...a: T) => void, ...rest: T) {
  const merged = {
    ...defaults,
    ...options,
  };
  return fn(...rest, ...[merged]);
}
`;
    expect(cats(src, 'call.ts')).toEqual([]);
    expect(cats('final list = [...a, ...?b];\nvoid main() {}\n', 'a.dart')).toEqual([]);
  });

  it('Python Ellipsis and stub bodies, in .pyi files and Protocol classes', () => {
    const stub = `from typing import Any, overload

def f(x: int) -> int: ...
class C:
    attr: int = ...
    @overload
    def m(self, x: int) -> int: ...
    def n(self, *args: Any, **kwargs: Any) -> None:
        ...
`;
    expect(cats(stub, 'c.pyi')).toEqual([]);
    expect(cats('class P(Protocol):\n    def f(self) -> int:\n        ...\n\nx = a[..., 0]\ny = Ellipsis\n', 'p.py')).toEqual([]);
  });

  it('Go and C variadics', () => {
    expect(
      cats('package main\n\nfunc sum(nums ...int) int {\n\treturn len(nums)\n}\n\nfunc main() {\n\tsum(xs...)\n\t_ = [...]int{1, 2}\n}\n', 'sum.go'),
    ).toEqual([]);
    expect(
      cats(
        '#include <stdarg.h>\nint sum(int n, ...) {\n  va_list ap;\n  va_start(ap, n);\n  va_end(ap);\n  return 0;\n}\n#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)\n',
        'sum.c',
      ),
    ).toEqual([]);
    expect(cats('template <typename... Ts>\nvoid f(Ts... ts) {\n  g(ts...);\n  auto n = sizeof...(Ts);\n}\n', 'f.cpp')).toEqual([]);
    expect(cats('class A {\n  void f(String... xs) {}\n}\n', 'A.java')).toEqual([]);
  });

  it('Rust ranges and struct update syntax', () => {
    const src = `fn main() {
    for i in 0..10 {}
    let a = &v[..];
    let b = &v[1..];
    match x {
        0..=9 => {}
        _ => {}
    }
    let s = S { a: 1, ..Default::default() };
}
`;
    expect(cats(src, 'main.rs')).toEqual([]);
  });

  it('brackets, quotes and slashes in JSX text and attributes are text', () => {
    const src = `export function Help() {
  return (
    <div title="{ (" data-x='[['>
      Press ( or [ to begin; don't close it (yet
      see http://example.com/a) [docs
      <Item label="{" onClick={() => go({ to: '(' })} />
      {items.map((x) => (
        <p key={x}>{x}</p>
      ))}
    </div>
  );
}
`;
    expect(cats(src, 'Help.tsx')).toEqual([]);
    expect(cats(src, 'Help.jsx')).toEqual([]);
    expect(cats(src)).toEqual([]);
    // A component cut off inside its JSX is still cut off.
    const cut = src.slice(0, src.indexOf('        <p key'));
    expect(cats(cut, 'Help.tsx')).toEqual(['syntax_error']);
    // In a .ts file there is no JSX: `<T,>` and comparisons stay what they are.
    expect(cats('export const id = <T,>(x: T) => x;\nexport function f(a: number, b: number) {\n  return a < b && b > 0;\n}\n', 'id.ts')).toEqual([]);
  });

  it('regex and template literals', () => {
    const src = `const re = /[(\\[{]/g;
const r2 = /\\{+/;
const help = \`
Usage:
  cmd [options] (
  ...
  \${name} {
\`;
export { re, r2, help };
`;
    expect(cats(src, 'cli.js')).toEqual([]);
    expect(cats(src, 'cli.ts')).toEqual([]);
    // The same `...` line outside the template is an elision.
    expect(cats('export function f() {\n  ...\n}\n', 'f.js')).toContain('placeholder_content');
  });
});
