// Tool calls arrive as deltas: the id and name in the first chunk of a call, the arguments text
// split across many, parallel calls interleaved by `index`. Providers differ at the edges (Mistral
// repeats `"name": ""` in later chunks, some omit `index`, Cerebras repeats a finished call under
// the same index with a new id), so this accumulates defensively: a field of the wrong type is
// ignored, and every delta costs the same whatever came before (no scan over earlier calls), so a
// completion with thousands of calls assembles in linear time. A call's arguments are kept up to the
// gate's limit (MAX_ARGUMENTS_CHARS) and the rest only counted (`argumentsChars`): past it the gate
// blocks the call unread whatever it holds, so what one call costs does not grow with what is streamed.
import { MAX_ARGUMENTS_CHARS } from 'rebound-gate';
import { keptUpTo } from 'rebound-gate/internal';
import type { AssembledToolCall } from './types.ts';

export interface ToolCallDelta {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/** Indexes real providers use are small; anything else is treated as absent. Repeats get keys above them. */
const MAX_INDEX = 2 ** 31;

export class ToolCallAssembler {
  /** The calls by key: the delta's index, or a key of our own for a repeat or a call sent without index. */
  private calls = new Map<number, AssembledToolCall>();
  /** The key of the first call that got each id (deltas without index find their call by id). */
  private keyById = new Map<string, number>();
  /** Calls opened by a new id under an index already in use, mapped to the index they may repeat. */
  private repeats = new Map<number, number>();
  /** For an index that was repeated: the key of its newest repeat, which later deltas continue. */
  private newestRepeat = new Map<number, number>();
  /** The key of the call the last delta went to (a delta with neither index nor id continues it). */
  private lastKey = -1;
  /** No key below this one is free: where the search for a key for a new call without index starts. */
  private freeFrom = 0;

  push(delta: ToolCallDelta): void {
    if (delta === null || typeof delta !== 'object') return;
    const id = typeof delta.id === 'string' && delta.id ? delta.id : undefined;
    const key = this.keyFor(delta, id);
    let call = this.calls.get(key);
    if (!call) {
      call = { id: '', name: '', arguments: '' };
      this.calls.set(key, call);
    }
    this.lastKey = key;
    if (id && !call.id) {
      call.id = id;
      if (!this.keyById.has(id)) this.keyById.set(id, key);
    }
    const fn = delta.function;
    if (fn === null || typeof fn !== 'object') return;
    // A provider that repeats the whole name in every chunk must not produce "readread".
    if (typeof fn.name === 'string' && fn.name && fn.name !== call.name) call.name += fn.name;
    if (typeof fn.arguments === 'string' && fn.arguments) {
      const chars = (call.argumentsChars ?? call.arguments.length) + fn.arguments.length;
      call.arguments = keptUpTo(call.arguments, fn.arguments, MAX_ARGUMENTS_CHARS);
      if (chars > call.arguments.length) call.argumentsChars = chars;
    }
  }

  /** The calls in key order; a call that never got an id gets a stable synthetic one. */
  result(): AssembledToolCall[] {
    // One call and no repeat (the gateway assembles each streamed call on its own): that call, without
    // the entries' copy, filter, sort and map below, which the held call paid on its cold path before it
    // was gated (~6 µs of it; docs/benchmarks.md § The streaming paths at the physical limit (issue 34),
    // H1 of the fifth session).
    if (this.calls.size === 1 && this.repeats.size === 0) {
      for (const [key, call] of this.calls) return [{ ...call, id: call.id || `call_${key}` }];
    }
    return [...this.calls.entries()]
      .filter(([key, call]) => {
        const original = this.repeats.has(key) ? this.calls.get(this.repeats.get(key)!) : undefined;
        return !(original && original.name === call.name && original.arguments === call.arguments);
      })
      .sort(([a], [b]) => a - b)
      .map(([key, call]) => ({ ...call, id: call.id || `call_${key}` }));
  }

  private keyFor(delta: ToolCallDelta, id: string | undefined): number {
    const index = delta.index;
    if (typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < MAX_INDEX) {
      const existing = this.calls.get(index);
      // Later deltas for an index that was repeated under a new id continue the newest call.
      if (!id || !existing?.id || existing.id === id) return this.newestRepeat.get(index) ?? index;
      // A new id under a used index: a separate call, or a repeat dropped at the end if identical.
      const key = MAX_INDEX + this.repeats.size;
      this.repeats.set(key, index);
      this.newestRepeat.set(index, key);
      return key;
    }
    // No index: a new id starts a new call, otherwise the delta continues the last one.
    if (id) return this.keyById.get(id) ?? this.freeKey();
    return Math.max(this.lastKey, 0);
  }

  private freeKey(): number {
    while (this.calls.has(this.freeFrom)) this.freeFrom++;
    return this.freeFrom;
  }
}
