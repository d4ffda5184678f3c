// A bracket scanner that knows just enough lexical syntax to skip strings, template literals,
// comments, (in JS) regex literals and JSX text, so that `"{"`, `// )` or `<p>Step 1) …</p>` never
// count. It is not a parser: it answers one question, "does this body end with brackets still
// open?", which is what a cut-off file looks like, and says which lines start inside a string (a
// line of `...` in a template literal or a docstring is text, not an elision).
import type { Lang } from './code-lang.ts';

export interface BracketReport {
  /** Openers never closed, innermost last, with their 1-based line. */
  open: Array<{ ch: string; line: number }>;
  /** Closers that matched nothing or the wrong opener. */
  stray: number;
  /** The body ended inside a string, template or block comment. */
  unterminated: boolean;
  /** 1-based lines that start inside a string or template literal, ascending. */
  quoted: number[];
}

export interface ScanOptions {
  /** JS with JSX elements (`.jsx`, `.tsx`, React `.js`): their text and attributes are no code. */
  jsx?: boolean;
}

const PAIRS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

/** Languages whose bracket structure is regular enough to judge; others are never checked. */
export function bracketsCheckable(lang: Lang): boolean {
  // PHP is left out: its files are HTML templates as often as code, and `'` in HTML text is no quote.
  return ['js', 'c', 'go', 'rust', 'csharp', 'java', 'css', 'json', 'python', 'lua'].includes(lang);
}

