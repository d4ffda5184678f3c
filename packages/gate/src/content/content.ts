// Content layer: a file body the model wants written must be the real thing, not an elided sketch
// ("// ... rest of code") and not a body cut off mid-way. Markers only count as whole comment lines
// in the body's own language, which is what keeps spread/rest, Ellipsis, variadics and "Loading..."
// strings out of it; a line of `...` that starts inside a string or template literal is text;
// Lua's `...` is code in a file with a vararg function; and the bracket check skips JSX text.
import type { Problem } from '../types.ts';
import { bareEllipsisIsCode, commentStyle, langFromPath, sniffLang, type Lang } from './code-lang.ts';
import { bracketsCheckable, scanBrackets, type BracketReport } from './code-scan.ts';
import { commentText, isElisionComment, isInlinePlaceholder } from './code-markers.ts';

export function checkContent(content: string, hint?: { path?: string }): Problem[] {
  const lang: Lang = langFromPath(hint?.path) ?? sniffLang(content);
  const problems: Problem[] = [];
  const scan = bracketsCheckable(lang) ? scanBrackets(content, lang, { jsx: mayHoldJsx(content, hint?.path) }) : undefined;
  const markers = findMarkerLines(content, lang, { quoted: scan?.quoted });
  if (markers.length > 0) {
    const shown = markers
      .slice(0, 3)
      .map((m) => `line ${m.line}: ${m.text.trim().slice(0, 60)}`)
      .join('; ');
    problems.push({
      category: 'placeholder_content',
      path: '$',
      message: `The content elides code instead of containing it (${shown}). Send the complete file body with every placeholder replaced by the real code.`,
    });
  }
  const cut = scan && truncation(content, scan);
  if (cut) problems.push({ category: 'syntax_error', path: '$', message: cut });
  return problems;
}

/** A fragment of a file (an edit's new text, a patch's added lines): its brackets need not balance, so its placeholders alone count. */
export function checkFragment(content: string, hint?: { path?: string }): Problem[] {
  return checkContent(content, hint).filter((p) => p.category === 'placeholder_content');
}

/** `.jsx`/`.tsx` always; `.js` (React) or no path when the body has a closing tag; `.ts` never. */
function mayHoldJsx(content: string, path: string | undefined): boolean {
  const ext = path ? path.slice(path.lastIndexOf('.') + 1).toLowerCase() : '';
  if (ext === 'jsx' || ext === 'tsx') return true;
  if (ext !== '' && !['js', 'mjs', 'cjs'].includes(ext)) return false;
  return content.includes('</') || content.includes('/>');
}

/** Lua's `...` is the varargs of a function declared with them (`function f(a, ...)`), not an elision. */
const LUA_VARARG_FUNCTION = /\bfunction\b[^\n(]{0,200}\([^)\n]{0,200}\.\.\.\s*\)/;

export interface MarkerLine {
  line: number;
  text: string;
}

export function findMarkerLines(content: string, lang: Lang, opts: { quoted?: readonly number[] } = {}): MarkerLine[] {
  const style = commentStyle(lang);
  const varargs = lang === 'lua' && LUA_VARARG_FUNCTION.test(content);
  // A line of `...` alone: code or prose in these languages. `{ ... }`: code only in Python and as varargs.
  const ellipsisIsCode = bareEllipsisIsCode(lang) || varargs;
  const braceEllipsisIsCode = lang === 'python' || varargs;
  const lines = content.split('\n');
  const bodies = lines.map((l) => commentText(l, style));
  const isComment = (k: number): boolean => bodies[k] !== undefined;
  const quoted = new Set(opts.quoted);
  const out: MarkerLine[] = [];
  for (let k = 0; k < lines.length; k++) {
    const raw = lines[k]!;
    const t = raw.trim();
    if (t === '') continue;
    const body = bodies[k];
    // In a string or template literal a line of `...` is text; a comment-like line there is judged
    // as one (a docstring's usage example elided with `# ... your logic ...` is still elided).
    const inString = quoted.has(k + 1);
    let hit = false;
    if (body !== undefined) {
      // A comment paragraph or commented-out example mentions "..." for other reasons.
      const boxed = isComment(k - 1) && isComment(k + 1);
      hit = !boxed && isElisionComment(body);
    } else if (inString) {
      hit = false;
    } else if ((t === '...' || t === '…') && !ellipsisIsCode) {
      hit = true;
    } else if (isInlinePlaceholder(t, { ellipsisIsCode: braceEllipsisIsCode })) {
      hit = true;
    }
    if (hit) out.push({ line: k + 1, text: raw });
  }
  return out;
}

function truncation(content: string, r: BracketReport): string | undefined {
  if (r.unterminated) return 'The content ends inside a string or comment: it looks cut off. Send the complete file body.';
  // Only a body that ends with openers still open and no stray closers is clearly cut off; a mixed
  // imbalance is more often our lexer being wrong than the file.
  // One bracket left open by a body that still ends on a closing line is more often conditional
  // compilation or a template than a cut: it takes two, or an ending mid-statement.
  const body = content.trimEnd();
  const lastLine = body.slice(body.lastIndexOf('\n') + 1).trim();
  const endsClosed = /[)\]}];?$|^end\b/.test(lastLine);
  if (r.open.length >= 1 && r.stray === 0 && (r.open.length >= 2 || !endsClosed)) {
    const first = r.open[0]!;
    return `The content ends with ${r.open.length} unclosed bracket(s) (the first "${first.ch}" opened on line ${first.line}): it looks cut off. Send the complete file body.`;
  }
  return undefined;
}
