// A tool's result as everyone downstream gets it: the model (its tool message), the client (the
// tool_result event), the turn's log in memory and in agent_turn_events, the trace. Up to
// MAX_RESULT_CHARS of JSON the result is itself; past it, a string holding the start of its JSON and a
// `truncated` note with the original length, cut so that the whole tool message stays within the cap
// however much escaping the cut text needs. Bounded once, where the tool returns (loop/execute.ts), so
// a 20 MB result is held nowhere after that: not in the log, not in the stored events.

/** The longest result the model is sent (characters of its JSON); longer ones are cut, and say so. */
export const MAX_RESULT_CHARS = 40_000;

export interface BoundedResult {
  /** The result, or the start of its JSON as a string. */
  result: unknown;
  /** `result` as JSON text. */
  json: string;
  /** Present when cut: "the result is 20971522 characters of JSON; only the first 39985 are shown". */
  truncated?: string;
}

/** `json`: the whole result as JSON text (JSON.stringify of `result`). */
export function boundedResult(result: unknown, json: string): BoundedResult {
  if (json.length <= MAX_RESULT_CHARS) return { result, json };
  for (let keep = MAX_RESULT_CHARS; ; ) {
    const truncated = `the result is ${json.length} characters of JSON; only the first ${keep} are shown`;
    const cutResult = json.slice(0, keep);
    const cutJson = JSON.stringify(cutResult);
    // The tool message is {"ok":true,"result":…,"truncated":…}: its overhead is the note and ~40 characters.
    if (cutJson.length + truncated.length + 40 <= MAX_RESULT_CHARS + 200 || keep === 0) return { result: cutResult, json: cutJson, truncated };
    keep = Math.floor((keep * MAX_RESULT_CHARS) / (cutJson.length + truncated.length + 40));
  }
}