export function scanBrackets(src: string, lang: Lang, opts: ScanOptions = {}): BracketReport {
  const js = lang === 'js';
  const jsx = js && opts.jsx === true;
  const hashComment = lang === 'python' || lang === 'php';
  const slashComment = lang !== 'python' && lang !== 'lua';
  const dashComment = lang === 'lua';
  const stack: Array<{ ch: string; line: number }> = [];
  // For JS template literals: the stack depth at which each `${` was opened.
  const templates: number[] = [];
  // JSX: what the scanner is inside, innermost last. `tag`: an element's `<name attr=…`; `children`:
  // its text up to `</name>`; `code`: a `{…}` in either, as JS again (its `{` is at stack depth `depth`).
  const frames: Array<{ kind: 'tag' | 'children' } | { kind: 'code'; depth: number }> = [];
  const quoted: number[] = [];
  let stray = 0;
  let line = 1;
  let i = 0;
  const n = src.length;
  let prevSignificant = ''; // last non-space char outside strings/comments, for regex detection
  let regexEnd: ((i: number) => number) | undefined;
  const report = (unterminated: boolean): BracketReport => ({ open: stack, stray, unterminated, quoted });

  /** Counts the line breaks in src[from, to); `inString`: the lines they start are quoted. */
  const lines = (from: number, to: number, inString: boolean): void => {
    for (let j = from; j < to; j++) {
      if (src.charCodeAt(j) !== 10) continue;
      line++;
      if (inString) quoted.push(line);
    }
  };

  const skipTo = (end: string, from: number, inString = false): number => {
    const k = src.indexOf(end, from);
    if (k < 0) return -1;
    lines(from, k, inString);
    return k + end.length;
  };

  // Skips a quoted string starting at i (src[i] is the quote); returns the index after it or -1.
  const skipString = (q: string, from: number, multiline: boolean): number => {
    let j = from + 1;
    while (j < n) {
      const c = src[j];
      if (c === '\\') {
        if (src[j + 1] === '\n') {
          line++;
          quoted.push(line);
        }
        j += 2;
        continue;
      }
      if (c === q) return j + 1;
      if (c === '\n') {
        if (!multiline) return j; // unterminated single-line string: resync at the newline
        line++;
        quoted.push(line);
      }
      j++;
    }
    return -1;
  };

  /** Where a JSX element may start: `<` after an operator, an opening bracket or `return`. */
  const jsxStartsAt = (at: number): boolean => {
    const next = src.charCodeAt(at + 1);
    if (!(next === 62 || (next >= 65 && next <= 90) || (next >= 97 && next <= 122))) return false; // `>` or a letter
    if (!(prevSignificant === '' || '(,=:[!&|?{};>'.includes(prevSignificant))) {
      if (!/[a-z]/.test(prevSignificant)) return false;
      let w = at;
      while (w > 0 && /\s/.test(src[w - 1]!)) w--;
      const end = w;
      while (w > 0 && /[A-Za-z]/.test(src[w - 1]!)) w--;
      if (!['return', 'yield', 'await', 'default', 'case'].includes(src.slice(w, end))) return false;
    }
    // `<T,>(x) => …` and `<T extends U>` are type parameters, not elements.
    const m = /^<[A-Za-z_$][\w$]*\s*(,|extends\b)/.exec(src.slice(at, at + 80));
    return m === null;
  };

  /** One step inside a JSX tag or its children (the top frame); returns the next index. */
  const jsxStep = (frame: { kind: 'tag' | 'children' }): number => {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      return i + 1;
    }
    if (c === '{') {
      stack.push({ ch: '{', line });
      frames.push({ kind: 'code', depth: stack.length });
      prevSignificant = '{';
      return i + 1;
    }
    if (frame.kind === 'tag') {
      if (c === '"' || c === "'") {
        const k = skipTo(c, i + 1);
        return k < 0 ? n : k;
      }
      if (c === '/' && src[i + 1] === '>') {
        frames.pop();
        prevSignificant = 'a';
        return i + 2;
      }
      if (c === '>') {
        frames[frames.length - 1] = { kind: 'children' };
        return i + 1;
      }
      return i + 1;
    }
    // Children: text, nested elements and the closing tag.
    if (c !== '<') {
      let j = i + 1;
      while (j < n && src[j] !== '<' && src[j] !== '{' && src[j] !== '\n') j++;
      return j;
    }
    if (src[i + 1] === '/') {
      const k = src.indexOf('>', i);
      if (k < 0) return n;
      lines(i, k, false);
      frames.pop();
      prevSignificant = 'a';
      return k + 1;
    }
    // `<` before a name or `>` opens an element; before anything else it is text (`1 < 2`).
    const next = src.charCodeAt(i + 1);
    if (next === 62) {
      frames.push({ kind: 'children' });
      return i + 2;
    }
    if ((next >= 65 && next <= 90) || (next >= 97 && next <= 122)) frames.push({ kind: 'tag' });
    return i + 1;
  };

  while (i < n) {
    // (Never `frames[-1]`: an out-of-bounds read takes V8 off its fast path for the whole loop.)
    const frame = frames.length > 0 ? frames[frames.length - 1] : undefined;
    if (frame !== undefined && frame.kind !== 'code') {
      i = jsxStep(frame);
      continue;
    }
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
      if (k < 0) return report(true);
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
        const k = skipTo(`]${eq}]`, i + 4 + eq.length);
        if (k < 0) return report(true);
        i = k;
        continue;
      }
      const k = src.indexOf('\n', i);
      i = k < 0 ? n : k;
      continue;
    }
    // Strings.
    if (lang === 'python' && (c === '"' || c === "'") && src[i + 1] === c && src[i + 2] === c) {
      const k = skipTo(c + c + c, i + 3, true);
      if (k < 0) return report(true);
      i = k;
      prevSignificant = 'a';
      continue;
    }
    if (lang === 'lua' && c === '[' && /^\[=*\[/.test(src.slice(i, i + 8))) {
      const eq = /^\[(=*)\[/.exec(src.slice(i, i + 8))![1]!;
      const k = skipTo(`]${eq}]`, i + 2 + eq.length, true);
      if (k < 0) return report(true);
      i = k;
      continue;
    }
    if (c === '"' || (c === "'" && lang !== 'rust')) {
      const k = skipString(c, i, false);
      if (k < 0) return report(true);
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
      const k = skipTo('`', i + 1, true);
      if (k < 0) return report(true);
      i = k;
      prevSignificant = 'a';
      continue;
    }
    if (c === '`' && js) {
      const r = skipTemplate(i + 1);
      if (r < 0) return report(true);
      i = r;
      prevSignificant = 'a';
      continue;
    }
    if (jsx && c === '<' && jsxStartsAt(i)) {
      frames.push(src[i + 1] === '>' ? { kind: 'children' } : { kind: 'tag' });
      i += src[i + 1] === '>' ? 2 : 1;
      continue;
    }
    if (js && c === '/' && regexAllowedAfter(prevSignificant)) {
      regexEnd ??= regexLiterals(src);
      const end = regexEnd(i);
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
        if (r < 0) return report(true);
        i = r;
        prevSignificant = 'a';
        continue;
      }
      const top = stack[stack.length - 1];
      if (c === '}' && frame?.kind === 'code' && frame.depth === stack.length && top?.ch === '{') {
        // End of a JSX `{…}`: back to the tag or the text around it.
        stack.pop();
        frames.pop();
        i++;
        continue;
      }
      if (top && top.ch === PAIRS[c]) stack.pop();
      else stray++;
    }
    prevSignificant = c;
    i++;
  }
  return report(templates.length > 0);

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
      if (ch === '\n') {
        line++;
        quoted.push(line);
      }
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
