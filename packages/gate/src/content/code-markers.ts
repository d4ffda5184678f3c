// What an elision marker says. The wording comes from how assistants elide code ("... existing code
// ...", "rest of the function", "unchanged", "your code here"); TODO/FIXME notes are deliberately
// not markers: working code is full of them.
// A comment line can be a megabyte of dots or spaces: where an ellipsis sits is found by scanning,
// not by a lazy or unanchored pattern, and no pattern has two quantifiers that can share one run of
// spaces, so every check is linear in the line.
import type { CommentStyle } from './code-lang.ts';

/** The text of a line that is entirely a comment, without the comment syntax; undefined otherwise. */
export function commentText(line: string, style: CommentStyle): string | undefined {
  const t = line.trim();
  if (t === '') return undefined;
  for (const [open, close] of style.block) {
    if (t.startsWith(open) && t.endsWith(close) && t.length >= open.length + close.length) {
      return t.slice(open.length, t.length - close.length).trim();
    }
  }
  for (const open of style.line) {
    if (t.startsWith(open)) {
      // Doc comments (`///`, `//!`) document; they do not stand in for code.
      if (open === '//' && /^\/\/[/!]/.test(t)) return undefined;
      // `#!` shebangs, `#include`, `#[attr]` are not comments.
      if (open === '#' && /^#(!|include|define|if|endif|else|pragma|\[|region|endregion)/.test(t)) return undefined;
      return t
        .slice(open.length)
        .replace(/^[/#\-*!]+/, '')
        .trim();
    }
  }
  // Continuation line of a block comment (` * ...`).
  if (style.block.length > 0 && /^\*(\s|$)/.test(t)) return t.slice(1).trim();
  return undefined;
}

const ELLIPSIS = String.raw`(?:\.{3,}|…)`;
const JUST_ELLIPSIS = new RegExp(`^[\\s\\[\\](){}<>]*${ELLIPSIS}[\\s\\[\\](){}<>]*$`);

/** End of the ellipsis (`…`, or a run of three dots or more, all of it) that starts at `i`; -1 if none. */
function ellipsisEnd(s: string, i: number): number {
  if (s[i] === '…') return i + 1;
  let j = i;
  while (s[j] === '.') j++;
  return j - i >= 3 ? j : -1;
}

/** Start of the ellipsis that ends `s` before any trailing white space; -1 if it does not end in one. */
function trailingEllipsisStart(s: string): number {
  const e = s.trimEnd().length;
  if (s[e - 1] === '…') return e - 1;
  let r = e;
  while (s[r - 1] === '.') r--;
  return e - r >= 3 ? r : -1;
}

/** What `.` in a pattern does not match. */
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** `s.replace(/…\s*$/, '')`: without the ellipsis (the last one) that ends it. */
export function withoutTrailingEllipsis(s: string): string {
  const start = trailingEllipsisStart(s);
  return start < 0 ? s : s.slice(0, start);
}

/** `/^…\s*(.*)$/`: the text after a leading ellipsis, or undefined. */
export function afterLeadingEllipsis(b: string): string | undefined {
  const e = ellipsisEnd(b, 0);
  if (e < 0) return undefined;
  const rest = b.slice(e).trimStart();
  return LINE_BREAK.test(rest) ? undefined : rest;
}

/** `/^(.*?)\s*…\s*$/`: the text before a trailing ellipsis, or undefined. */
export function beforeTrailingEllipsis(b: string): string | undefined {
  const start = trailingEllipsisStart(b);
  if (start < 0) return undefined;
  const before = b.slice(0, start).trimEnd();
  return LINE_BREAK.test(before) ? undefined : before;
}
// Words that say "something is left out here" (not merely "this comment trails off").
const CODE_WORDS = /\b(code|existing|rest|other|others|remaining|more|previous|unchanged|omitted|implementation|logic|etc)\b/i;

const SAYS_ELIDED: RegExp[] = [
  /\brest of (the |your |this )?(code|file|function|method|class|component|implementation|module|logic|body|script|config|configuration|test|tests|file's|functions|methods|props|styles|content|page|template|imports)\b/i,
  /\b(existing|other|previous|remaining|original)\s+(\w+\s+){0,2}((remains?|stays?|is|are)\s*)?(unchanged|the same|as (is|before))\b/i,
  /\b(remains?|stays?|left|kept) (unchanged|the same|as is)\b/i,
  /^\s*((\.{3}|…)\s*)?unchanged\s*((\.{3}|…|\.)\s*)?$/i,
  /\bsame as (before|above|previous|original)\b/i,
  /\b(omitted|elided|truncated|trimmed|skipped|abbreviated) for (brevity|clarity|space|simplicity)\b/i,
  /\b(code|implementation|details?|logic|content) (omitted|elided|truncated)\b/i,
];

// Said in any sentence length, these still only mean "code goes here".
const STRONG: RegExp[] = [
  /\byour (code|logic|implementation) (goes )?here\b/i,
  /\badd (your |the |more |\w+ )?(logic|code|implementation) here\b/i,
  /\b(implement|implementation) (goes )?here\b/i,
  /^\s*TODO:?\s*implement(\s+(this|me|it|here))?\s*(\.\s*)?$/i,
  /\bexisting code\b/i,
  /^<\s*placeholder\s*>$/i,
];

/** Does this comment body say that code was left out? */
export function isElisionComment(body: string): boolean {
  const b = body.trim();
  if (b === '') return false;
  if (JUST_ELLIPSIS.test(b)) return true;
  // Notes about work to do are not elisions ("TODO: implement" alone is caught below).
  if (/^(TODO|FIXME|XXX|HACK|NOTE|BUG)\b/i.test(b) && !/^TODO:?\s*implement(\s+(this|me|it|here))?\s*\.?$/i.test(b)) return false;
  const words = (s: string): number => s.split(/\s+/).filter((w) => /\w/.test(w)).length;
  const n = words(b);
  const hasEllipsis = b.includes('...') || b.includes('…');
  // A sentence that merely contains "remains unchanged" is prose; short or elided, it is a marker.
  if (STRONG.some((re) => re.test(b))) return true;
  // Commas mark a sentence of prose, not a marker.
  if ((n <= 7 || hasEllipsis) && !b.includes(',') && SAYS_ELIDED.some((re) => re.test(b))) return true;
  // "...and then" continues a sentence from the line above; an elision has a space after the dots.
  const lead = afterLeadingEllipsis(b);
  const leadEnd = ellipsisEnd(b, 0);
  const glued = leadEnd >= 0 && /\w/.test(b[leadEnd] ?? '') && (!(b.endsWith('...') || b.endsWith('…')) || /^\W*(and|or|but|then|so|which|that)\b/i.test(b));
  if (lead !== undefined && !glued) {
    const rest = withoutTrailingEllipsis(lead);
    if (words(rest) <= 4) return true;
    if (words(rest) <= 6 && CODE_WORDS.test(rest)) return true;
  }
  const before = beforeTrailingEllipsis(b);
  if (before !== undefined) {
    const w = words(before);
    if (w >= 1 && w <= 8 && CODE_WORDS.test(before) && !/\betc\b/i.test(before)) return true;
    if (w <= 4 && /\b(etc|and so on|and more)\.?$/i.test(before)) return true;
  }
  return false;
}

/**
 * Placeholders that are not comments: `<placeholder>`, `your code here` alone on a line, and `{ ... }`
 * as a whole body where `...` is not itself code (Python's Ellipsis, Lua's varargs).
 */
export function isInlinePlaceholder(line: string, opts: { ellipsisIsCode: boolean }): boolean {
  if (/^<\s*(placeholder|your[ _-]code[ _-]here|insert[^>]{0,30}here)\s*>$/i.test(line)) return true;
  if (/^(your code here|\.\.\.\s*your code\s*\.\.\.)$/i.test(line)) return true;
  if (!opts.ellipsisIsCode && /^[^"'`]*\{\s*(\.{3}|…)\s*\}\s*;?$/.test(line) && !/\{\s*\.\.\.\s*\w/.test(line)) return true;
  return false;
}
