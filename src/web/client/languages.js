// @ts-check
// The code languages the chat page highlights, each with the fence names that mean it. One list for
// the page (which loads a language's grammar the first time a fence needs it) and for
// scripts/embed-assets.mjs (which embeds each grammar, with the grammars it embeds in turn, as an asset).

/** Grammar name in @speed-highlight/core → the fence info strings that select it. */
export const LANGUAGES = {
  ts: ['ts', 'typescript', 'tsx', 'mts', 'cts'],
  js: ['js', 'javascript', 'jsx', 'mjs', 'cjs', 'node'],
  py: ['py', 'python', 'python3', 'pyi'],
  json: ['json', 'jsonc', 'json5', 'jsonl'],
  bash: ['bash', 'sh', 'shell', 'zsh', 'console', 'shellscript'],
  sql: ['sql', 'postgresql', 'postgres', 'psql', 'sqlite', 'mysql', 'plpgsql'],
  html: ['html', 'htm', 'xhtml', 'xml', 'svg', 'vue', 'svelte'],
  css: ['css'],
  go: ['go', 'golang'],
  rs: ['rs', 'rust'],
  diff: ['diff', 'patch'],
  yaml: ['yaml', 'yml'],
  toml: ['toml'],
};

/** @typedef {keyof typeof LANGUAGES} LanguageName */

/** @type {Map<string, LanguageName>} */
const byFenceName = new Map();
for (const [name, aliases] of Object.entries(LANGUAGES)) {
  for (const alias of aliases) byFenceName.set(alias, /** @type {LanguageName} */ (name));
}

/**
 * The grammar for a fence's info string ("TypeScript", "py", "sh"), or null for one not highlighted.
 * @param {string} fence
 * @returns {LanguageName | null}
 */
export function languageOf(fence) {
  return byFenceName.get(fence.toLowerCase()) ?? null;
}
