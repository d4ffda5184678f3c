// @ts-check
// The chat page's script: what happens on the page (send, stop, a reload re-attaching to the running
// turn, sessions). Its parts: the stream client (stream.js: EventSource, events, reconnect), what is kept
// in localStorage to resume after a reload (resume.js), and the view (page.js for the page, view.js for
// one assistant message). Authored as plain JavaScript checked by tsc (JSDoc types from the SSE
// protocol's own TurnEvent), bundled with its modules and libraries into src/web/assets/chat.js.ts by
// scripts/embed-assets.mjs, whose output is checked in: the page needs no build step to be served.
// Model output only ever reaches the DOM as text nodes or through the Markdown tree (markdown.js).
import { addUser, autosize, form, input, newAssistant, newBtn, renderHistory, setBusy, setConn, setModel, showHint, stopBtn, transcript } from './page.js';
import {
  forgetSession,
  forgetTurn,
  rememberCall,
  rememberedCalls,
  rememberedTurn,
  rememberedTurnEnds,
  rememberTurn,
  rememberTurnEnd,
  saveSession,
  sessionId,
} from './resume.js';
import { openStream, watchConnection } from './stream.js';

/** @typedef {import('../../vocabulary.ts').ChatMessage} ChatMessage */
/** @typedef {import('./stream.js').EventData<'done'>} DoneData */
/** @typedef {import('./stream.js').EventData<'forced_summary'>} SummaryData */
/**
 * The running turn: what the stream client keeps (stream.js) and what the page drew for it.
 * @typedef {import('./stream.js').StreamState & {
 *   id: string | null, streamUrl: string | null, message: string,
 *   view: ReturnType<typeof newAssistant>, userNode: HTMLElement,
 *   controller: AbortController | null,
 *   stopTimer: ReturnType<typeof setTimeout> | undefined,
 *   historyCount: number | null,
 *   waiting: boolean,
 * }} Turn
 */

const TOKEN_KEY = 'rebound.token';
// After Stop, how long to wait for done{aborted} on the stream before closing it anyway.
const STOP_FALLBACK_MS = 5000;

adoptUrlToken();

/**
 * Local mode's chat URL carries the server's local access token (`/?token=…`, printed at start, as
 * Jupyter's does): keep it where authHeaders reads it, for this visit and the next, and take it out of
 * the address bar, the history entry and anything copied from there. Never a JWT (it has dots, a local
 * token none): a link carrying someone's Supabase token must not sign this page in as them.
 */
function adoptUrlToken() {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  if (token === null) return;
  if (token && !token.includes('.')) localStorage.setItem(TOKEN_KEY, token);
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
}

/** @type {Turn | null} */
let current = null;

