import { describe, expect, it } from 'vitest';
import { ApprovalSigner } from './approval-signature.ts';

const HOUR_MS = 3_600_000;
const now = Date.parse('2026-11-25T12:00:00.000Z');
const approval = {
  approvalId: 'apr_0123456789abcdef0123456789abcdef',
  toolCallId: 'call_1',
  toolName: 'delete_file',
  argsHash: 'ab'.repeat(32),
  expiresAt: new Date(now + HOUR_MS / 4).toISOString(),
};
/** As APPROVAL_TIMEOUT_MS=1h sets it. */
const signer = (secret = 'secret-1') => new ApprovalSigner(secret, HOUR_MS);

describe('ApprovalSigner', () => {
  it('verifies its own signature for exactly that approval, call, tool, arguments and expiry', async () => {
    const signature = await signer().sign(approval);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await signer().verify(signature, approval, now)).toBe(true);
    // The same instant in another format (as Postgres gives it back) is the same expiry.
    expect(await signer().verify(signature, { ...approval, expiresAt: approval.expiresAt.replace('Z', '+00:00') }, now)).toBe(true);
    for (const changed of [
      { approvalId: 'apr_ffffffffffffffffffffffffffffffff' },
      { toolCallId: 'call_2' },
      { toolName: 'write_file' },
      { argsHash: 'cd'.repeat(32) },
      { expiresAt: new Date(now + HOUR_MS / 2).toISOString() },
    ]) {
      expect(await signer().verify(signature, { ...approval, ...changed }, now)).toBe(false);
    }
  });

  it("refuses another secret's signature and anything malformed", async () => {
    const signature = await signer().sign(approval);
    expect(await signer('secret-2').verify(signature, approval, now)).toBe(false);
    for (const bad of ['', 'x', `${signature}A`, signature.replace(/.$/, '+'), `=${signature.slice(1)}`]) {
      expect(await signer().verify(bad, approval, now)).toBe(false);
    }
  });

  it('refuses a signature whose expiry lies further ahead than this server gives an approval, even signed with its key', async () => {
    // Someone holding the key (a public key set as the secret) signs an approval that never expires: refused.
    const forever = { ...approval, expiresAt: new Date(999_999_999_999 * 1000).toISOString() };
    expect(await signer().verify(await signer().sign(forever), forever, now)).toBe(false);
    // The bound is APPROVAL_TIMEOUT_MS plus a minute of clock skew between isolates.
    const atBound = { ...approval, expiresAt: new Date(now + HOUR_MS + 60_000).toISOString() };
    const pastBound = { ...approval, expiresAt: new Date(now + HOUR_MS + 61_000).toISOString() };
    expect(await signer().verify(await signer().sign(atBound), atBound, now)).toBe(true);
    expect(await signer().verify(await signer().sign(pastBound), pastBound, now)).toBe(false);
  });
});
