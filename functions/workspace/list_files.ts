import * as z from 'zod';
import { defineTool } from '../../src/tools/define.ts';
import { display, normalisePath } from './paths.ts';
import { childrenOf, filesWithin, isFolder, nearestListing } from './tree.ts';

/** Keeps one call's result a reasonable share of the context window. */
export const MAX_ENTRIES = 500;

type Entry = { path: string; type: 'file'; size: number } | { path: string; type: 'folder'; files: number };

export const listFiles = defineTool({
  name: 'list_files',
  description: 'List files and folders in the workspace. Folders end with "/". recursive: true lists every file below the folder.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  schema: z.object({
    path: z.string().optional().describe('Folder relative to the workspace root; omit for the root.'),
    recursive: z.boolean().optional().describe('List all files below the folder, not just direct entries.'),
  }),
  async run({ path, recursive }, { workspace }) {
    const folder = normalisePath(path ?? '', { allowRoot: true });
    const files = await workspace.list();
    if (!isFolder(files, folder)) {
      if (files.some((f) => f.path === folder)) {
        throw new Error(`"${folder}" is a file, not a folder. Use read_file with path "${folder}" to read it.`);
      }
      throw new Error(`Folder "${folder}" does not exist. ${nearestListing(files, folder)}`);
    }
    const within = filesWithin(files, folder);
    let entries: Entry[];
    if (recursive) {
      entries = within.map((f) => ({ path: f.path, type: 'file', size: f.size }));
    } else {
      const prefix = folder === '' ? '' : `${folder}/`;
      entries = childrenOf(files, folder).map((name): Entry => {
        const full = prefix + name;
        if (!name.endsWith('/')) return { path: full, type: 'file', size: files.find((f) => f.path === full)?.size ?? 0 };
        return { path: full, type: 'folder', files: filesWithin(files, full.slice(0, -1)).length };
      });
    }
    const result: Record<string, unknown> = { path: display(folder), total: entries.length, entries: entries.slice(0, MAX_ENTRIES) };
    if (entries.length > MAX_ENTRIES) {
      result.truncated = true;
      result.note = `Showing ${MAX_ENTRIES} of ${entries.length} entries. List a sub-folder to see the rest.`;
    }
    if (entries.length === 0) result.note = 'The workspace is empty. Create files with write_file.';
    return result;
  },
});
