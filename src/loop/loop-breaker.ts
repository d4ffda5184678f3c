// Models that fail a tool call often send the identical call again and again (peer report: vercel/ai
// #9124, cascades after one failure). The breaker remembers each failed call of one turn by tool,
// category and arguments, and escalates what the model is told: the 2nd identical failure comes with
// the tool's schema and a valid example, the 3rd withholds the tool for the rest of the turn (it is
// no longer offered, and a call to it is refused). One breaker per turn; the loop only asks it.
//
// "Identical" is judged on the arguments as parsed, in canonical form (keys sorted, no spacing), so
// reformatting does not dodge it; arguments that are not JSON are compared without their whitespace.
// A failure for a tool that does not exist still escalates its message, but there is nothing to show
// or to withhold.
import type { Category, ToolSpec } from 'rebound-gate';
import { echo, schemaExample } from 'rebound-gate/internal';
import type { Escalation } from '../calls/types.ts';
import { canonicalJson } from '../tools/canonical-json.ts';

export interface FailedCall {
  /** The tool as the model named it (blocked call) or as it ran (execution error). */
  tool: string;
  /** What went wrong: the gate's category, or execution_error. */
  category: Category;
  /** The raw arguments text, or the parsed arguments the tool ran with. */
  args: string | Record<string, unknown>;
}

export interface LoopBreakerOptions {
  /** The identical failure that shows the schema and an example (default 2). */
  schemaAt?: number;
  /** The identical failure that withholds the tool (default 3). */
  withholdAt?: number;
}

/** What a breaker remembers, as JSON: a paused turn keeps it (src/loop/turn-state.ts's snapshot). */
export interface LoopBreakerMemory {
  failures: Array<[key: string, repeats: number]>;
  withheld: string[];
}

export class LoopBreaker {
  private readonly failures = new Map<string, number>();
  private readonly withheld = new Set<string>();
  private readonly schemaAt: number;
  private readonly withholdAt: number;

  private readonly tools: readonly ToolSpec[];
  constructor(tools: readonly ToolSpec[], options: LoopBreakerOptions = {}) {
    this.tools = tools;
    this.schemaAt = options.schemaAt ?? 2;
    this.withholdAt = options.withholdAt ?? 3;
    if (!(this.schemaAt >= 2 && this.withholdAt >= this.schemaAt)) {
      throw new Error(`LoopBreaker: need 2 <= schemaAt <= withholdAt, got schemaAt ${this.schemaAt}, withholdAt ${this.withholdAt}`);
    }
  }

  /** Records one failed call. Null the first time; from the second identical failure on, how to escalate. */
  failed(call: FailedCall): Escalation | null {
    const args = argumentsKey(call.args);
    if (args === null) return null;
    const key = JSON.stringify([call.tool, call.category, args]);
    const repeats = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, repeats);
    if (repeats < this.schemaAt) return null;

    const spec = this.tools.find((t) => t.name === call.tool);
    const quoted = `"${echo(call.tool, 80)}"`;
    const head = `Repeated: this identical call to ${quoted} has now failed ${repeats} times in the same way.`;
    if (!spec) return { repeats, withheld: false, note: `${head} Sending it again will fail again: call one of the available tools instead.` };
    if (repeats >= this.withholdAt) {
      this.withheld.add(spec.name);
      return {
        repeats,
        withheld: true,
        note: `${head} ${quoted} is now withheld for the rest of this turn: it is no longer offered and calls to it will not run. ${this.instead(spec.name)}`,
      };
    }
    return {
      repeats,
      withheld: false,
      note: `${head} Sending it again unchanged will fail again: compare it with the tool's "schema" and the valid "example" arguments below, and change what is wrong.`,
      shown: { schema: spec.parameters, example: schemaExample(spec.parameters) },
    };
  }

  memory(): LoopBreakerMemory {
    return { failures: [...this.failures], withheld: [...this.withheld] };
  }

  /** Takes up what an earlier breaker of the same turn remembered (a turn resumed after a pause). */
  restore(memory: LoopBreakerMemory): void {
    for (const [key, repeats] of memory.failures) this.failures.set(key, repeats);
    for (const tool of memory.withheld) this.withheld.add(tool);
  }

  isWithheld(tool: string): boolean {
    return this.withheld.has(tool);
  }

  /** The tools still offered to the model. */
  offered(): ToolSpec[] {
    return this.withheld.size === 0 ? [...this.tools] : this.tools.filter((t) => !this.withheld.has(t.name));
  }

  /** The message for a call to a withheld tool, which is refused without running. */
  refusal(tool: string): string {
    const quoted = `"${echo(tool, 80)}"`;
    return `Tool ${quoted} was not executed: it was withheld for the rest of this turn after identical calls to it failed ${this.withholdAt} times in the same way. ${this.instead(tool)}`;
  }

  private instead(tool: string): string {
    const others = this.tools.filter((t) => t.name !== tool && !this.withheld.has(t.name)).map((t) => t.name);
    const list = others.length > 0 ? ` (${others.slice(0, 10).join(', ')}${others.length > 10 ? ', …' : ''})` : '';
    return `Continue with another tool${list}, or answer with what you have and say what did not work.`;
  }
}

/**
 * Arguments in a form where the same call compares equal: canonical JSON (keys sorted, no spacing) of
 * the parsed value; text that is not JSON, without its whitespace. Null when the value is too deep to
 * canonicalise (such a call is then never counted as a repeat).
 */
export function argumentsKey(args: string | Record<string, unknown>): string | null {
  let value: unknown = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      return args.replace(/\s+/g, '');
    }
  }
  try {
    return canonicalJson(value);
  } catch {
    return typeof args === 'string' ? args.replace(/\s+/g, '') : null;
  }
}
