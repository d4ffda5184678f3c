// Models write paths every which way (`./src//a.ts`, `src\a.ts`, `/src/a.ts`); the store only knows
// one spelling, so every tool normalises before touching it and refuses what would leave the workspace.

/** Normalises a workspace path to `a/b/c`. The root is `''` (only when `allowRoot`). Throws on escapes. */
export function normalisePath(input: string, opts: { allowRoot?: boolean } = {}): string {
  const raw = input.trim();
  const slashed = raw.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:\//.test(slashed) || slashed.startsWith('~') || /^[a-z]+:\/\//i.test(slashed)) {
    const relative = slashed.replace(/^([a-z]+:\/\/|[A-Za-z]:\/|~\/?)/i, '').replace(/^\/+/, '');
    throw new Error(
      `Absolute path "${input}" refused: paths are relative to the workspace root. ` +
        (relative ? `Use "${relative}".` : 'Omit the path to mean the root.'),
    );
  }
  const parts: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) {
        throw new Error(`Path "${input}" escapes the workspace ("..") and is refused. Use a path inside the workspace, e.g. "src/index.ts".`);
      }
      parts.pop();
      continue;
    }
    parts.push(segment);
  }
  const path = parts.join('/');
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
  return folder === '' || path === folder || path.startsWith(folder + '/');
}

export const display = (path: string): string => (path === '' ? '.' : path);
