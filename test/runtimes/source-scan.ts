// Reading the repository's sources as text for the checks that guard them (no-node-imports, layers):
// which files there are, and which modules each one imports.
import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');

/** Every JS/TS source under `dir` (relative to the repository root), as root-relative paths. */
export function* sources(dir: string): Generator<string> {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) yield* sources(path);
    else if (/\.(m?[jt]s|tsx)$/.test(e.name)) yield path;
  }
}

/** Every module specifier in a file: static imports/exports, side-effect imports, dynamic import() and require(). */
export function specifiers(code: string): string[] {
  const stripped = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
    /\brequire\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
  ];
  for (const re of patterns) for (const m of stripped.matchAll(re)) found.push(m[1]!);
  return found;
}
