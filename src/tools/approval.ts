// Which calls wait for a person (docs/approval.md § Which calls), in one place: a tool's own `needsApproval` (set by
// defineTool, or by its MCP server's entry in MCP_SERVERS) or its name matching one of APPROVAL_TOOLS
// (names or globs, `*` for any run of characters: `write_file,crm__*`). Also the hash an approval is
// bound to: SHA-256 of the arguments' canonical JSON, so the call that runs is the call that was approved.
import { canonicalJson } from './canonical-json.ts';
import type { ApprovalContext, Tool } from './types.ts';

/** A test of tool names against APPROVAL_TOOLS; compiled once per app. */
export type ApprovalNames = (name: string) => boolean;

/** APPROVAL_TOOLS as a test: each entry a whole name, `*` any run of characters (none matches nothing). */
export function approvalNames(patterns: readonly string[]): ApprovalNames {
  if (patterns.length === 0) return () => false;
  const source = patterns.map((p) => p.split('*').map(escapeRegExp).join('.*')).join('|');
  const re = new RegExp(`^(?:${source})$`);
  return (name) => re.test(name);
}

/**
 * Whether this call of `tool`, with the arguments it will run with, waits for a person: the tool says
 * so (true, or its function returns true) or APPROVAL_TOOLS names it. A function that throws counts as
 * true: when in doubt, ask.
 */
export async function needsApproval(
  tool: Pick<Tool, 'name' | 'needsApproval'>,
  args: Record<string, unknown>,
  { names, context }: { names: ApprovalNames; context: ApprovalContext },
): Promise<boolean> {
  if (names(tool.name)) return true;
  const own = tool.needsApproval;
  if (typeof own !== 'function') return own === true;
  try {
    return (await own(args, context)) === true;
  } catch {
    return true;
  }
}

/** SHA-256 (lowercase hex) of the arguments' canonical JSON: what an approval is bound to. */
export async function argumentsHash(args: Record<string, unknown>): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalJson(args)));
  return hex(new Uint8Array(digest));
}

/** Lowercase hex of `bytes`, two digits each. */
function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A new id of a call that waits for a person: 128 random bits, `prefix` and 32 hex digits. */
export function newWaitingId(prefix: 'apr' | 'inp'): string {
  return `${prefix}_${hex(crypto.getRandomValues(new Uint8Array(16)))}`;
}

/** A new approval id: `apr_` and 32 hex digits. */
export function newApprovalId(): string {
  return newWaitingId('apr');
}

/** The shape of an approval id (anything else is an unknown id, without asking the store). */
export const APPROVAL_ID = /^apr_[0-9a-f]{32}$/;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
