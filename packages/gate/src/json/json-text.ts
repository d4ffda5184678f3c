// JSON text of a value that may nest deeper than JSON.stringify can go. JSON.parse reads any depth
// iteratively, but JSON.stringify recurses and throws a RangeError at a few thousand levels: a
// gateway request whose tool schema nests 2,500 `anyOf` deep parses, and could not be forwarded. The
// gateway forwards such a tool ungated (its schema is past the limits of limits.ts, so the gate never
// walks it), and its request is written here: JSON.stringify when it can, else one explicit-stack pass
// over plain JSON data (objects, arrays, strings, numbers, booleans, null: what JSON.parse makes).
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return deepJsonText(value);
  }
}

type Frame = { kind: 'array'; items: unknown[]; i: number } | { kind: 'object'; entries: [string, unknown][]; i: number };

/** As JSON.stringify for JSON data (undefined and functions in objects left out, in arrays as null), without recursion. */
export function deepJsonText(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (v: unknown, inArray: boolean): void => {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON: () => unknown }).toJSON();
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ kind: 'array', items: v, i: 0 });
    } else if (v !== null && typeof v === 'object') {
      out.push('{');
      const entries = Object.entries(v).filter(([, x]) => x !== undefined && typeof x !== 'function' && typeof x !== 'symbol');
      stack.push({ kind: 'object', entries, i: 0 });
    } else {
      const text = JSON.stringify(v);
      out.push(text === undefined ? (inArray ? 'null' : '') : text);
    }
  };
  open(value, false);
  while (stack.length > 0) {
    const top = stack.at(-1)!;
    if (top.kind === 'array') {
      if (top.i === top.items.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (top.i > 0) out.push(',');
      open(top.items[top.i++], true);
    } else {
      if (top.i === top.entries.length) {
        out.push('}');
        stack.pop();
        continue;
      }
      if (top.i > 0) out.push(',');
      const [key, v] = top.entries[top.i++]!;
      out.push(`${JSON.stringify(key)}:`);
      open(v, false);
    }
  }
  return out.join('');
}
