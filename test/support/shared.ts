// Where the shared corpora live: ../shared beside the repository (CI clones it there), or SHARED_DIR.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export function sharedDir(): string {
  const dir = process.env.SHARED_DIR ?? resolve(import.meta.dirname, '../../../shared');
  if (!existsSync(join(dir, 'bench'))) throw new Error(`The shared corpora are missing: expected ${dir}/bench (set SHARED_DIR).`);
  return dir;
}

export function streamsDir(): string {
  return join(sharedDir(), 'bench', 'openai-streams');
}
