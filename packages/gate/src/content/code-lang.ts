// Which language a file body is in decides what a comment looks like and whether `...` is code.
// The path extension wins; without one we sniff, and when sniffing is unsure we accept every comment
// syntax (a marker still has to be a whole comment line, so that stays safe).

export type Lang =
  | 'python'
  | 'shell'
  | 'ruby'
  | 'yaml'
  | 'toml'
  | 'js'
  | 'c'
  | 'go'
  | 'rust'
  | 'csharp'
  | 'java'
  | 'php'
  | 'css'
  | 'lua'
  | 'sql'
  | 'html'
  | 'markdown'
  | 'json'
  | 'unknown';

const EXT: Record<string, Lang> = {
  py: 'python',
  pyi: 'python',
  pyx: 'python',
  pyw: 'python',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  fish: 'shell',
  ps1: 'shell',
  rb: 'ruby',
  rake: 'ruby',
  gemspec: 'ruby',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  ini: 'toml',
  cfg: 'toml',
  conf: 'toml',
  js: 'js',
  mjs: 'js',
  cjs: 'js',
  jsx: 'js',
  ts: 'js',
  mts: 'js',
  cts: 'js',
  tsx: 'js',
  vue: 'html',
  svelte: 'html',
  astro: 'html',
  c: 'c',
  h: 'c',
  cc: 'c',
  cpp: 'c',
  cxx: 'c',
  hpp: 'c',
  hh: 'c',
  m: 'c',
  mm: 'c',
  go: 'go',
  rs: 'rust',
  cs: 'csharp',
  java: 'java',
  kt: 'java',
  kts: 'java',
  scala: 'java',
  swift: 'java',
  dart: 'java',
  groovy: 'java',
  gradle: 'java',
  zig: 'c',
  proto: 'c',
  php: 'php',
  css: 'css',
  scss: 'css',
  less: 'css',
  sass: 'css',
  lua: 'lua',
  sql: 'sql',
  hs: 'lua',
  html: 'html',
  htm: 'html',
  xml: 'html',
  svg: 'html',
  md: 'markdown',
  mdx: 'markdown',
  markdown: 'markdown',
  rst: 'markdown',
  txt: 'markdown',
  json: 'json',
  jsonc: 'js',
  json5: 'js',
};

const BASENAME: Record<string, Lang> = {
  dockerfile: 'shell',
  makefile: 'shell',
  gemfile: 'ruby',
  rakefile: 'ruby',
  '.bashrc': 'shell',
};

export function langFromPath(path: string | undefined): Lang | undefined {
  if (!path) return undefined;
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (BASENAME[base]) return BASENAME[base];
  const dot = base.lastIndexOf('.');
  if (dot < 0) return undefined;
  return EXT[base.slice(dot + 1)];
}

/**
 * White space within one line, at a line start. `^\s*` under the m flag also crosses line breaks,
 * so every line start rescanned all the blank lines after it (a quarter of a second for 4 KB of newlines).
 * Any match that crossed a break also matches from the line start after it: the answers are the same.
 */
const INDENT = String.raw`^[^\S\r\n\u2028\u2029]*`;
const atLineStart = (pattern: string, flags = 'm'): RegExp => new RegExp(INDENT + pattern, flags);
// `\w.*` rather than `\w+.*`, and one way to split `import  a, b` into space and names: a pattern
// must not be able to divide one run of characters between two quantifiers.
const PY_DEF = atLineStart(String.raw`(def|class)\s+\w.*:\s*$`);
const PY_IMPORT = atLineStart(String.raw`(from\s+[\w.]+\s+)?import(\s+[\w.,][\w., ]*|\s+ )$`);
const JS_MODULE = atLineStart(String.raw`(import|export)\s.+from\s+['"]`);
const GO_PACKAGE = atLineStart(String.raw`package\s+\w+\s*$`);
const RUST_ITEM = atLineStart(String.raw`(fn|pub fn|use\s+\w+::|impl\b|struct\s+\w+\s*[{<])`);
const C_INCLUDE = atLineStart(String.raw`#include\s*[<"]`);
const LUA_FUNCTION = atLineStart(String.raw`local\s+\w+\s*=|\bfunction\s+[\w.:]+\(.*\)\s*$`);
const LUA_END = atLineStart(String.raw`end\s*$`);
const SQL_STATEMENT = atLineStart(String.raw`(SELECT|CREATE|INSERT|ALTER)\s`, 'im');

/** A cheap guess from the first lines; 'unknown' when nothing stands out. */
export function sniffLang(content: string): Lang {
  const head = content.slice(0, 4000);
  if (/^#!.*\bpython/.test(head)) return 'python';
  if (/^#!.*\b(ba|z)?sh\b/.test(head)) return 'shell';
  if (/^#!.*\b(node|deno|bun)\b/.test(head)) return 'js';
  const t = head.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    if (/^[[{]\s*"/.test(t)) return 'json';
  }
  if (/^\s*<(!doctype|html|template|div|script)\b/i.test(t)) return 'html';
  if (PY_DEF.test(head) || (PY_IMPORT.test(head) && /:\s*$/m.test(head) && !/[;{}]\s*$/m.test(head))) return 'python';
  if (JS_MODULE.test(head) || /\b(const|let)\s+\w+\s*=/.test(head) || /=>\s*[{(]/.test(head)) return 'js';
  if (GO_PACKAGE.test(head) && /\bfunc\b/.test(head)) return 'go';
  if (RUST_ITEM.test(head)) return 'rust';
  if (C_INCLUDE.test(head)) return 'c';
  if (LUA_FUNCTION.test(head) && LUA_END.test(head)) return 'lua';
  if (SQL_STATEMENT.test(head) && /;\s*$/m.test(head)) return 'sql';
  return 'unknown';
}

export type CommentStyle = { line: string[]; block: Array<[string, string]> };

const C_LIKE: CommentStyle = { line: ['//'], block: [['/*', '*/']] };

export function commentStyle(lang: Lang): CommentStyle {
  switch (lang) {
    case 'python':
    case 'shell':
    case 'ruby':
    case 'yaml':
    case 'toml':
      return { line: ['#'], block: [] };
    case 'php':
      return { line: ['//', '#'], block: [['/*', '*/']] };
    case 'css':
      return { line: ['//'], block: [['/*', '*/']] }; // `//` is valid in scss/less
    case 'lua':
    case 'sql':
      return {
        line: ['--'],
        block: [
          ['/*', '*/'],
          ['--[[', ']]'],
        ],
      };
    case 'html':
    case 'markdown':
      return {
        line: ['//', '#'],
        block: [
          ['<!--', '-->'],
          ['{/*', '*/}'],
          ['/*', '*/'],
        ],
      };
    case 'json':
      return { line: ['//'], block: [['/*', '*/']] };
    case 'js':
      return {
        line: ['//'],
        block: [
          ['{/*', '*/}'],
          ['/*', '*/'],
        ],
      };
    case 'unknown':
      return {
        line: ['//', '#', '--'],
        block: [
          ['{/*', '*/}'],
          ['/*', '*/'],
          ['<!--', '-->'],
        ],
      };
    default:
      return C_LIKE;
  }
}

/** Languages where a line holding only `...` is real code (Python's Ellipsis) or plain prose. */
export function bareEllipsisIsCode(lang: Lang): boolean {
  return ['python', 'markdown', 'yaml', 'json', 'shell', 'sql', 'html', 'css', 'toml', 'unknown'].includes(lang);
}
