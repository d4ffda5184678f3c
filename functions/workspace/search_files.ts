import * as z from 'zod';
import { defineTool } from '../../src/tools/define.ts';
import { display, normalisePath } from './paths.ts';
import { fileText, splitLines } from './text.ts';
import { filesWithin, isFolder, nearestListing } from './tree.ts';

export const MAX_MATCHES = 100;

export const searchFiles = defineTool({
  name: 'search_files',
  description: 'Find text in workspace files (case-insensitive, literal). Returns matching lines with line numbers and file paths whose name matches.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  schema: z.object({
    query: z.string().describe('Text to look for, literally (not a regex).'),
    path: z.string().optional().describe('Folder or file to search in; omit for the whole workspace.'),
  }),
  async run(args, { workspace }) {
    const query = args.query.toLowerCase();
    if (query.trim() === '') throw new Error('query is empty. Give the text to look for, or use list_files to see all files.');
    const scope = normalisePath(args.path ?? '', { allowRoot: true });
    const files = await workspace.list();
    const inScope = files.some((f) => f.path === scope) ? files.filter((f) => f.path === scope) : filesWithin(files, scope);
    if (inScope.length === 0 && !isFolder(files, scope)) {
      throw new Error(`"${scope}" does not exist. ${nearestListing(files, scope)}`);
    }

    const matches: Array<{ path: string; line: number; text: string }> = [];
    const matchedFiles = new Set<string>();
    let total = 0;
    for (const entry of inScope) {
      const file = await workspace.read(entry.path);
      const text = file && fileText(file);
      if (!text) continue;
      splitLines(text).forEach((line, i) => {
        if (!line.toLowerCase().includes(query)) return;
        total++;
        matchedFiles.add(entry.path);
        if (matches.length < MAX_MATCHES) matches.push({ path: entry.path, line: i + 1, text: clipAround(line, query) });
      });
    }
    const pathMatches = inScope.map((f) => f.path).filter((p) => p.toLowerCase().includes(query));
    const result: Record<string, unknown> = { query: args.query, path: display(scope), total_matches: total, files_matched: matchedFiles.size, matches };
    if (pathMatches.length > 0) result.path_matches = pathMatches.slice(0, MAX_MATCHES);
    if (total > matches.length) result.note = `Showing ${matches.length} of ${total} matches. Narrow the query or the path.`;
    if (total === 0 && pathMatches.length === 0) result.note = `No file contains "${args.query}". Try a shorter or different query.`;
    return result;
  },
});

/** Long lines (minified code) are cut around the match so one hit cannot flood the context. */
function clipAround(line: string, query: string): string {
  const text = line.trim();
  if (text.length <= 200) return text;
  const at = Math.max(0, text.toLowerCase().indexOf(query) - 80);
  return (at > 0 ? '…' : '') + text.slice(at, at + 200) + (at + 200 < text.length ? '…' : '');
}
