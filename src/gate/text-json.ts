// Finding JSON values inside free text: where a balanced `{…}` / `[…]` starts and ends (strings and
// escapes respected), then parsing it strictly or with the few repairs a model's hand-written JSON
// needs (trailing commas, Python literals). Nothing here guesses at a truncated value: an unbalanced
// value is simply not found.

/** Index just past the bracket that closes the one at `start`, or -1. */
export function balancedEnd(text: string, start: number): number {
  const open = text[start];
  if (open !== '{' && open !== '[') return -1;
  const stack: string[] = [];
  let inStr = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

export function parseLoose(src: string): unknown {
  try {
    return JSON.parse(src);
  } catch {
    // fall through to the repairs below
  }
  const fixed = src
    .replace(/,\s*([}\]])/g, '$1')
    .replace(/(?<=[:\[,]\s*)True\b/g, 'true')
    .replace(/(?<=[:\[,]\s*)False\b/g, 'false')
    .replace(/(?<=[:\[,]\s*)None\b/g, 'null');
  try {
    return JSON.parse(fixed);
  } catch {
    return undefined;
  }
}

export interface JsonSpan {
  start: number;
  end: number;
  value: unknown;
}

/** The JSON value starting at `start` (after optional whitespace), if there is a complete one. */
export function jsonAt(text: string, start: number): JsonSpan | undefined {
  let i = start;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  const end = balancedEnd(text, i);
  if (end < 0) return undefined;
  const value = parseLoose(text.slice(i, end));
  return value === undefined ? undefined : { start: i, end, value };
}

/** Consecutive JSON values from `start`, separated by whitespace, commas or newlines only. */
export function jsonRun(text: string, start: number): JsonSpan[] {
  const out: JsonSpan[] = [];
  let i = start;
  for (;;) {
    const v = jsonAt(text, i);
    if (!v) break;
    out.push(v);
    i = v.end;
    while (i < text.length && /[\s,;]/.test(text[i]!)) i++;
  }
  return out;
}
