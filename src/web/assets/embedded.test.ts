// The chat page's script and grammars are generated from src/web/client/ and the libraries it uses
// (scripts/embed-assets.mjs) and checked in: this fails when the checked-in copy is not what the
// sources give today, and says how to bring it up to date.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleFiles } from '../../../scripts/embed-assets.mjs';

describe('embedded page assets', () => {
  it('are what scripts/embed-assets.mjs generates from the sources', async () => {
    expect(await staleFiles(), 'run: node scripts/embed-assets.mjs').toEqual([]);
  }, 60_000);

  it('the page script parses no HTML and evaluates no strings (model text reaches the DOM as text only)', () => {
    const dir = join(import.meta.dirname, '..', 'client');
    const sinks =
      /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment|\beval\(|new Function\b|setAttribute\(\s*['"`]on/;
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .map((line, i) => ({ where: `${f}:${i + 1}`, line })),
      )
      .filter(({ line }) => sinks.test(line))
      .map(({ where, line }) => `${where}: ${line.trim()}`);
    expect(offenders).toEqual([]);
  });
});
