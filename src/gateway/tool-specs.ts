// What the gate reads of a request's function tool, kept for the next request that sends the same tool.
// An agent sends its whole toolset with every request, and reading it again cost every request: the
// ToolSpec with withFileParams, the schema's check against the gate's limits, and on the first call the
// schema's compilation, which rebound-gate caches per schema object (schema-compile.ts), so per request.
// For 7.6 KB of tools that was 0.15–0.25 ms before the upstream was asked and 0.07–0.37 ms more on the
// first call (docs/benchmarks.md § The streaming paths at the physical limit). The key is the tool's
// text as the request sent it, when the route has it (the body's scan finds each member of `tools`:
// src/http/json-scan.ts), else the JSON text of what is read (a translated protocol's tools, made by its
// codec), which cost a JSON.stringify of every tool with every request (~0.02 ms for 7.6 KB). An entry
// is a function of its key's text alone, so no caller's request reaches another's answer; the two kinds
// of key never meet (a tool's text is an object's, `{…}`; the JSON key an array's, `[…]`). At most TOOL_CACHE_ENTRIES tools and TOOL_CACHE_CHARS of their text are kept, the
// least recently used dropped first; a tool larger than TOOL_CACHE_MAX_TOOL_CHARS is read afresh.
import { checkSchema, type JSONSchema, type SchemaCheck, type ToolSpec, toolSpec, withFileParams } from 'rebound-gate';
import { jsonText } from 'rebound-gate/internal';

export const TOOL_CACHE_ENTRIES = 512;
export const TOOL_CACHE_CHARS = 8 * 1024 * 1024;
export const TOOL_CACHE_MAX_TOOL_CHARS = 512 * 1024;

/** A function tool as the request's schema has checked it. */
export interface FunctionTool {
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
}

/** A tool's ToolSpec (withFileParams applied: the coding agents' file tools get the content checks) and whether the gate reads its schema. */
export interface ReadTool {
  spec: ToolSpec;
  check: SchemaCheck;
}

const cache = new Map<string, ReadTool>();
let cachedChars = 0;

/**
 * The tool as the gate reads it: kept from an earlier request that sent the same text, or read now and
 * kept. `sent`: the request's text of the tool whose `function` is `fn` (what JSON.parse made it of).
 */
export function readTool(fn: FunctionTool, sent?: string): ReadTool {
  // Everything toolSpec and withFileParams read, null and absent alike (toolSpec treats them alike).
  const key = sent ?? jsonText([fn.name, fn.description ?? null, fn.parameters ?? null]);
  const kept = cache.get(key);
  if (kept) {
    // The most recently used last: Map keeps insertion order, so the first key is the one to drop.
    cache.delete(key);
    cache.set(key, kept);
    return kept;
  }
  const spec = withFileParams(toolSpec({ name: fn.name, description: fn.description, parameters: fn.parameters as JSONSchema | null | undefined }));
  const read = { spec, check: checkSchema(spec.parameters) };
  if (key.length <= TOOL_CACHE_MAX_TOOL_CHARS) {
    cache.set(key, read);
    cachedChars += key.length;
    for (const [oldest, _] of cache) {
      if (cache.size <= TOOL_CACHE_ENTRIES && cachedChars <= TOOL_CACHE_CHARS) break;
      cache.delete(oldest);
      cachedChars -= oldest.length;
    }
  }
  return read;
}
