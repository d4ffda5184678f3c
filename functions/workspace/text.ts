// Bytes, base64 and lines with web-platform APIs only (TextEncoder, atob/btoa): the tools run on
// Workers and Deno as well as Node.
import type { WorkspaceFile } from '../../src/store/types.ts';

const encoder = new TextEncoder();

export const byteLength = (text: string): number => encoder.encode(text).length;

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  // Chunked: String.fromCharCode(...bigArray) overflows the call stack.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Accepts padded, unpadded, whitespace-wrapped and base64url input; throws an actionable error otherwise. */
export function base64ToBytes(input: string): Uint8Array {
  let b64 = input.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.replace(/=+$/, '').length % 4 === 1) {
    throw new Error('content is not valid base64. Send base64 text, or use encoding "utf-8" for plain text.');
  }
  b64 = b64.replace(/=+$/, '');
  b64 += '='.repeat((4 - (b64.length % 4)) % 4);
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The file's bytes, whatever encoding it is stored in. */
export function fileBytes(file: Pick<WorkspaceFile, 'content' | 'encoding'>): Uint8Array {
  return file.encoding === 'base64' ? base64ToBytes(file.content) : encoder.encode(file.content);
}

/** The file as text, or null when it is binary (stored base64 and not valid UTF-8). */
export function fileText(file: Pick<WorkspaceFile, 'content' | 'encoding'>): string | null {
  if (file.encoding === 'utf-8') return file.content;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(file.content));
  } catch {
    return null;
  }
}

/** Lines without their terminators; a final newline does not start an extra line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function convertLineEnds(text: string, lineEnd: 'lf' | 'crlf'): string {
  const lf = text.replace(/\r\n/g, '\n');
  return lineEnd === 'crlf' ? lf.replace(/\n/g, '\r\n') : lf;
}
