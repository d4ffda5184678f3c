// How the model sees an MCP tool: `<server>__<tool>`, within OpenAI's function-name rule (letters,
// digits, `_` and `-`, at most 64 characters). Server names are checked at config time (no `__`, so the
// first `__` marks where the server ends); a tool's own name is the server's to choose, so characters
// outside the rule become `_`, and a name that is too long, or that collides after that, keeps its
// start and ends in a short hash of the original name. The mapping is a pure function of the list.

export const MAX_TOOL_NAME = 64;
export const SERVER_SEPARATOR = '__';
/** OpenAI's rule for function names. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The server a `<server>__<tool>` name points at, or null for any other name. */
export function serverPrefix(name: string): string | null {
  const at = name.indexOf(SERVER_SEPARATOR);
  return at > 0 ? name.slice(0, at) : null;
}

/** The server's tool names → the names the model sees, in list order. Empty names are left out. */
export function exposedNames(server: string, tools: readonly string[]): Map<string, string> {
  const prefix = `${server}${SERVER_SEPARATOR}`;
  const plain = (tool: string) => prefix + tool.replace(/[^A-Za-z0-9_-]/g, '_');
  const hashed = (tool: string) => `${plain(tool).slice(0, MAX_TOOL_NAME - 7)}_${hash(tool)}`;
  const unique = [...new Set(tools.filter((t) => t !== ''))];
  // A tool whose name is already valid keeps it; one that had to change yields to it on a collision.
  const exact = new Set(unique.filter((t) => TOOL_NAME.test(prefix + t)).map((t) => prefix + t));
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const tool of unique) {
    let name = plain(tool);
    const keeps = exact.has(prefix + tool);
    if (name.length > MAX_TOOL_NAME || (!keeps && (exact.has(name) || taken.has(name)))) name = hashed(tool);
    if (taken.has(name)) continue; // two names with one hash: vanishingly rare, and the first keeps it
    taken.add(name);
    out.set(tool, name);
  }
  return out;
}

/** FNV-1a, 32 bits, as 6 hex digits: short, stable across runtimes, no crypto needed. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0').slice(0, 6);
}
