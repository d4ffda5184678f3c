// One call of an answer through the gate, and what the client receives for it. A call that passes
// untouched goes out as the model's own bytes; a repaired one re-serialized, under the same id; a
// blocked one is re-asked (retry.ts) or, when no attempt is left, goes out as the model wrote it.
// Calls written into the text are gated the way the loop gates them: a valid one is a repair of
// category text_embedded_call (src/loop/turn.ts does the same for the agent's own turns).
import { gate, type ProposedCall, type ToolSpec, type Verdict, type VerdictKind } from 'rebound-gate';
import { callsFinish, type GatedTextCalls, gatedTextCalls } from 'rebound-gate/host';

export interface GatedCall {
  /** The call as the model wrote it. */
  proposed: ProposedCall;
  verdict: Verdict;
  /** Written into the text rather than sent as a tool call. */
  embedded: boolean;
  /** Time spent in the gate. */
  gateMs: number;
}

/** A call as a Chat Completions message carries it. */
export interface WireCall {
  id: string;
  name: string;
  arguments: string;
}

export function gateProposed(call: ProposedCall, toolset: readonly ToolSpec[], embedded = false): GatedCall {
  const t0 = performance.now();
  let verdict = gate(call, toolset);
  if (embedded && verdict.verdict !== 'blocked') {
    const repairs = verdict.verdict === 'repaired' ? verdict.repairs : [];
    verdict = {
      ...verdict,
      verdict: 'repaired',
      category: 'text_embedded_call',
      repairs: [{ kind: 'extracted_from_text', path: '$', category: 'text_embedded_call' }, ...repairs],
    };
  }
  return { proposed: call, verdict, embedded, gateMs: performance.now() - t0 };
}

export const accepted = (g: GatedCall): boolean => g.verdict.verdict !== 'blocked';

/** What the client receives: the model's bytes when nothing changed, else the gate's call; a blocked call unchanged. */
export function wireCall(g: GatedCall): WireCall {
  const { verdict, proposed } = g;
  if (verdict.verdict === 'pass' && !g.embedded) return { id: proposed.id, name: proposed.name, arguments: proposed.arguments };
  if (verdict.verdict === 'blocked') return { id: proposed.id, name: proposed.name, arguments: proposed.arguments };
  return { id: proposed.id, name: verdict.call.name, arguments: JSON.stringify(verdict.call.args) };
}

/**
 * The calls written into an answer's text, gated as the loop gates them (rebound-gate's gatedTextCalls);
 * null when there are none, or on the last attempt when they would not all pass.
 */
export function textCalls(text: string, toolset: readonly ToolSpec[], options: { last: boolean }): GatedTextCalls<GatedCall> | null {
  return gatedTextCalls(text, toolset, { last: options.last, check: (call) => gateProposed(call, toolset, true), accepted });
}

/** The response's finish_reason: the upstream's own, or "tool_calls" when the calls that went out say so (callsFinish) or it gave none. */
export function finishReason(upstream: string | null, delivered: readonly GatedCall[], lastSentCalls: boolean): string | null {
  if (delivered.length === 0) return upstream;
  return upstream === null || callsFinish(delivered, lastSentCalls) ? 'tool_calls' : upstream;
}

/** The worst verdict among the calls the client received: "none" when there were none. */
export type Outcome = 'none' | VerdictKind;

export function outcomeOf(calls: readonly GatedCall[]): Outcome {
  let worst: Outcome = 'none';
  for (const c of calls) {
    const v = c.verdict.verdict;
    if (v === 'blocked' || (v === 'repaired' && worst !== 'blocked') || (v === 'pass' && worst === 'none')) worst = v;
  }
  return worst;
}
