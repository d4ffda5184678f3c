// What `npm start` says when the embedded database in its data folder does not open: what happened (the
// error's first line, and whether amcheck finds the catalog damaged), and what to do, saying what each
// step keeps and what it loses. It never tells anyone to delete the folder: moving it aside keeps every
// row for whoever wants to read them later (docs/configuration.md § One server per data folder).
import type { CatalogCheck } from '../store/pglite-damage.ts';

export function describeOpenFailure(dataDir: string, error: string, check: CatalogCheck): string {
  const aside = `${dataDir.replace(/\/+$/, '')}.damaged-${new Date().toISOString().slice(0, 10)}`;
  const moveAside =
    `To start afresh, stop every server on it and move the folder aside (do not delete it): mv ${dataDir} ${aside}. ` +
    `The next start makes a new, empty database in ${dataDir}: the sessions, turns, messages, approvals and dashboard activity ` +
    `of the old one are not in it (they stay in ${aside}), and chat links carrying the old local access token stop working.`;
  const lines = [`The embedded database in ${dataDir} did not open: ${error}`];
  if (check.checked && check.damaged.length > 0) {
    lines.push(
      `Its catalog is damaged: PostgreSQL's amcheck finds ${check.damaged.length} system ${check.damaged.length === 1 ? 'index' : 'indexes'} out of step with ${check.damaged.length === 1 ? 'its table' : 'their tables'} (${check.damaged.slice(0, 4).join(', ')}${check.damaged.length > 4 ? ', …' : ''}). ` +
        'That is what two servers writing one folder at once leave behind (before this version nothing stopped a second one), or a disk that lost writes. ' +
        'It does not mend itself, and PGlite has no repair for it: REINDEX cannot undo two catalog rows with one id.',
      moveAside,
    );
  } else {
    lines.push(
      check.checked
        ? "amcheck finds its catalog sound, so the cause is likely elsewhere: a full disk, the folder's permissions, or a folder made by another PGlite version."
        : `It could not be checked further (${check.why}).`,
      `Fix what the error names and start again. If it still does not open: ${moveAside[0]!.toLowerCase()}${moveAside.slice(1)}`,
    );
  }
  return lines.join('\n');
}
