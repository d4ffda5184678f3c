// The store is a flat list of files; folders exist only as prefixes of file paths.
import type { WorkspaceStore } from '../../src/store/types.ts';
import { display, isWithin } from './paths.ts';

export type Listing = Awaited<ReturnType<WorkspaceStore['list']>>;

export function isFolder(files: Listing, path: string): boolean {
  return path === '' || files.some((f) => f.path.startsWith(`${path}/`));
}

/** Direct children of `folder`: files by name, sub-folders with a trailing `/`. */
export function childrenOf(files: Listing, folder: string): string[] {
  const prefix = folder === '' ? '' : `${folder}/`;
  const names = new Set<string>();
  for (const f of files) {
    if (!f.path.startsWith(prefix)) continue;
    const rest = f.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    names.add(slash < 0 ? rest : rest.slice(0, slash + 1));
  }
  return [...names].sort();
}

/** The closest existing ancestor folder of `path`, with its entries: a hint for a path that does not exist. */
export function nearestListing(files: Listing, path: string): string {
  let folder = path;
  while (folder !== '' && !isFolder(files, folder)) {
    const i = folder.lastIndexOf('/');
    folder = i < 0 ? '' : folder.slice(0, i);
  }
  const entries = childrenOf(files, folder);
  const shown = entries.slice(0, 30).join(', ') + (entries.length > 30 ? `, … (${entries.length - 30} more)` : '');
  return entries.length === 0 ? 'The workspace is empty.' : `Entries of "${display(folder)}": ${shown}.`;
}

export function filesWithin(files: Listing, folder: string): Listing {
  return files.filter((f) => isWithin(f.path, folder));
}

/** Throws the error a model can act on when `path` is not an existing file. */
export async function requireFile(workspace: WorkspaceStore, path: string) {
  const file = await workspace.read(path);
  if (file) return file;
  const files = await workspace.list();
  if (isFolder(files, path)) {
    throw new Error(`"${path}" is a folder, not a file. Use list_files with path "${path}" to see its files.`);
  }
  throw new Error(`File "${path}" does not exist. ${nearestListing(files, path)}`);
}
