// The content layer for a patch in Codex's apply_patch format (`*** Begin Patch`, `*** Add File: p` /
// `*** Update File: p` / `*** Delete File: p`, `+` lines added, `*** End Patch`), whether it is the
// text of an apply_patch tool or a heredoc inside a shell command (`apply_patch <<'EOF' … EOF`, as
// Codex 0.169 writes it into exec_command's cmd). A file added whole gets the full checks of a file
// body (placeholders, a body cut off); the lines an update adds are a fragment, so only placeholders
// count there ("// ... rest of the code unchanged" would delete the rest of the file just the same).
import type { Problem } from '../types.ts';
import { checkContent, checkFragment } from './content.ts';

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';

/** The patch inside a value (a string, or a command's argv joined), from its Begin line to its End line; undefined when there is none. */
export function patchIn(value: unknown): string | undefined {
  const text = typeof value === 'string' ? value : Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join('\n') : undefined;
  if (text === undefined) return undefined;
  const begin = text.indexOf(BEGIN);
  if (begin < 0) return undefined;
  const end = text.indexOf(END, begin);
  return text.slice(begin, end < 0 ? text.length : end + END.length);
}

interface FileChange {
  path: string;
  /** Added whole (`*** Add File`), or lines added to a file that exists. */
  whole: boolean;
  added: string[];
}

function changesOf(patch: string): FileChange[] {
  const changes: FileChange[] = [];
  let current: FileChange | undefined;
  for (const line of patch.split(/\r?\n/)) {
    const header = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (header) {
      current = header[1] === 'Delete' ? undefined : { path: header[2]!.trim(), whole: header[1] === 'Add', added: [] };
      if (current) changes.push(current);
    } else if (current && line.startsWith('+')) current.added.push(line.slice(1));
  }
  return changes;
}

/** The problems of a patch's added text, each located at the file it is for (`$[path]`). */
export function checkPatch(patch: string): Problem[] {
  const problems: Problem[] = [];
  for (const change of changesOf(patch)) {
    if (change.added.length === 0) continue;
    const found = (change.whole ? checkContent : checkFragment)(`${change.added.join('\n')}\n`, { path: change.path });
    for (const p of found) problems.push({ ...p, message: `${change.whole ? 'The new file' : 'The lines added to'} ${change.path}: ${p.message}` });
  }
  return problems;
}
