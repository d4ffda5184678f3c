import * as z from 'zod';
import { defineTool } from '../../src/tools/define.ts';
import { withDiffs } from '../../src/tools/diffs.ts';
import { fileDiff } from './diff.ts';
import { normalisePath } from './paths.ts';
import { fileText, splitLines } from './text.ts';
import { filesWithin, isFolder, nearestListing } from './tree.ts';
import type { WorkspaceStore } from '../../src/store/types.ts';
import type { FileDiff } from '../../src/vocabulary.ts';

export const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Delete a file, or a folder with everything in it.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  schema: z.object({
    path: z.string().describe('File or folder path relative to the workspace root.'),
  }),
  pathParams: ['path'],
  async run(args, { workspace }) {
    const path = normalisePath(args.path, { allowRoot: true });
    if (path === '') throw new Error('Deleting the whole workspace is refused. Name a file or folder inside it.');
    const files = await workspace.list();
    const folder = !files.some((f) => f.path === path) && isFolder(files, path);
    const targets = folder ? filesWithin(files, path).map((f) => f.path) : [path];
    if (!folder && !files.some((f) => f.path === path)) {
      throw new Error(`"${path}" does not exist, so there is nothing to delete. ${nearestListing(files, path)}`);
    }
    const diffs: FileDiff[] = [];
    for (const target of targets) {
      // What was deleted, for the page: the first MAX_DELETED_DIFFS files.
      const before = diffs.length < MAX_DELETED_DIFFS ? await workspace.read(target) : null;
      await workspace.delete(target);
      if (before) diffs.push(fileDiff(target, before, null));
    }

    const result: Record<string, unknown> = folder ? { path, deleted: targets, count: targets.length } : { path, deleted: [path] };
    const refs = await references(workspace, path, folder);
    if (refs.length > 0) {
      result.references = refs;
      const where = refs
        .slice(0, 5)
        .map((r) => `${r.path}:${r.line}`)
        .join(', ');
      result._next_action = {
        instruction: `${refs.length} place(s) still refer to the deleted ${folder ? 'folder' : 'file'} "${path}" (${where}${refs.length > 5 ? ', …' : ''}). Update or remove those references.`,
      };
    }
    return withDiffs(result, diffs);
  },
});

const MAX_REFERENCES = 20;
/** A folder's deleted files shown as diffs; the rest are only listed in the result. */
const MAX_DELETED_DIFFS = 10;

/** Import specifiers and quoted paths in the remaining text files that point at what was deleted. */
async function references(workspace: WorkspaceStore, path: string, folder: boolean) {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const stem = folder ? name : name.replace(/\.[^.]+$/, '');
  const found: Array<{ path: string; line: number; text: string }> = [];
  for (const entry of await workspace.list()) {
    const file = await workspace.read(entry.path);
    const text = file && fileText(file);
    if (!text) continue;
    const lines = splitLines(text);
    for (let i = 0; i < lines.length && found.length < MAX_REFERENCES; i++) {
      const line = lines[i] ?? '';
      for (const m of line.matchAll(/(['"`])([^'"`\s]+)\1/g)) {
        if (pointsAt(m[2] ?? '', stem, folder)) {
          found.push({ path: entry.path, line: i + 1, text: line.trim().slice(0, 160) });
          break;
        }
      }
    }
  }
  return found;
}

function pointsAt(specifier: string, stem: string, folder: boolean): boolean {
  const segments = specifier.replace(/\\/g, '/').split('/');
  if (folder) return segments.slice(0, -1).includes(stem) || segments[segments.length - 1] === stem;
  const last = (segments[segments.length - 1] ?? '').replace(/\.[^.]+$/, '');
  // A bare word such as 'utils' is too often just a string; require a path-like specifier.
  return last === stem && segments.length > 1;
}
