import { distance } from 'fastest-levenshtein';
import * as z from 'zod';
import { defineTool } from '../../src/tools/define.ts';
import { withDiffs } from '../../src/tools/diffs.ts';
import { fileDiff } from './diff.ts';
import { normalisePath } from './paths.ts';
import { fileText, splitLines } from './text.ts';
import { requireFile } from './tree.ts';

export const patchFile = defineTool({
  name: 'patch_file',
  description: 'Replace one exact piece of a file: search must match the current text exactly once (copy it from read_file, without line numbers).',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  schema: z.object({
    path: z.string().describe('File path relative to the workspace root.'),
    search: z.string().describe('The exact text to replace, including whitespace; must occur exactly once.'),
    replace: z.string().describe('The new text.'),
  }),
  pathParams: ['path'],
  codeParams: ['replace'],
  async run(args, { workspace }) {
    const path = normalisePath(args.path);
    const file = await requireFile(workspace, path);
    const text = fileText(file);
    if (text === null) throw new Error(`"${path}" is a binary file and cannot be patched. Use write_file with encoding "base64".`);
    if (args.search === '') {
      throw new Error('search is empty. Give the exact text to replace, or use write_file to replace the whole file.');
    }

    let { search, replace } = args;
    let at = occurrences(text, search);
    // Models write "\n" into a CRLF file; matching on the file's own line ends is what they meant.
    if (at.length === 0 && text.includes('\r\n') && /(?<!\r)\n/.test(search)) {
      const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');
      const alt = occurrences(text, crlf(search));
      if (alt.length > 0) {
        search = crlf(search);
        replace = crlf(replace);
        at = alt;
      }
    }

    if (at.length === 0) throw new Error(`search text not found in "${path}". ${noMatchHint(text, search)}`);
    if (at.length > 1) {
      const lines = at.slice(0, 5).map((i) => lineAt(text, i));
      throw new Error(
        `search text matched ${at.length} times in "${path}" (at lines ${lines.join(', ')}${at.length > 5 ? ', …' : ''}); it must match exactly once. ` +
          'Include more surrounding lines in search so it is unique.',
      );
    }

    const start = at[0] ?? 0;
    const updated = text.slice(0, start) + replace + text.slice(start + search.length);
    await workspace.write(path, updated, 'utf-8');
    const line = lineAt(text, start);
    const added = splitLines(replace).length;
    const result = {
      path,
      line,
      removed_lines: splitLines(search).length,
      added_lines: added,
      total_lines: splitLines(updated).length,
      preview: preview(updated, line, Math.max(added, 1)),
    };
    return withDiffs(result, [fileDiff(path, file, { content: updated, encoding: 'utf-8' })]);
  },
});

/** Start offsets of every occurrence, overlapping ones included: they are just as ambiguous. */
function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(search); i >= 0; i = text.indexOf(search, i + 1)) found.push(i);
  return found;
}

const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** The changed lines with two lines of context, numbered like read_file, so the model can check the edit. */
function preview(text: string, line: number, count: number): string {
  const lines = splitLines(text);
  const from = Math.max(1, line - 2);
  const to = Math.min(lines.length, line + Math.min(count, 15) + 1);
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`${n}\t${lines[n - 1] ?? ''}`);
  return out.join('\n');
}

/** What most likely went wrong, said so that the next attempt can succeed. */
export function noMatchHint(text: string, search: string): string {
  const searchLines = splitLines(search);
  if (searchLines.length > 0 && searchLines.every((l) => /^\s*\d+\t/.test(l))) {
    return 'search seems to include line numbers from read_file ("12\\t…"); remove them and send only the file text.';
  }
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  const fileLines = splitLines(text);
  const target = squash(search);
  for (let n = 0; n < fileLines.length; n++) {
    // Whitespace-only differences: point at the spot so the model copies the exact indentation.
    const window = squash(fileLines.slice(n, n + searchLines.length).join('\n'));
    if (target !== '' && window === target) {
      return `The text matches at line ${n + 1} if whitespace is ignored; copy its exact indentation and line breaks from read_file.`;
    }
  }
  const probe = searchLines.map((l) => l.trim()).find((l) => l !== '');
  if (!probe) return 'Read the file with read_file and copy the exact text to replace.';
  let best = -1;
  let bestScore = Infinity;
  fileLines.forEach((l, i) => {
    const candidate = l.trim();
    if (candidate === '') return;
    const score = distance(candidate, probe) / Math.max(candidate.length, probe.length);
    if (score < bestScore) [best, bestScore] = [i, score];
  });
  if (best < 0 || bestScore > 0.6) {
    return `Nothing in the file resembles "${clip(probe)}". Read the file with read_file and copy the exact text to replace.`;
  }
  return `The closest line is ${best + 1}: "${clip(fileLines[best]?.trim() ?? '')}". Read the file with read_file and copy the exact text.`;
}

const clip = (s: string): string => (s.length > 120 ? `${s.slice(0, 117)}…` : s);
