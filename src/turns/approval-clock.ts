// When calls that wait for a person expire (docs/approval.md § Denied or expired): the desk's `expire`
// is the one hook, and each runtime has its own clock to call it, a strategy the entry picks:
// - 'timer' (Node, one process owns its storage): a sweep at start-up (waits that ran out while the
//   server was down), then one timer armed at the next expiry the store has, re-armed after each sweep
//   and each pause; unref'd, it never keeps the process alive;
// - 'alarm' (a Cloudflare Durable Object): told of each turn that pauses here; the object's alarm then
//   calls the desk (src/entries/turn-object.ts);
// - 'request' (Supabase, Deno: no timer outlives a request): the next request that touches a turn or its
//   session expires what of it is due first;
// - none (absent): only a late decision finds an expired call.
import type { ApprovalDesk, GoOnOptions } from './approvals.ts';
import { assertNever } from '../vocabulary.ts';

/** How far past an approval's expiry the timer fires: the store's clock decides, and may be a little behind. */
const EXPIRY_SLACK_MS = 50;

/** Which clock expires waiting calls here (TurnServiceOptions.approvalClock). */
export type ApprovalClockKind = { kind: 'timer' } | { kind: 'request' } | { kind: 'alarm'; paused(turnId: string): void };

export interface ApprovalClock {
  /** True where requests are the clock: a request that reads a paused turn expires what of it is due first. */
  readonly onRequest: boolean;
  /** A turn paused here: its expiry may come before the armed one (timer), or the alarm is told. */
  paused(turnId: string): void;
  /** A request touches a turn or a session: where requests are the clock, what of it is due expires now. */
  touched(scope: { turnId: string } | { sessionId: string }, options: GoOnOptions): Promise<void>;
}

type Desk = Pick<ApprovalDesk, 'expire' | 'nextExpiry'>;

/** The clock `kind` names, over the desk it calls. */
export function approvalClock(kind: ApprovalClockKind | undefined, desk: Desk): ApprovalClock {
  if (!kind) return { onRequest: false, paused: () => {}, touched: async () => {} };
  switch (kind.kind) {
    case 'timer':
      return nodeTimer(desk);
    case 'alarm':
      return { onRequest: false, paused: (turnId) => kind.paused(turnId), touched: async () => {} };
    case 'request':
      return {
        onRequest: true,
        paused: () => {},
        touched: async (scope, options) => {
          await desk.expire(scope, options);
        },
      };
    default:
      return assertNever(kind, 'approval clock');
  }
}

/** Node's: a sweep now, then one timer at the next expiry (none while nothing waits). */
function nodeTimer(desk: Desk): ApprovalClock {
  let armed: { at: number; timer: ReturnType<typeof setTimeout> } | undefined;
  const sweep = async () => {
    armed = undefined;
    await desk.expire();
    await arm();
  };
  const arm = async () => {
    let next: string | null;
    try {
      next = await desk.nextExpiry();
    } catch (err) {
      console.error('rebound: could not read the next approval expiry', err);
      return;
    }
    if (next === null) return;
    const at = Date.parse(next);
    if (armed && armed.at <= at) return;
    if (armed) clearTimeout(armed.timer);
    // A little past the instant: the store compares with its own clock.
    const timer = setTimeout(() => void sweep(), Math.max(0, at - Date.now()) + EXPIRY_SLACK_MS);
    (timer as { unref?: () => void }).unref?.();
    armed = { at, timer };
  };
  void sweep();
  return { onRequest: false, paused: () => void arm(), touched: async () => {} };
}
