import { describe, expect, it } from 'vitest';
import { ApprovalSigner } from './approval-signature.ts';

const approval = { approvalId: 'apr_0123456789abcdef0123456789abcdef', toolCallId: 'call_1', toolName: 'delete_file', argsHash: 'ab'.repeat(32) };

describe('ApprovalSigner', () => {
  it('verifies its own signature for exactly that approval, call, tool and arguments', async () => {
    const signer = new ApprovalSigner('secret-1');
    const signature = await signer.sign(approval);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await signer.verify(signature, approval)).toBe(true);
    for (const changed of [
      { approvalId: 'apr_ffffffffffffffffffffffffffffffff' },
      { toolCallId: 'call_2' },
      { toolName: 'write_file' },
      { argsHash: 'cd'.repeat(32) },
    ]) {
      expect(await signer.verify(signature, { ...approval, ...changed })).toBe(false);
    }
  });

  it("refuses another secret's signature and anything malformed", async () => {
    const signature = await new ApprovalSigner('secret-1').sign(approval);
    expect(await new ApprovalSigner('secret-2').verify(signature, approval)).toBe(false);
    for (const bad of ['', 'x', `${signature}A`, signature.replace(/.$/, '+'), `=${signature.slice(1)}`]) {
      expect(await new ApprovalSigner('secret-1').verify(bad, approval)).toBe(false);
    }
  });
});
