// A server's tools/list answer, cut to the depth Rebound reads before the MCP client walks it. The v2
// client checks a 2025 server's list with zod schemas that recurse into JSON values (its Tool schema's
// inputSchema.properties and outputSchema.properties), scans a 2026-07-28 server's input schemas for
// x-mcp-header declarations recursively, and JSON.stringify-s lists it caches or compares: one tool
// whose schema nested anyOf 2,000 levels overflowed the stack there, and the whole server's listing
// failed, where that tool alone is to be left out (source.ts, docs/configuration.md § Limits).
//
// Rebound reads no schema deeper than the gate's MAX_SCHEMA_DEPTH (source.ts leaves such a tool out,
// with checkSchema's reason). So every object and array one level past it, anywhere in a listed tool,
// is emptied in place, by an iterative walk, before the SDK sees the message: sdk.ts hands this to the
// transport as its first `onmessage`, which the SDK's Protocol.connect keeps and calls before its own
// handling. A schema that nested deeper still does, by that one empty level, so checkSchema refuses it
// as before ("nests deeper than 32 levels"); a schema within the limits is not changed.
import { MAX_SCHEMA_DEPTH } from 'rebound-gate';

/** The levels kept in a listed tool: the tool is level 1 and its inputSchema level 2, so a schema's level k is the tool's k + 1. */
export const MAX_LISTED_TOOL_DEPTH = MAX_SCHEMA_DEPTH + 2;

/** When `message` is an answer with a `tools` list, cuts each tool to MAX_LISTED_TOOL_DEPTH levels; any other message is left alone. */
export function boundListedTools(message: unknown): void {
  if (typeof message !== 'object' || message === null) return;
  const result = (message as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null) return;
  const tools = (result as { tools?: unknown }).tools;
  if (!Array.isArray(tools)) return;
  for (const tool of tools) cutAt(tool, MAX_LISTED_TOOL_DEPTH);
}

/** Empties, in place, each object and array at level `depth` of `root` (root is level 1), so nothing in it nests deeper. */
export function cutAt(root: unknown, depth: number): void {
  if (typeof root !== 'object' || root === null || depth < 2) return;
  const stack: Array<{ value: object; level: number }> = [{ value: root, level: 1 }];
  while (stack.length > 0) {
    const { value, level } = stack.pop()!;
    for (const key of Object.keys(value)) {
      const child: unknown = (value as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null) continue;
      if (level + 1 < depth) stack.push({ value: child, level: level + 1 });
      // defineProperty, not assignment: a key "__proto__" (JSON.parse makes it an own property) is replaced too.
      else Object.defineProperty(value, key, { value: Array.isArray(child) ? [] : {}, writable: true, enumerable: true, configurable: true });
    }
  }
}
