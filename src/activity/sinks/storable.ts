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

export function storableActivity(row: ActivityRow): ActivityRow {
  // Every row names the column, so that PostgREST sees one set of columns in a mixed batch.
  return encodeDeep({ ...row, tool_server: row.tool_server ?? null });
}

export function storableTurn(row: TurnRow): TurnRow {
  return encodeDeep({ ...row, prompt_tokens: tokenCount(row.prompt_tokens), completion_tokens: tokenCount(row.completion_tokens) });
}
