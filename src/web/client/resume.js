// @ts-check
// What the page keeps in localStorage to pick up where it was after a reload: the session, the turn
// that was running (re-attached to on load: its stream replays from the first event), and each call's
// tool_result (`rebound.calls`), which the history does not keep (history.js derives what it can
// without it), and each finished turn's footer ("done · 2 iterations", `rebound.turnEnds`), which the
// history does not keep either. Storage that is full or blocked loses only this: the page still works.

/** @typedef {import('../../vocabulary.ts').TurnEvent} TurnEvent */
/** @typedef {Extract<TurnEvent, { event: 'tool_result' }>['data']} ToolResult */
/** @typedef {import('./history.js').Remembered} Remembered */
/** The running turn, so a reload can re-attach to it. @typedef {{ turnId: string, sessionId?: string, streamUrl: string, message: string }} RememberedTurn */

const SESSION_KEY = 'rebound.sessionId';
const TURN_KEY = 'rebound.turn';
const CALLS_KEY = 'rebound.calls';
const TURN_ENDS_KEY = 'rebound.turnEnds';
/** Calls remembered (the newest); each is small, but diffs are up to 400 lines. */
const MAX_REMEMBERED = 200;

// --- the session ------------------------------------------------------------------------------
/** @returns {string | null} */
export const sessionId = () => localStorage.getItem(SESSION_KEY);

/** @param {string | undefined} id */
export function saveSession(id) {
  if (id) localStorage.setItem(SESSION_KEY, id);
}

export function forgetSession() {
  localStorage.removeItem(SESSION_KEY);
}

// --- the running turn -------------------------------------------------------------------------
/** @param {RememberedTurn} turn */
export function rememberTurn(turn) {
  try {
    localStorage.setItem(TURN_KEY, JSON.stringify({ turnId: turn.turnId, sessionId: turn.sessionId, streamUrl: turn.streamUrl, message: turn.message }));
  } catch {
    // Storage full or blocked: the turn still runs, a reload just cannot re-attach to it.
  }
}

/** @returns {RememberedTurn | null} */
export function rememberedTurn() {
  const raw = localStorage.getItem(TURN_KEY);
  if (raw === null) return null;
  try {
    const r = JSON.parse(raw);
    if (r && typeof r.turnId === 'string' && typeof r.streamUrl === 'string' && typeof r.message === 'string') return r;
  } catch {
    // Not ours or corrupt: forgotten below.
  }
  localStorage.removeItem(TURN_KEY);
  return null;
}

/**
 * Forgets the remembered turn: any (`turnId` undefined), or only the one with this id.
 * @param {string | null} [turnId]
 */
export function forgetTurn(turnId) {
  if (turnId === undefined) return localStorage.removeItem(TURN_KEY);
  const r = rememberedTurn();
  if (r && r.turnId === turnId) localStorage.removeItem(TURN_KEY);
}

// --- each call's tool_result ------------------------------------------------------------------
/**
 * The calls this browser saw, by call id.
 * @param {Storage} storage
 * @returns {Record<string, Remembered>}
 */
export function rememberedCalls(storage) {
  return /** @type {Record<string, Remembered>} */ (storedObject(storage, CALLS_KEY));
}

/**
 * The JSON object kept under `key`; anything else (nothing, not JSON, not an object) is an empty one.
 * @param {Storage} storage
 * @param {string} key
 * @returns {Record<string, unknown>}
 */
function storedObject(storage, key) {
  try {
    const raw = storage.getItem(key);
    const parsed = raw === null ? null : JSON.parse(raw);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * Keeps a call's tool_result for a later reload: the newest MAX_REMEMBERED, fewer when storage is full.
 * @param {Storage} storage
 * @param {ToolResult} d
 */
export function rememberCall(storage, d) {
  const calls = rememberedCalls(storage);
  delete calls[d.id]; // re-inserted last: the object keeps insertion order, oldest first
  /** @type {Remembered} */
  const kept = { verdict: d.verdict, category: d.category, ok: d.ok, durationMs: d.durationMs };
  if (d.repairs) kept.repairs = d.repairs;
  if (d.diffs) kept.diffs = d.diffs;
  if (d.approval) kept.approval = d.approval;
  calls[d.id] = kept;
  const ids = Object.keys(calls);
  for (let keep = Math.min(ids.length, MAX_REMEMBERED); keep > 0; keep = Math.floor(keep / 2)) {
    const trimmed = Object.fromEntries(ids.slice(-keep).map((id) => [id, calls[id]]));
    try {
      storage.setItem(CALLS_KEY, JSON.stringify(trimmed));
      return;
    } catch {
      // Quota: keep fewer.
    }
  }
}

// --- each finished turn's footer --------------------------------------------------------------
/**
 * The footers of the session's finished turns, by the turn's place among the session's user messages
 * (1 for the first): the history numbers its turns the same way.
 * @param {Storage} storage
 * @param {string | null} session
 * @returns {Record<number, string>}
 */
export function rememberedTurnEnds(storage, session) {
  if (!session) return {};
  /** @type {Record<number, string>} */
  const ends = {};
  for (const [key, text] of Object.entries(storedObject(storage, TURN_ENDS_KEY))) {
    const [s, n] = key.split('#');
    if (s === session && typeof text === 'string') ends[Number(n)] = text;
  }
  return ends;
}

/**
 * Keeps a finished turn's footer for a later reload: the newest MAX_REMEMBERED.
 * @param {Storage} storage
 * @param {string | null} session
 * @param {number} ordinal the turn's user message's place in the session, from 1
 * @param {string} text
 */
export function rememberTurnEnd(storage, session, ordinal, text) {
  if (!session || ordinal < 1) return;
  const ends = storedObject(storage, TURN_ENDS_KEY);
  const key = `${session}#${ordinal}`;
  delete ends[key];
  ends[key] = text;
  const keys = Object.keys(ends).slice(-MAX_REMEMBERED);
  try {
    storage.setItem(TURN_ENDS_KEY, JSON.stringify(Object.fromEntries(keys.map((k) => [k, ends[k]]))));
  } catch {
    // Storage full or blocked: the footer shows until the next reload only.
  }
}
