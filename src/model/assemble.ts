// Tool calls arrive as deltas: the id and name in the first chunk of a call, the arguments text
// split across many, parallel calls interleaved by `index`. Providers differ at the edges (Mistral
// repeats `"name": ""` in later chunks, some omit `index`, Cerebras repeats a finished call under
// the same index with a new id), so this accumulates defensively.
import type { AssembledToolCall } from './types.ts';

export interface ToolCallDelta {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

export class ToolCallAssembler {
  private calls = new Map<number, AssembledToolCall>();
  /** Calls opened by a new id under an index already in use, mapped to the call they may repeat. */
  private repeats = new Map<number, number>();
  private lastKey = -1;

  push(delta: ToolCallDelta): void {
    const key = this.keyFor(delta);
    let call = this.calls.get(key);
    if (!call) {
      call = { id: '', name: '', arguments: '' };
      this.calls.set(key, call);
    }
    this.lastKey = key;
    if (delta.id && !call.id) call.id = delta.id;
    const name = delta.function?.name;
    // A provider that repeats the whole name in every chunk must not produce "readread".
    if (name && name !== call.name) call.name += name;
    const args = delta.function?.arguments;
    if (args) call.arguments += args;
  }

  /** The calls in index order; a call that never got an id gets a stable synthetic one. */
  result(): AssembledToolCall[] {
    return [...this.calls.entries()]
      .filter(([key, call]) => {
        const original = this.repeats.has(key) ? this.calls.get(this.repeats.get(key)!) : undefined;
        return !(original && original.name === call.name && original.arguments === call.arguments);
      })
      .sort(([a], [b]) => a - b)
      .map(([key, call]) => ({ ...call, id: call.id || `call_${key}` }));
  }

  /** Later deltas for an index that was repeated under a new id continue the newest call. */
  private aliasOf(index: number): number {
    let key = index;
    for (const [repeat, original] of this.repeats) if (original === index) key = repeat;
    return key;
  }

  private keyFor(delta: ToolCallDelta): number {
    if (typeof delta.index === 'number') {
      const existing = this.calls.get(delta.index);
      if (!delta.id || !existing?.id || existing.id === delta.id) return this.aliasOf(delta.index);
      // A new id under a used index: a separate call, or a repeat dropped at the end if identical.
      const key = 1_000_000 + this.repeats.size;
      this.repeats.set(key, delta.index);
      return key;
    }
    // No index: a new id starts a new call, otherwise the delta continues the last one.
    if (delta.id) {
      for (const [key, call] of this.calls) if (call.id === delta.id) return key;
      return this.calls.size;
    }
    return this.lastKey >= 0 ? this.lastKey : 0;
  }
}
