import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keptSecret } from './kept-secret.ts';

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rebound-kept-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('keptSecret', () => {
  it('makes a random secret once, readable by the owner alone, and reads the same one later', () => {
    const file = join(fresh(), 'local-token');
    const made = keptSecret(file, { minChars: 32 });
    expect(made).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(keptSecret(file, { minChars: 32 })).toBe(made);
    expect(keptSecret(join(fresh(), 'local-token'), { minChars: 32 })).not.toBe(made);
  });

  it('keeps what its owner wrote (trimmed), and refuses one too short, saying what to do', () => {
    const file = join(fresh(), 'local-token');
    writeFileSync(file, `  ${'x'.repeat(40)}\n`);
    expect(keptSecret(file, { minChars: 32 })).toBe('x'.repeat(40));
    writeFileSync(file, 'hunter2\n');
    expect(() => keptSecret(file, { minChars: 32, instead: 'set TURN_TOKEN_SECRET instead' })).toThrow(
      /local-token holds 7 characters, and a secret there needs 32 or more: .*delete the file.*set TURN_TOKEN_SECRET instead/,
    );
    expect(readFileSync(file, 'utf8')).toBe('hunter2\n');
  });

  it('says why when the folder cannot hold it', () => {
    expect(() => keptSecret(join(fresh(), 'missing', 'local-token'), { minChars: 32 })).toThrow(/could not keep a secret in .*local-token: ENOENT/);
  });
});
