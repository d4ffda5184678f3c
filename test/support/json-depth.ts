// How deep a JSON value nests, for tests of values deeper than a recursive walk can go.

/** The value's nesting depth (an object or array is level 1, its members' objects level 2, …), without recursion. */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, d);
    for (const x of Object.values(v)) stack.push([x, d + 1]);
  }
  return deepest;
}
