// What a tool says about itself, in MCP's shape (spec 2025-06-18, `ToolAnnotations`): hints a client
// may act on, never guarantees. Defined once, here, so that the gate (which must not import the
// server), own tools (src/tools/define.ts), MCP tools (src/tools/mcp/) and a gateway request's tools
// all carry the same words. The gate reads one thing from them: whether a tool is destructive, because
// a guess (a repaired tool name, a suggestion) may never land on a tool that deletes or overwrites.
// Other per-tool policy (an approval requirement) sits beside `annotations` on the tool, not inside.
import { words } from './words.ts';

/** MCP's tool annotations. */
export interface ToolAnnotations {
  /** A human-readable title. */
  title?: string;
  /** The tool does not change its environment (MCP default: false). */
  readOnlyHint?: boolean;
  /** When it changes its environment, it may destroy or overwrite (MCP default: true). */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect (MCP default: false). */
  idempotentHint?: boolean;
  /** It reaches outside a closed world, such as the web (MCP default: true). */
  openWorldHint?: boolean;
}

/** The words that make a tool without annotations destructive, as whole words of its name. */
export const DESTRUCTIVE_WORDS: readonly string[] = ['delete', 'remove', 'drop', 'destroy', 'erase', 'truncate', 'overwrite', 'reset', 'kill'];

const DESTRUCTIVE = new Set(DESTRUCTIVE_WORDS);

/**
 * Whether a guess may not land on this tool. With annotations, MCP's defaults: destructive unless
 * `readOnlyHint === true` or `destructiveHint === false`. Without (a gateway request's tools, the
 * corpora), by its name: one of DESTRUCTIVE_WORDS as a whole word of it (`delete_file`, `dropTable`,
 * `kill-process`; not `profile`, `dropdown_options`).
 */
export function isDestructive(tool: { name: string; annotations?: ToolAnnotations }): boolean {
  const a = tool.annotations;
  if (a) return !(a.readOnlyHint === true || a.destructiveHint === false);
  return words(tool.name).some((w) => DESTRUCTIVE.has(w));
}
