// The AI SDK middleware's doGenerate, with the policy of Rebound's gateway for a whole answer
// (src/gateway/complete.ts) and of the middleware's doStream (stream.ts): the answer's calls are gated
// (those written into its text taken out first, when it sent none); a call that passes goes out,
// repaired under the same id if it was; when a call is blocked and a retry is left, the model is asked
// again for the blocked calls only (its text and those calls, each with the gate's message), and the
// retry adds its calls (not one repeating a call already out) or, when it sends none, its text. Still
// blocked with no retry left, the call goes out as the model wrote it: never worse than no middleware.
import { splitCalls } from '../held-answer.ts';
import { reaskLoop } from '../reask-loop.ts';
import type { CompiledTools } from '../tools.ts';
import {
  addUsage,
  applied,
  type CallOptions,
  type Content,
  finishReason,
  type GatedToolCall,
  type GenerateResult,
  isBlocked,
  judge,
  type Model,
  reask,
  sentBefore,
  textCalls,
} from './calls.ts';

export interface GatedGenerateOptions {
  first: GenerateResult;
  params: CallOptions;
  tools: CompiledTools;
  retries: number;
  model: Model;
}

/** One answer through the gate: its calls gated, its content as they leave it (a blocked call as written). */
interface GatedAnswer {
  /** Every call of the answer (provider-executed ones with no verdict). */
  calls: GatedToolCall[];
  content: Content[];
  /** The answer's text without the calls taken out of it. */
  visibleText: string;
  /** The answer sent calls of its own (not only written into its text). */
  sentCalls: boolean;
}

export async function gatedGenerate({ first, params, tools, retries, model }: GatedGenerateOptions): Promise<GenerateResult> {
  let ask = params;
  let usage = first.usage;
  /** What earlier attempts put out (the first answer's content, each retry's new calls), blocked calls taken out. */
  const kept: Content[] = [];
  const out: GatedToolCall[] = [];
  /** The last answer read, gated, and its part of what goes out. */
  let standing: { answer: GenerateResult; gated: GatedAnswer; own: Pick<GatedAnswer, 'calls' | 'content'> } | undefined;
  // The one re-ask loop (rebound-gate/host): each answer gated here, a re-ask for its blocked calls.
  await reaskLoop<GenerateResult, CallOptions>({
    retries,
    first,
    ask: (next) => model.doGenerate(next),
    read: (answer, { first: isFirst, last }) => {
      if (standing) {
        // A re-ask answered: the answer before it keeps what went out, its blocked calls re-asked.
        const blockedBefore = standing.gated.calls.filter(isBlocked);
        const isBlockedPart = (p: Content) => p.type === 'tool-call' && blockedBefore.some((b) => b.call.toolCallId === p.toolCallId);
        kept.push(...standing.own.content.filter((p) => !isBlockedPart(p)));
        out.push(...standing.own.calls.filter((g) => !isBlocked(g)));
        usage = addUsage(usage, answer.usage);
      }
      const gated = gateAnswer(tools, answer, ask, last);
      standing = { answer, gated, own: isFirst ? gated : retryPart(gated, out) };
      const blocked = gated.calls.filter(isBlocked);
      return { blocked: blocked.length, reask: () => (ask = reask(ask, gated.visibleText, blocked)) };
    },
  });
  const { answer, gated, own } = standing!;
  const calls = [...out, ...own.calls].filter((g) => g.verdict !== undefined);
  return { ...answer, content: [...kept, ...own.content], usage, finishReason: finishReason(answer.finishReason, calls, gated.sentCalls) };
}

/** An answer through the gate: its calls (those written into its text, if it sent none) gated, and its content as they leave it. */
function gateAnswer(tools: CompiledTools, answer: GenerateResult, params: CallOptions, last: boolean): GatedAnswer {
  const text = answer.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  const sentCalls = answer.content.some((p) => p.type === 'tool-call');
  const found = sentCalls ? null : textCalls(tools, text, params, { last });
  const calls: GatedToolCall[] = [];
  let content: Content[] = answer.content.map((part) => {
    if (part.type !== 'tool-call') return part;
    const g = judge(tools, part);
    calls.push(g);
    return applied(g);
  });
  if (!found) return { calls, content, visibleText: text, sentCalls };
  calls.push(...found.calls);
  const visible = found.visibleText.trim() === '' ? [] : [{ type: 'text' as const, text: found.visibleText }];
  content = [...visible, ...content.filter((p) => p.type !== 'text'), ...found.calls.map(applied)];
  return { calls, content, visibleText: found.visibleText, sentCalls };
}

/** A retry's part of the answer (splitCalls): its calls but those repeating one already out; its text when it sent none. */
function retryPart(gated: GatedAnswer, out: readonly GatedToolCall[]): Pick<GatedAnswer, 'calls' | 'content'> {
  if (gated.calls.length === 0) return { calls: [], content: gated.content.filter((p) => p.type === 'text') };
  const { going, blocked } = splitCalls(gated.calls, { accepted: (g) => !isBlocked(g), sent: (g) => sentBefore(out, g) });
  const calls = [...going, ...blocked];
  return { calls, content: calls.map(applied) };
}
