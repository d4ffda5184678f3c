// Type-checks the Supabase function the way Deno sees it (its deno.json import map, Deno's libs), which
// tsc with Node types cannot: a Node-only type or an unmapped import fails here before a deploy does.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { baseEnv } from './servers.ts';

const root = join(import.meta.dirname, '..', '..');

it('deno check supabase/functions/rebound/index.ts', () => {
  const denoDir = join(root, 'node_modules', '.cache', 'deno');
  mkdirSync(denoDir, { recursive: true });
  const result = spawnSync(
    join(root, 'node_modules', '.bin', 'deno'),
    // --frozen: the versions of supabase/functions/rebound/deno.lock, which deploys resolve too; a deno.json
    // that no longer matches it fails here ("The lockfile is out of date"; regenerate it with --frozen=false).
    ['check', '--frozen', '--config', 'supabase/functions/rebound/deno.json', 'supabase/functions/rebound/index.ts'],
    { cwd: root, env: { ...baseEnv(), DENO_DIR: denoDir, NO_COLOR: '1' }, encoding: 'utf8', timeout: 150_000 },
  );
  if (result.error) throw result.error;
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
}, 160_000);
