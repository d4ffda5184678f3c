// rebound-gate/internal: the helpers Rebound's server shares with the gate rather than keeping copies,
// bounded strings and values (bound, echo, MAX_NAME, keptUpTo), a streamed answer's run of plain texts (pushTextRun), JSON (jsonText, isPlainObject, deepEqual, validate,
// schemaExample), content checks (checkContent) and workspace paths (readWorkspacePath). Not public:
// package.json exports this subpath under the "rebound-source" condition only (what this repository
// resolves: tsconfig, vitest, esbuild, tsx, the Supabase function's deno.json), so an installed
// rebound-gate has no "rebound-gate/internal", and these may change with the server at any time.
export { bound } from './bounded.ts';
export { checkContent } from './content/content.ts';
export { jsonText } from './json/json-text.ts';
export { pushTextRun } from './held-answer.ts';
export { keptUpTo } from './limits.ts';
export { echo, MAX_NAME } from './message.ts';
export { readWorkspacePath, type WorkspacePath } from './paths/workspace-path.ts';
export { isPlainObject } from './plain-object.ts';
export { schemaExample } from './schema/schema-example.ts';
export { deepEqual, validate } from './schema/schema.ts';
