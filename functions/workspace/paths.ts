// Models write paths every which way (`./src//a.ts`, `src\a.ts`, `/src/a.ts`); the store only knows
// one spelling, so every tool normalises before touching it and refuses what would leave the workspace.
// The reading is the gate's own (packages/gate/src/paths/workspace-path.ts): a path the gate accepts is the file the
// tool opens.
import { readWorkspacePath } from 'rebound-gate/internal';

/** Normalises a workspace path to `a/b/c`. The root is `''` (only when `allowRoot`). Throws on escapes. */
export function normalisePath(input: string, opts: { allowRoot?: boolean } = {}): string {
  const { path, refusal } = readWorkspacePath(input);
  if (refusal !== undefined) throw new Error(refusal);
  if (path === '' && !opts.allowRoot) {
    throw new Error(`"${input}" is not a file path. Give a path relative to the workspace root, e.g. "src/index.ts".`);
  }
  return path;
}

/** `a/b/c.ts` → `a/b`; top-level files → `''`. */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** True when `path` is `folder` itself or lies beneath it (`''` contains everything). */
export function isWithin(path: string, folder: string): boolean {
  return folder === '' || path === folder || path.startsWith(`${folder}/`);
}

export const display = (path: string): string => (path === '' ? '.' : path);
