// The signature on a `tool-approval-request` chunk, as AI SDK servers sign theirs
// (experimental_toolApprovalSecret): an HMAC-SHA256, base64url, that binds the approval id to the tool
// call id, the tool and a hash of the arguments it will run with. It comes back on the client's
// `approval-responded` part (ai ≥ 6.0.221 keeps it), and /v1/ui/chat verifies it when present. It adds
// to, never replaces, the binding the server keeps (agent_approvals: turn, user, call, arguments hash):
// a part without one is matched against that alone. The key is the stream tokens' (TURN_TOKEN_SECRET),
// the payload in a domain of its own, so neither can stand for the other. It binds the approval's
// expiry too (the stored one, when it is checked), and that expiry is bounded: one further ahead than
// this server gives an approval (APPROVAL_TIMEOUT_MS, at most 7 days, plus the clock skew between
// isolates) never verifies (docs/configuration.md § Keys). One already past is the decision's to refuse
// (410 expired, which says so), as for an unsigned response.
import { base64url, fromBase64url } from '../base64url.ts';
import { CLOCK_SKEW_S } from '../turn-token.ts';

const encoder = new TextEncoder();

/** What a signature binds: the approval, its call, and the SHA-256 of the arguments' canonical JSON (src/tools/approval.ts). */
export interface SignedApproval {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  argsHash: string;
  /** When the approval expires (ISO), as the approval_required event and the stored approval say. */
  expiresAt: string;
}

export class ApprovalSigner {
  private readonly key: Promise<CryptoKey>;

  private readonly maxLifetimeMs: number;
  /** `maxLifetimeMs`: the longest an approval waits here (APPROVAL_TIMEOUT_MS). */
  constructor(secret: string, maxLifetimeMs: number) {
    this.maxLifetimeMs = maxLifetimeMs;
    this.key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  }

  async sign(approval: SignedApproval): Promise<string> {
    const sig = await crypto.subtle.sign('HMAC', await this.key, payload(approval));
    return base64url(new Uint8Array(sig));
  }

  /** Whether `signature` is this server's for exactly this approval (false for anything malformed). */
  async verify(signature: string, approval: SignedApproval, now = Date.now()): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(signature)) return false;
    const expires = Date.parse(approval.expiresAt);
    if (!(expires <= now + this.maxLifetimeMs + CLOCK_SKEW_S * 1000)) return false;
    return crypto.subtle.verify('HMAC', await this.key, fromBase64url(signature), payload(approval));
  }
}

/** The expiry as milliseconds, so that the event's ISO text and the store's (another format of the same instant) sign alike. */
function payload({ approvalId, toolCallId, toolName, argsHash, expiresAt }: SignedApproval): Uint8Array<ArrayBuffer> {
  return encoder.encode(JSON.stringify(['rebound-tool-approval-v2', approvalId, toolCallId, toolName, argsHash, Date.parse(expiresAt)]));
}
