// @ts-check
// What a tool card restored from the history can show. The history keeps the assistant's calls as the
// model wrote them and each tool message (a ToolResultPayload, src/vocabulary.ts), not the tool_result
// events, so the page keeps the events' own account of each call (verdict, category, repairs, diffs)
// in localStorage as they arrive (resume.js), and shows it again after a reload. Without one (another browser,
// cleared storage) the verdict is derived from the tool message: a payload with suggestions, or an
// error without a hint, is a call that was refused (by the gate, or the loop breaker) and so blocked;
// an error with a hint is a call that ran and failed; ok is a call that ran. Whether the gate repaired
// a call that ran is in neither, so a derived card says "ran", not "passed".

/** @typedef {import('../../vocabulary.ts').TurnEvent} TurnEvent */
/** @typedef {Extract<TurnEvent, { event: 'tool_result' }>['data']} ToolResult */
/**
 * What a tool card shows of a call's result: a tool_result event's data, or as much of it as a
 * history entry gives (`derived`: from the tool message alone).
 * @typedef {Omit<ToolResult, 'category' | 'durationMs' | 'verdict'> & {
 *   verdict: ToolResult['verdict'] | 'ran',
 *   category?: ToolResult['category'],
 *   durationMs?: number,
 *   derived?: true,
 * }} CardResult
 */
/** The part of a tool_result kept for the history: not the result, which the tool message holds. */
/** @typedef {Pick<ToolResult, 'verdict' | 'category' | 'ok' | 'repairs' | 'diffs' | 'durationMs' | 'approval'>} Remembered */

/**
 * The card for a call restored from the history.
 * @param {{ id: string, name: string, content: string, remembered: Remembered | undefined }} entry
 * @returns {CardResult}
 */
export function historyResult({ id, name, content, remembered }) {
  /** @type {unknown} */
  let payload;
  try {
    payload = JSON.parse(content);
  } catch {
    payload = null;
  }
  const p =
    payload !== null && typeof payload === 'object' && typeof (/** @type {{ ok?: unknown }} */ (payload).ok) === 'boolean'
      ? /** @type {import('../../vocabulary.ts').ToolResultPayload} */ (payload)
      : null;
  if (remembered) {
    if (p === null) return { id, name, ...remembered, result: content };
    return p.ok
      ? { id, name, ...remembered, result: p.result }
      : { id, name, ...remembered, error: p.error, ...(p.suggestions ? { suggestions: p.suggestions } : {}), ...(p.reason ? { reason: p.reason } : {}) };
  }
  if (p === null) return { id, name, verdict: 'ran', ok: true, result: content, derived: true };
  if (p.ok) return { id, name, verdict: 'ran', ok: true, result: p.result, derived: true };
  const refused = Array.isArray(p.suggestions) || p.hint === undefined;
  return {
    id,
    name,
    verdict: refused ? 'blocked' : 'ran',
    ok: false,
    error: p.error,
    ...(p.suggestions && p.suggestions.length > 0 ? { suggestions: p.suggestions } : {}),
    derived: true,
  };
}
