// A bracket scanner that knows just enough lexical syntax to skip strings, template literals,
// comments and (in JS) regex literals, so that `"{"` or `// )` never count. It is not a parser: it
// answers one question, "does this body end with brackets still open?", which is what a cut-off file
// looks like.
import type { Lang } from './code-lang.ts';

export interface BracketReport {
  /** Openers never closed, innermost last, with their 1-based line. */
  open: Array<{ ch: string; line: number }>;
  /** Closers that matched nothing or the wrong opener. */
  stray: number;
  /** The body ended inside a string, template or block comment. */
  unterminated: boolean;
}

const PAIRS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

/** Languages whose bracket structure is regular enough to judge; others are never checked. */
export function bracketsCheckable(lang: Lang): boolean {
  // PHP is left out: its files are HTML templates as often as code, and `'` in HTML text is no quote.
  return ['js', 'c', 'go', 'rust', 'csharp', 'java', 'css', 'json', 'python', 'lua'].includes(lang);
}

export function scanBrackets(src: string, lang: Lang): BracketReport {
  const js = lang === 'js';
  const hashComment = lang === 'python' || lang === 'php';
  const slashComment = lang !== 'python' && lang !== 'lua';
  const dashComment = lang === 'lua';
  const stack: Array<{ ch: string; line: number }> = [];
  // For JS template literals: the stack depth at which each `${` was opened.
  const templates: number[] = [];
  let stray = 0;
  let line = 1;
  let i = 0;
  const n = src.length;
  let prevSignificant = ''; // last non-space char outside strings/comments, for regex detection
  let regexEnd: ((i: number) => number) | undefined;

  const skipTo = (end: string, from: number): number => {
    const k = src.indexOf(end, from);
    if (k < 0) return -1;
    for (let j = from; j < k; j++) if (src.charCodeAt(j) === 10) line++;
    return k + end.length;
  };

  // Skips a quoted string starting at i (src[i] is the quote); returns the index after it or -1.
  const skipString = (q: string, from: number, multiline: boolean): number => {
    let j = from + 1;
    while (j < n) {
      const c = src[j];
      if (c === '\\') {
        if (src[j + 1] === '\n') line++;
        j += 2;
        continue;
      }
      if (c === q) return j + 1;
      if (c === '\n') {
        if (!multiline) return j; // unterminated single-line string: resync at the newline
        line++;
      }
      j++;
    }
    return -1;
  };

  while (i < n) {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    // Comments.
    if (slashComment && c === '/' && src[i + 1] === '/') {
      const k = src.indexOf('\n', i);
      i = k < 0 ? n : k;
      continue;
    }
    if (slashComment && c === '/' && src[i + 1] === '*') {
      const k = skipTo('*/', i + 2);
      if (k < 0) return { open: stack, stray, unterminated: true };
      i = k;
      continue;
    }
    if (hashComment && c === '#' && !(lang === 'php' && src[i + 1] === '[')) {
      const k = src.indexOf('\n', i);
      i = k < 0 ? n : k;
      continue;
    }
    if (dashComment && c === '-' && src[i + 1] === '-') {
      if (src.startsWith('[[', i + 2) || /^\[=*\[/.test(src.slice(i + 2, i + 10))) {
        const eq = /^\[(=*)\[/.exec(src.slice(i + 2, i + 10))![1]!;
        const k = skipTo(']' + eq + ']', i + 4 + eq.length);
        if (k < 0) return { open: stack, stray, unterminated: true };
        i = k;
        continue;
      }
      const k = src.indexOf('\n', i);
      i = k < 0 ? n : k;
      continue;
    }
    // Strings.
    if (lang === 'python' && (c === '"' || c === "'") && src[i + 1] === c && src[i + 2] === c) {
      const k = skipTo(c + c + c, i + 3);
      if (k < 0) return { open: stack, stray, unterminated: true };
      i = k;
      prevSignificant = 'a';
      continue;
    }
    if (lang === 'lua' && c === '[' && /^\[=*\[/.test(src.slice(i, i + 8))) {
      const eq = /^\[(=*)\[/.exec(src.slice(i, i + 8))![1]!;
      const k = skipTo(']' + eq + ']', i + 2 + eq.length);
      if (k < 0) return { open: stack, stray, unterminated: true };
      i = k;
      continue;
    }
    if (c === '"' || (c === "'" && lang !== 'rust')) {
      const k = skipString(c, i, false);
      if (k < 0) return { open: stack, stray, unterminated: true };
      i = k;
      prevSignificant = 'a';
      continue;
    }
    if (c === "'" && lang === 'rust') {
      // A char literal ('x', '\n', '{') or a lifetime ('a): only the former is skipped.
      const m = /^'(\\.[^']*|[^'\\\n])'/.exec(src.slice(i, i + 12));
      i += m ? m[0].length : 1;
      prevSignificant = 'a';
      continue;
    }
    if (c === '`' && (lang === 'go' || lang === 'sql')) {
      const k = skipTo('`', i + 1);
      if (k < 0) return { open: stack, stray, unterminated: true };
      i = k;
      prevSignificant = 'a';
      continue;
    }
    if (c === '`' && js) {
      const r = skipTemplate(i + 1);
      if (r < 0) return { open: stack, stray, unterminated: true };
      i = r;
      prevSignificant = 'a';
      continue;
    }
    if (js && c === '/' && regexAllowedAfter(prevSignificant)) {
      const end = (regexEnd ??= regexLiterals(src))(i);
      if (end >= 0) {
        i = end;
        prevSignificant = 'a';
        continue;
      }
    }
    if (c === '(' || c === '[' || c === '{') {
      stack.push({ ch: c, line });
    } else if (c === ')' || c === ']' || c === '}') {
      if (js && c === '}' && templates.length && templates[templates.length - 1] === stack.length) {
        // End of a `${…}` substitution: continue the template literal.
        templates.pop();
        const r = skipTemplate(i + 1);
        if (r < 0) return { open: stack, stray, unterminated: true };
        i = r;
        prevSignificant = 'a';
        continue;
      }
      const top = stack[stack.length - 1];
      if (top && top.ch === PAIRS[c]) stack.pop();
      else stray++;
    }
    prevSignificant = c;
    i++;
  }
  return { open: stack, stray, unterminated: templates.length > 0 };

  // Scans template text from `from` to the closing backtick (returns index after it) or to a `${`
  // (pushes a marker and returns the index after `${`); -1 when the body ends first.
  function skipTemplate(from: number): number {
    let j = from;
    while (j < n) {
      const ch = src[j];
      if (ch === '\\') {
        j += 2;
        continue;
      }
      if (ch === '\n') line++;
      if (ch === '`') return j + 1;
      if (ch === '$' && src[j + 1] === '{') {
        templates.push(stack.length);
        return j + 2;
      }
      j++;
    }
    return -1;
  }
}

/** What `.` in a pattern does not match: an escape cannot be followed by one. */
const isLineBreak = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/** The longest JS regex literal worth looking for (`/re/flags` within this many characters). */
const REGEX_SPAN = 400;

/**
 * Ends of JS regex literals in `src`: `end(i)` is the index after the `/…/flags` that starts at `i`
 * (a `/`), or -1. No line break inside, escapes (`\/`) and classes (`[/]`) skipped, at most
 * `REGEX_SPAN` characters. Scans from different slashes that reach one character in the same state
 * (in a class or not) go on alike, so each is scanned once: linear in `src` however many slashes
 * start a scan (`(/[(/[(/[…` rescanned up to 400 characters per slash).
 */
export function regexLiterals(src: string): (i: number) => number {
  const n = src.length;
  // By 2·position + in-class: 0 not scanned yet, -1 no closing slash, else closing slash + 1.
  let closing: Int32Array | undefined;
  const visited: number[] = [];
  const closeFrom = (from: number): number => {
    closing ??= new Int32Array(2 * n + 2);
    visited.length = 0;
    let j = from;
    let inClass = 0;
    let found = -1;
    while (j < n) {
      const known = closing[2 * j + inClass]!;
      if (known !== 0) {
        found = known > 0 ? known - 1 : -1;
        break;
      }
      visited.push(2 * j + inClass);
      const c = src.charCodeAt(j);
      if (c === 92) {
        // `\x`: an escape, never of a line break
        if (j + 1 >= n || isLineBreak(src.charCodeAt(j + 1))) break;
        j += 2;
      } else if (c === 10) {
        break;
      } else if (inClass) {
        if (c === 93) inClass = 0; // `]`
        j++;
      } else if (c === 91) {
        inClass = 1; // `[`
        j++;
      } else if (c === 47) {
        found = j; // `/`
        break;
      } else {
        j++;
      }
    }
    for (const k of visited) closing[k] = found >= 0 ? found + 1 : -1;
    return found;
  };
  return (i) => {
    if (src.charCodeAt(i + 1) === 47) return -1; // `//` is a comment, not an empty pattern
    const end = Math.min(n, i + REGEX_SPAN);
    const close = closeFrom(i + 1);
    if (close < 0 || close >= end) return -1;
    let j = close + 1;
    while (j < end && src.charCodeAt(j) >= 97 && src.charCodeAt(j) <= 122) j++; // flags
    return j;
  };
}

function regexAllowedAfter(prev: string): boolean {
  return prev === '' || '(,=:[!&|?{};+-*%<>~^'.includes(prev);
}
