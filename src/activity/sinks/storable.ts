// The rows as a sink writes them: every string through the storage text codec (NUL and lone surrogates,
// src/store/text-codec.ts, the same encoding as the stores, so one SQL reader rule fits every table),
// and the token counts of a turn checked, so that one upstream's 3e9 or "abc" is a null on its own
// row rather than a refused batch.
import { encodeDeep } from '../../store/text-codec.ts';
import type { ActivityRow, TurnRow } from '../types.ts';

/** A token count worth storing: a non-negative safe integer (the columns are bigint), otherwise null. */
export function tokenCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** A row's share of a model call's tokens: an integer column, so a count past it (or none) is 0. */
function share(value: unknown): number {
  const n = tokenCount(value);
  return n !== null && n <= 2_147_483_647 ? n : 0;
}

export function storableActivity(row: ActivityRow): ActivityRow {
  // Every row names the column, so that PostgREST sees one set of columns in a mixed batch.
  return encodeDeep({
    ...row,
    tool_server: row.tool_server ?? null,
    prompt_tokens: share(row.prompt_tokens),
    completion_tokens: share(row.completion_tokens),
    model_ms: row.model_ms ?? 0,
    wasted: row.wasted ?? false,
    approval: row.approval ?? null,
    protocol: row.protocol ?? null,
    mcp_protocol: row.mcp_protocol ?? null,
    elicitation: row.elicitation ?? null,
  });
}

export function storableTurn(row: TurnRow): TurnRow {
  return encodeDeep({
    ...row,
    prompt_tokens: tokenCount(row.prompt_tokens),
    completion_tokens: tokenCount(row.completion_tokens),
    wasted_calls: row.wasted_calls ?? 0,
    wasted_prompt_tokens: tokenCount(row.wasted_prompt_tokens) ?? 0,
    wasted_completion_tokens: tokenCount(row.wasted_completion_tokens) ?? 0,
    wasted_ms: row.wasted_ms ?? 0,
  });
}
