// Content layer: a file body the model wants written must be the real thing, not an elided sketch
// ("// ... rest of code") and not a body cut off mid-way. Markers only count as whole comment lines
// in the body's own language, which is what keeps spread/rest, Ellipsis, variadics and "Loading..."
// strings out of it.
import type { Problem } from './types.ts';
import { bareEllipsisIsCode, commentStyle, langFromPath, sniffLang, type Lang } from './code-lang.ts';
import { bracketsCheckable, scanBrackets } from './code-scan.ts';
import { commentText, isElisionComment, isInlinePlaceholder } from './code-markers.ts';

export function checkContent(content: string, hint?: { path?: string }): Problem[] {
  const lang: Lang = langFromPath(hint?.path) ?? sniffLang(content);
  const problems: Problem[] = [];
  const markers = findMarkerLines(content, lang);
  if (markers.length > 0) {
    const shown = markers.slice(0, 3).map((m) => `line ${m.line}: ${m.text.trim().slice(0, 60)}`).join('; ');
    problems.push({
      category: 'placeholder_content',
      path: '$',
      message:
        `The content elides code instead of containing it (${shown}). ` +
        'Send the complete file body with every placeholder replaced by the real code.',
    });
  }
  const cut = truncation(content, lang);
  if (cut) problems.push({ category: 'syntax_error', path: '$', message: cut });
  return problems;
}

export interface MarkerLine {
  line: number;
  text: string;
}

export function findMarkerLines(content: string, lang: Lang): MarkerLine[] {
  const style = commentStyle(lang);
  const lines = content.split('\n');
  const bodies = lines.map((l) => commentText(l, style));
  const isComment = (k: number): boolean => bodies[k] !== undefined;
  const out: MarkerLine[] = [];
  for (let k = 0; k < lines.length; k++) {
    const raw = lines[k]!;
    const t = raw.trim();
    if (t === '') continue;
    const body = bodies[k];
    let hit = false;
    if (body !== undefined) {
      // A comment paragraph or commented-out example mentions "..." for other reasons.
      const boxed = isComment(k - 1) && isComment(k + 1);
      hit = !boxed && isElisionComment(body);
    } else if ((t === '...' || t === '…') && !bareEllipsisIsCode(lang)) {
      hit = true;
    } else if (isInlinePlaceholder(t, lang)) {
      hit = true;
    }
    if (hit) out.push({ line: k + 1, text: raw });
  }
  return out;
}

function truncation(content: string, lang: Lang): string | undefined {
  if (!bracketsCheckable(lang)) return undefined;
  const r = scanBrackets(content, lang);
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
