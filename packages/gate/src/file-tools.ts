// The parameters that carry files in the coding agents' own tools, for a host where nobody marks a
// parameter `x-rebound-code` (Rebound's gateway in front of Claude Code or Codex): a file body cut short
// with "// ... rest of the code unchanged" is the agents' worst failure, since the agent writes it as it
// is and the rest of the file is lost.
// - a whole file: a path parameter beside a content parameter (Claude Code's Write: file_path and
//   content; write_file(path, content) and its kin) → codeParams, the full content checks;
// - a fragment: the text an edit puts in (Claude Code's Edit.new_string, new_str, replacement beside a
//   path) → fragmentParams, placeholders only (a fragment's brackets need not balance);
// - a patch: Codex's apply_patch text, as its own tool's input (freeform, or a function's string
//   parameter) or as a heredoc inside a shell command's cmd / command → patchParams (content/patch.ts).
// Only top-level string parameters are read, and only what the schema itself does not mark.
import { markRead, wasRead } from './tools.ts';
import type { JSONSchema, ToolSpec } from './types.ts';

const PATH = /^(path|file_?path|file_?name|filename|file|target_?file|absolute_?path)$/i;
const CONTENT = /^(content|contents|file_?text|file_?content|new_?content|text|body|code|data|source)$/i;
const FRAGMENT = /^(new_?string|new_?str|new_?text|replacement|replace_?with|new_?code)$/i;
const COMMAND = /^(cmd|command|script)$/i;
const PATCH = /^(input|patch|diff)$/i;

const isString = (s: JSONSchema | undefined) => s !== undefined && (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string')));
const isCommand = (s: JSONSchema | undefined) => isString(s) || (s?.type === 'array' && isString(s.items as JSONSchema | undefined));

/** `spec` with the file-carrying parameters of a coding agent's tool found by their names and schema. */
export function withFileParams(spec: ToolSpec): ToolSpec {
  const properties = (spec.parameters.properties ?? {}) as Record<string, JSONSchema>;
  const names = Object.keys(properties);
  const marked = new Set([...(spec.codeParams ?? []), ...(spec.pathParams ?? [])]);
  const free = names.filter((n) => !marked.has(n));
  const hasPath = names.some((n) => PATH.test(n) && isString(properties[n]));
  const code = hasPath ? free.filter((n) => CONTENT.test(n) && isString(properties[n])) : [];
  const fragments = hasPath ? free.filter((n) => FRAGMENT.test(n) && isString(properties[n])) : [];
  const patchTool = /^apply_?patch$/i.test(spec.name);
  const patches = free.filter((n) => (COMMAND.test(n) && isCommand(properties[n])) || (patchTool && PATCH.test(n) && isString(properties[n])));
  if (code.length === 0 && fragments.length === 0 && patches.length === 0) return spec;
  const found: ToolSpec = {
    ...spec,
    ...(code.length ? { codeParams: [...(spec.codeParams ?? []), ...code] } : {}),
    ...(fragments.length ? { fragmentParams: fragments } : {}),
    ...(patches.length ? { patchParams: patches } : {}),
  };
  // The same parameters and keywords as `spec`: read when it was.
  return wasRead(spec) ? markRead(found) : found;
}
