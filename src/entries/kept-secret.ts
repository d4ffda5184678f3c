// Secrets `npm start` makes once and keeps in its data folder (DATA_DIR), readable by the owner alone:
// the stream tokens' HMAC secret (rebound-turn-token-secret) and local mode's access token (local-token,
// src/http/auth/local-token.ts). Made with the 'wx' flag, so two processes starting at once keep one;
// a file its owner wrote holds what they wrote, or refuses the start when it is too short to be a secret.
import { readFileSync, writeFileSync } from 'node:fs';
import { randomSecret } from '../http/random-secret.ts';

export interface KeptSecretOptions {
  /** The shortest content accepted from an existing file. */
  minChars: number;
  /** What else the user can do, for the error: "set TURN_TOKEN_SECRET instead". */
  instead?: string;
}

/** The secret in `file` (trimmed), made there (mode 0600) when the file does not exist. */
export function keptSecret(file: string, { minChars, instead }: KeptSecretOptions): string {
  const kept = read(file);
  if (kept !== null) return accepted(kept, file, minChars, instead);
  try {
    writeFileSync(file, randomSecret(), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new Error(`could not keep a secret in ${file}: ${(err as Error).message}${instead ? `; ${instead}` : ''}`);
    // Another process made it first: theirs is read below.
  }
  const made = read(file);
  if (made === null) throw new Error(`could not keep a secret in ${file}: it is gone right after it was made${instead ? `; ${instead}` : ''}`);
  return accepted(made, file, minChars, instead);
}

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`could not read ${file}: ${(err as Error).message}`);
  }
}

function accepted(value: string, file: string, minChars: number, instead: string | undefined): string {
  if (value.length >= minChars) return value;
  throw new Error(
    `${file} holds ${value.length} characters, and a secret there needs ${minChars} or more: write a longer one, or delete the file to have one made at the next start${instead ? `, or ${instead}` : ''}`,
  );
}