/** @returns {Record<string, string>} */
function authHeaders() {
  const token = localStorage.getItem(TOKEN_KEY);
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * The message of an error body ({error: {message}}, {message}, {error: "…"}), or the status line.
 * @param {unknown} body
 * @param {Response} res
 * @returns {string}
 */
function errorMessage(body, res) {
  if (body && typeof body === 'object') {
    const b = /** @type {{ error?: unknown, message?: unknown }} */ (body);
    const e = b.error;
    if (e && typeof e === 'object' && 'message' in e && e.message) return String(e.message);
    if (b.message) return String(b.message);
    if (typeof e === 'string') return e;
  }
  return `${res.status} ${res.statusText}`;
}

fetch('health')
  .then((r) => (r.ok ? r.json() : null))
  .then((h) => {
    if (h) setModel(h.model, h.demo);
  })
  .catch(() => {});

watchConnection(() => current, setConn);

// --- one turn -----------------------------------------------------------------------------------
// A turn lives on the server, not in this page: the stream is only a reader of its event log. A
// dropped connection is EventSource's to repair (it reconnects on its own with Last-Event-ID and the
// server resumes after that event), Stop is a request to the server, and a reload re-attaches.
/**
 * Ends the turn in the page. With keep, the turn stays remembered: it may still run on the server,
 * and a reload re-attaches to it.
 * @param {string} [text]
 * @param {boolean} [keep]
 */
function finishTurn(text, keep) {
  const turn = current;
  if (!turn) return;
  current = null;
  if (turn.source) turn.source.close();
  clearTimeout(turn.stopTimer);
  if (!keep) forgetTurn(turn.id);
  turn.view.streaming(false);
  turn.view.end(text);
  setBusy(false);
  setConn('idle', 'idle');
  if (!document.activeElement || document.activeElement === document.body || document.activeElement === stopBtn) input.focus();
}

/**
 * A re-attached turn that is not there any more (204, an expired token, an unknown turn): the user's
 * message and the empty answer drawn for it go, without an error; the history above is what happened.
 * @param {Turn} turn
 */
function dropReattached(turn) {
  turn.userNode.remove();
  turn.view.root.remove();
  finishTurn();
  if (!transcript.firstChild) showHint('Ask the agent something.');
}

/**
 * A re-attached turn replays from its first event; when it had already finished before the history was
 * read, the history holds it too. It is saved before its done is sent, so by then the history has
 * grown by its messages unless it held them already: then the replayed copy goes.
 * @param {Turn} turn
 */
async function dedupeReattached(turn) {
  if (turn.historyCount === null) return false;
  const count = await historyCount();
  if (count !== turn.historyCount) return false;
  turn.userNode.remove();
  turn.view.root.remove();
  return true;
}

/**
 * The turn's place among the session's user messages shown, from 1: what the history numbers it by.
 * @param {Turn} turn
 */
const ordinalOf = (turn) => [...transcript.querySelectorAll('.msg.user')].indexOf(turn.userNode) + 1;

/**
 * The footer's tokens: none reported (an upstream that sends no usage, the demo model) is said, not 0 + 0.
 * @param {DoneData['usage']} usage
 */
function usageText(usage) {
  if (!usage) return '';
  if (usage.promptTokens === 0 && usage.completionTokens === 0) return ' · usage not reported';
  return ` · ${usage.promptTokens} + ${usage.completionTokens} tokens`;
}

/** @type {Record<DoneData['reason'], string>} */
const DONE_TEXT = {
  completed: 'done',
  iteration_limit: 'stopped at the iteration limit',
  time_budget: 'stopped at the time budget',
  no_progress: 'stopped: no progress, the same calls kept failing',
  aborted: 'aborted',
  error: 'ended with an error',
  interrupted: 'interrupted: the server stopped while the turn ran (its answer was lost; ask again to continue)',
};

/** @type {Record<SummaryData['reason'], string>} */
const SUMMARY_TEXT = {
  iteration_limit: 'Iteration limit reached',
  time_budget: 'Time budget reached',
  no_progress: 'No progress: the same tool calls kept failing',
};

/** @param {Turn} turn */
function follow(turn) {
  if (!turn.streamUrl) return;
  const on = openStream(turn, {
    url: turn.streamUrl,
    isCurrent: () => current === turn,
    setConn,
    onClosed: () => {
      // The turn stays remembered, so a reload re-attaches (Chromium closes the stream this way when
      // the page is being unloaded).
      if (turn.reattached && turn.lastSeq === 0) return dropReattached(turn);
      // Waiting for a decision, the stream may close (its token expired): the decision brings a fresh one.
      if (turn.waiting) return setConn('quiet', 'waiting for your decision', 'the stream closed; deciding reopens it');
      turn.view.notice('error', 'The stream closed before the turn finished. Reload the page to see what the turn did.');
      finishTurn(undefined, true);
    },
  });
  on('turn_start', (d) => {
    setModel(d.model, d.demo);
    saveSession(d.sessionId);
  });
  on('text_delta', (d) => turn.view.text(d.text));
  on('tool_call', (d) => turn.view.toolCall(d));
  on('tool_result', (d) => {
    rememberCall(localStorage, d);
    // A result after a pause: the turn went on (an approval's, or a server question's, call).
    if (d.approval || turn.waiting) turn.waiting = false;
    turn.view.toolResult(d);
  });
  on('approval_required', (d) => {
    turn.waiting = true;
    turn.view.approvalRequired(d, (approved, reason) => decide(turn, d.approvalId, { approved, reason }));
  });
  on('input_required', (d) => {
    turn.waiting = true;
    turn.view.inputRequired(d, (answer) => answerPaused(turn, `inputs/${encodeURIComponent(d.inputId)}`, answer));
  });
  on('forced_summary', (d) => turn.view.notice('summary', `${SUMMARY_TEXT[d.reason] || d.reason}: the agent summarises what it did instead of going on.`));
  on('agent_error', (d) => turn.view.notice('error', `Agent error: ${d.message}${d.retryable ? ' (temporary; try again)' : ''}`));
  on('done', (d) => {
    if (d.reason === 'aborted')
      turn.view.notice('stopped', turn.stopping ? 'Stopped. The turn was cancelled on the server.' : 'The turn was stopped on the server.');
    const footer = `${DONE_TEXT[d.reason] || d.reason} · ${d.iterations} iteration${d.iterations === 1 ? '' : 's'}${usageText(d.usage)}`;
    const ordinal = ordinalOf(turn);
    finishTurn(footer);
    // Kept for a reload, which draws the turn from the history; a re-attached copy the history already
    // holds is dropped, and its footer belongs to the history's last turn.
    if (!turn.reattached) rememberTurnEnd(localStorage, sessionId(), ordinal, footer);
    else dedupeReattached(turn).then((dropped) => rememberTurnEnd(localStorage, sessionId(), dropped ? ordinal - 1 : ordinal, footer));
  });
}

/**
 * @param {{ message: string, id?: string, streamUrl?: string, controller?: AbortController, reattached?: boolean, historyCount?: number | null }} fields
 * @returns {Turn}
 */
function startTurn(fields) {
  const userNode = addUser(fields.message);
  const view = newAssistant();
  /** @type {Turn} */
  const turn = {
    id: fields.id ?? null,
    streamUrl: fields.streamUrl ?? null,
    message: fields.message,
    view,
    userNode,
    source: null,
    controller: fields.controller ?? null,
    lastSeq: 0,
    everOpen: false,
    stopping: false,
    stopTimer: undefined,
    reattached: fields.reattached ?? false,
    historyCount: fields.historyCount ?? null,
    waiting: false,
  };
  view.streaming(true);
  current = turn;
  setBusy(true);
  return turn;
}

/**
 * Whether `turn` is still the page's turn (an await later; a plain comparison would be narrowed away).
 * @param {Turn} turn
 */
const isCurrent = (turn) => current === turn;

/** @param {string} text */
async function send(text) {
  if (current) return;
  const controller = new AbortController();
  const turn = startTurn({ message: text, controller });
  setConn('connecting', 'starting…');
  const session = sessionId();
  let res, body;
  try {
    res = await fetch('v1/turns', {
      method: 'POST',
      headers: Object.assign({ 'Content-Type': 'application/json' }, authHeaders()),
      body: JSON.stringify(session ? { message: text, sessionId: session } : { message: text }),
      signal: controller.signal,
    });
    body = await res.json().catch(() => null);
  } catch (e) {
    if (isCurrent(turn)) {
      turn.view.notice('error', `Could not reach the server: ${e instanceof Error ? e.message : String(e)}`);
      finishTurn();
    }
    return;
  }
  if (!isCurrent(turn)) return;
  if (!res.ok || !body?.streamUrl) {
    turn.view.notice('error', `The server refused the message: ${errorMessage(body, res)}`);
    finishTurn();
    return;
  }
  turn.id = body.turnId;
  turn.streamUrl = body.streamUrl;
  saveSession(body.sessionId);
  rememberTurn({ turnId: body.turnId, sessionId: body.sessionId, streamUrl: body.streamUrl, message: turn.message });
  follow(turn);
  if (turn.stopping) requestStop(turn); // Stop was pressed while the turn was being created
}

/**
 * A person's decision on a waiting call (POST /v1/turns/:turnId/approvals/:approvalId). The turn goes
 * on on the server and its stream brings the call's result; the answer's fresh streamUrl (stream tokens
 * expire during long waits) is remembered for a reload, and reopens the stream if it had closed.
 * @param {Turn} turn
 * @param {string} approvalId
 * @param {{ approved: boolean, reason: string }} decision
 * @returns {ReturnType<import('./view.js').Decide>}
 */
function decide(turn, approvalId, { approved, reason }) {
  return answerPaused(turn, `approvals/${encodeURIComponent(approvalId)}`, reason ? { approved, reason } : { approved });
}

/**
 * Sends a person's answer to what a paused turn waits for (`path` under the turn: an approval's decision,
 * a server question's answer) and follows the turn on with the stream URL the answer brings.
 * @param {Turn} turn
 * @param {string} path
 * @param {unknown} payload
 * @returns {Promise<{ ok: true } | { ok: false, message: string, final: boolean }>}
 */
async function answerPaused(turn, path, payload) {
  /** @type {Response} */
  let res;
  /** @type {any} */
  let body;
  try {
    res = await fetch(`v1/turns/${encodeURIComponent(turn.id ?? '')}/${path}`, {
      method: 'POST',
      headers: Object.assign({ 'Content-Type': 'application/json' }, authHeaders()),
      body: JSON.stringify(payload),
    });
    body = await res.json().catch(() => null);
  } catch (e) {
    return { ok: false, message: `Could not reach the server: ${e instanceof Error ? e.message : String(e)}. Try again.`, final: false };
  }
  if (!res.ok) {
    // Decided already, expired, ended, unknown or not ours: the stream tells what became of the call.
    const final = [403, 404, 409, 410].includes(res.status);
    return { ok: false, message: `The server refused the answer: ${errorMessage(body, res)}`, final };
  }
  if (typeof body?.streamUrl === 'string' && turn.id) {
    turn.streamUrl = body.streamUrl;
    rememberTurn({ turnId: turn.id, sessionId: sessionId() ?? undefined, streamUrl: body.streamUrl, message: turn.message });
    if (isCurrent(turn) && turn.source?.readyState === EventSource.CLOSED) follow(turn);
  }
  return { ok: true };
}

// Stop asks the server, which aborts the model and the tools and ends the turn with done{aborted} for
// every reader. That done ends the turn here; if the stream is gone, the page gives up after a while.
function stop() {
  const turn = current;
  if (!turn || turn.stopping) return;
  turn.stopping = true;
  stopBtn.disabled = true;
  setConn('connecting', 'stopping…');
  turn.stopTimer = setTimeout(() => {
    if (current !== turn) return;
    if (turn.controller) turn.controller.abort(); // the turn was never created, or we never heard back
    turn.view.notice('stopped', 'Stopped here, but the server did not confirm it. Reload the page to see how the turn ended.');
    finishTurn();
  }, STOP_FALLBACK_MS);
  if (turn.id) requestStop(turn); // else send() asks once the server has answered with the turn's id
}

/** @param {Turn} turn */
async function requestStop(turn) {
  /** @type {Response | undefined} */
  let res;
  /** @type {unknown} */
  let body;
  try {
    res = await fetch(`v1/turns/${encodeURIComponent(turn.id ?? '')}/stop`, { method: 'POST', headers: authHeaders() });
    if (res.ok || res.status === 409) return; // 409: it had already finished; its done is on the stream
    body = await res.json().catch(() => null);
  } catch (e) {
    body = { message: e instanceof Error ? e.message : String(e) };
  }
  if (current !== turn) return;
  clearTimeout(turn.stopTimer);
  turn.stopping = false;
  stopBtn.disabled = false;
  const why = res ? errorMessage(body, res) : String(/** @type {{ message: string }} */ (body).message);
  turn.view.notice('error', `Could not stop the turn: ${why}. It is still running; try Stop again.`);
}

// --- sessions -----------------------------------------------------------------------------------
function resetSession() {
  if (current) return;
  forgetSession();
  showHint('New session. Ask the agent something.');
  input.focus();
}

/**
 * The session's messages, or null when there is no session to show (none, gone, not ours, offline).
 * @returns {Promise<ChatMessage[] | null>}
 */
async function fetchHistory() {
  const id = sessionId();
  if (!id) return null;
  try {
    const res = await fetch(`v1/sessions/${encodeURIComponent(id)}/messages`, { headers: authHeaders() });
    if (res.status === 404 || res.status === 403) {
      forgetSession(); // gone (server restarted with memory storage) or not ours
      return null;
    }
    if (!res.ok) return null;
    const body = await res.json();
    return body && Array.isArray(body.messages) ? body.messages : null;
  } catch {
    return null; // offline or no history route: the page still works, it just starts empty
  }
}

async function historyCount() {
  const messages = await fetchHistory();
  return messages ? messages.length : null;
}

// On load: the history, then the turn that was running when the page went away, replayed from its
// first event and followed live (the history gets a turn's messages only when it ends).
async function load() {
  const messages = await fetchHistory();
  if (current) return;
  if (messages) renderHistory(messages, rememberedCalls(localStorage), rememberedTurnEnds(localStorage, sessionId()));
  const r = rememberedTurn();
  if (!r) return;
  if (r.sessionId && r.sessionId !== sessionId()) {
    forgetTurn(); // from a session that is no longer this page's
    return;
  }
  const turn = startTurn({ id: r.turnId, streamUrl: r.streamUrl, message: r.message, reattached: true, historyCount: messages ? messages.length : null });
  follow(turn);
}

// --- composer -----------------------------------------------------------------------------------
input.addEventListener('input', autosize);
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    form.requestSubmit();
  }
});
form.addEventListener('submit', (e) => {
  e.preventDefault();
  const text = input.value.trim();
  if (!text || current) return;
  input.value = '';
  autosize();
  send(text);
});
stopBtn.addEventListener('click', stop);
newBtn.addEventListener('click', resetSession);
// Leaving does not stop the turn: it runs on on the server, and coming back re-attaches to it.
window.addEventListener('pagehide', () => {
  if (current?.source) current.source.close();
});

load();
input.focus();
