// The calls a model wrote into the text of an answer that has no function_call item, as function_call
// items, taken as the gateway and the AI SDK adapter take them (gatedTextCalls: fresh ids; on the last
// attempt only when every one passes, the unchanged answer being the fallback). The answer keeps its
// assistant text without them; the items are appended as written, for gateOutput to repair or block.
import type { AgentOutputItem, FunctionCallItem, ModelRequest } from '@openai/agents';
import { type GatedTextCalls, gatedTextCalls } from '../held-answer.ts';
import type { CompiledTools } from '../tools.ts';

/** A call found in the text, as the item that would go out, and whether the gate accepts it. */
export interface FoundCall {
  item: FunctionCallItem;
  accepted: boolean;
}

export type FindTextCalls = (text: string, options: { last: boolean }) => GatedTextCalls<FoundCall> | null;

/** The finder for this request's tools (HeldAnswer's textCalls); null: the request allows no call. */
export function textCallFinder(tools: CompiledTools, request: ModelRequest): FindTextCalls | null {
  if (request.modelSettings.toolChoice === 'none') return null;
  return (text, { last }) =>
    gatedTextCalls(text, tools.tools, {
      last,
      check: (c) => ({
        item: { type: 'function_call', callId: c.id, name: c.name, arguments: c.arguments, status: 'completed' },
        accepted: tools.check(c).verdict !== 'blocked',
      }),
      accepted: (f) => f.accepted,
    });
}

/** The text of the answer's assistant messages. */
export function answerText(output: readonly AgentOutputItem[]): string {
  let text = '';
  for (const item of output) {
    if (item.type !== 'message' || item.role !== 'assistant') continue;
    for (const part of item.content) if (part.type === 'output_text') text += part.text;
  }
  return text;
}

/** The answer with `found` taken out of its text: its assistant text becomes the visible text, the calls follow. */
export function withTextCalls<T extends AgentOutputItem>(output: readonly T[], found: GatedTextCalls<FoundCall>): T[] {
  let placed = false;
  const kept = output.flatMap((item): T[] => {
    if (item.type !== 'message' || item.role !== 'assistant') return [item];
    const others = item.content.filter((part) => part.type !== 'output_text');
    const text = placed || found.visibleText.trim() === '' ? [] : [{ type: 'output_text' as const, text: found.visibleText }];
    placed ||= text.length > 0;
    const content = [...text, ...others];
    return content.length ? [{ ...item, content }] : [];
  });
  return [...kept, ...found.calls.map((c) => c.item as T)];
}

/** A generated answer with the calls written into its text taken out (an answer with function calls stays as it is). */
export function takeTextCalls<T extends AgentOutputItem>(find: FindTextCalls | null, output: readonly T[], options: { last: boolean }): readonly T[] {
  if (!find || output.some((item) => item.type === 'function_call')) return output;
  const found = find(answerText(output), options);
  return found ? withTextCalls(output, found) : output;
}
