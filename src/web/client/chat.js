// @ts-check
// The chat page's script. Authored here as plain JavaScript checked by tsc (JSDoc types from the SSE
// protocol's own TurnEvent), bundled with its modules and libraries into src/web/assets/chat.js.ts by
// scripts/embed-assets.mjs, whose output is checked in: the page needs no build step to be served.
// Model output only ever reaches the DOM as text nodes or through the Markdown tree (markdown.js).
import { configureLanguages } from './highlight.js';
import { historyResult, rememberCall, rememberedCalls } from './history.js';
import { AssistantView, el } from './view.js';

/** @typedef {import('../../vocabulary.ts').TurnEvent} TurnEvent */
/** @typedef {import('../../vocabulary.ts').ChatMessage} ChatMessage */
/** @typedef {TurnEvent['event']} EventName */
/**
 * @template {EventName} N
 * @typedef {Extract<TurnEvent, { event: N }>['data']} EventData
 */
/**
 * The running turn. lastSeq is the id of the last event rendered: the server resumes after it on
 * EventSource's own reconnect, and anything at or below it is a duplicate.
 * @typedef {{
 *   id: string | null, streamUrl: string | null, message: string,
 *   view: ReturnType<typeof AssistantView>, userNode: HTMLElement,
 *   source: EventSource | null, controller: AbortController | null,
 *   lastSeq: number, everOpen: boolean, stopping: boolean, stopTimer: ReturnType<typeof setTimeout> | undefined,
 *   reattached: boolean, historyCount: number | null,
 * }} Turn
 */

/**
 * @template {typeof HTMLElement} T
 * @param {string} id
 * @param {T} type
 * @returns {InstanceType<T>}
 */
function $(id, type) {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the chat page has no #${id}`);
  return /** @type {InstanceType<T>} */ (node);
}
const transcript = $('transcript', HTMLElement);
const main = $('main', HTMLElement);
const form = $('composer', HTMLFormElement);
const input = $('message', HTMLTextAreaElement);
const sendBtn = $('send', HTMLButtonElement);
const stopBtn = $('stop', HTMLButtonElement);
const newBtn = $('new-session', HTMLButtonElement);
const connEl = $('conn', HTMLElement);
const SESSION_KEY = 'rebound.sessionId';
const TOKEN_KEY = 'rebound.token';
// The running turn, so a reload can re-attach to it: {turnId, sessionId, streamUrl, message}.
const TURN_KEY = 'rebound.turn';
// After Stop, how long to wait for done{aborted} on the stream before closing it anyway.
const STOP_FALLBACK_MS = 5000;

// The highlighter's grammars are assets with hashed names; the page lists them.
try {
  configureLanguages(JSON.parse(document.body.dataset.languages || '{}'));
} catch {
  // No list: code blocks stay plain.
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

// --- model label -------------------------------------------------------------------------------
/**
 * @param {string} model
 * @param {boolean} demo
 */
function setModel(model, demo) {
  $('model', HTMLElement).textContent = model ? `model: ${model}` : '';
  $('demo', HTMLElement).hidden = demo !== true;
}
fetch('health')
  .then((r) => (r.ok ? r.json() : null))
  .then((h) => {
    if (h) setModel(h.model, h.demo);
  })
  .catch(() => {});

// --- connection indicator ----------------------------------------------------------------------
// EventSource never surfaces the server's ': keepalive' comments, but they are what keeps the
// connection OPEN through proxies while the model is silent. So the indicator reads readyState on
// a timer, and events tell it the server is actively sending.
let lastEvent = 0;
const RECONNECT_TITLE = 'connection lost; the turn goes on on the server and the stream resumes where it stopped';
/**
 * @param {string} state
 * @param {string} text
 * @param {string} [title]
 */
function setConn(state, text, title) {
  if (connEl.dataset.state !== state || connEl.textContent !== text) {
    connEl.dataset.state = state;
    connEl.textContent = text;
  }
  connEl.title = title || '';
}
setInterval(() => {
  const source = current?.source;
  if (!current || !source) return;
  if (current.stopping && source.readyState !== EventSource.CONNECTING) return setConn('connecting', 'stopping…');
  const quiet = Math.round((Date.now() - lastEvent) / 1000);
  if (source.readyState === EventSource.OPEN) {
    if (quiet < 4) setConn('live', 'connected', 'events arriving');
    else setConn('quiet', 'connected · waiting', `stream open, no event for ${quiet} s (keepalives hold it open)`);
  } else if (source.readyState === EventSource.CONNECTING) {
    if (current.everOpen) setConn('reconnecting', 'reconnecting…', RECONNECT_TITLE);
    else setConn('connecting', 'connecting…');
  }
}, 1000);

// --- transcript ---------------------------------------------------------------------------------
/** @param {() => void} fn */
function stickToBottom(fn) {
  const atBottom = main.scrollHeight - main.scrollTop - main.clientHeight < 80;
  fn();
  if (atBottom) main.scrollTop = main.scrollHeight;
}

function hideHint() {
  const hint = document.getElementById('empty-hint');
  if (hint) hint.remove();
}

/** @param {string} text */
function showHint(text) {
  const hint = el('p', 'empty-hint', text);
  hint.id = 'empty-hint';
  transcript.replaceChildren(hint);
}

/** @param {string} text */
function addUser(text) {
  hideHint();
  const m = el('div', 'msg user');
  stickToBottom(() => {
    m.append(el('div', 'who', 'You'), document.createTextNode(text));
    transcript.append(m);
  });
  return m;
}

const newAssistant = () => AssistantView({ transcript, stickToBottom, hideHint });

// --- one turn -----------------------------------------------------------------------------------
// A turn lives on the server, not in this page: the stream is only a reader of its event log. A
// dropped connection is EventSource's to repair (it reconnects on its own with Last-Event-ID and the
// server resumes after that event), Stop is a request to the server, and a reload re-attaches.
/** @param {boolean} busy */
function setBusy(busy) {
  sendBtn.disabled = busy;
  stopBtn.disabled = !busy;
  newBtn.disabled = busy;
}

/**
 * @param {Turn} turn
 * @param {string} sessionId
 */
function rememberTurn(turn, sessionId) {
  try {
    localStorage.setItem(TURN_KEY, JSON.stringify({ turnId: turn.id, sessionId, streamUrl: turn.streamUrl, message: turn.message }));
  } catch {
    // Storage full or blocked: the turn still runs, a reload just cannot re-attach to it.
  }
}

/** @returns {{ turnId: string, sessionId?: string, streamUrl: string, message: string } | null} */
function rememberedTurn() {
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

/** @param {Turn} turn */
function forgetTurn(turn) {
  const r = rememberedTurn();
  if (r && r.turnId === turn.id) localStorage.removeItem(TURN_KEY);
}

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
  if (!keep) forgetTurn(turn);
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
  if (turn.historyCount === null) return;
  const count = await historyCount();
  if (count === turn.historyCount) {
    turn.userNode.remove();
    turn.view.root.remove();
  }
}

/** @type {Record<EventData<'done'>['reason'], string>} */
const DONE_TEXT = {
  completed: 'done',
  iteration_limit: 'stopped at the iteration limit',
  time_budget: 'stopped at the time budget',
  no_progress: 'stopped: no progress, the same calls kept failing',
  aborted: 'aborted',
  error: 'ended with an error',
  interrupted: 'interrupted: the server stopped while the turn ran (its answer was lost; ask again to continue)',
};

/** @type {Record<EventData<'forced_summary'>['reason'], string>} */
const SUMMARY_TEXT = {
  iteration_limit: 'Iteration limit reached',
  time_budget: 'Time budget reached',
  no_progress: 'No progress: the same tool calls kept failing',
};

/** @param {Turn} turn */
function openStream(turn) {
  if (!turn.streamUrl) return;
  const source = new EventSource(turn.streamUrl);
  turn.source = source;
  setConn('connecting', turn.reattached ? 're-attaching…' : 'connecting…');
  source.onopen = () => {
    lastEvent = Date.now();
    turn.everOpen = true;
    setConn('live', 'connected');
  };
  source.onerror = () => {
    if (current !== turn) return;
    if (source.readyState !== EventSource.CLOSED) {
      // A network drop: EventSource reconnects by itself and sends Last-Event-ID. Not an error.
      if (turn.everOpen) setConn('reconnecting', 'reconnecting…', RECONNECT_TITLE);
      return;
    }
    // CLOSED: the server answered without a stream (204: nothing more to read; 401: the stream token
    // expired; 404: the turn is unknown), so EventSource gave up. Chromium also closes it this way when
    // the page is being unloaded, before pagehide: the turn stays remembered, so the reload re-attaches.
    if (turn.reattached && turn.lastSeq === 0) return dropReattached(turn);
    turn.view.notice('error', 'The stream closed before the turn finished. Reload the page to see what the turn did.');
    finishTurn(undefined, true);
  };
  /**
   * Every event of the protocol (TurnEvent) by its name, its data typed: renaming an event or a field
   * fails typechecking here.
   * @template {EventName} N
   * @param {N} name
   * @param {(data: EventData<N>) => void} fn
   */
  const on = (name, fn) =>
    source.addEventListener(name, (ev) => {
      if (current !== turn) return;
      // Every event carries its sequence number within the turn. The server resumes after the last one we
      // saw, so a repeat should not happen; if one does, it is not drawn twice.
      if (ev.lastEventId !== '') {
        const seq = Number(ev.lastEventId);
        if (Number.isFinite(seq)) {
          if (seq <= turn.lastSeq) return;
          turn.lastSeq = seq;
        }
      }
      lastEvent = Date.now();
      /** @type {EventData<N>} */
      let data;
      try {
        data = JSON.parse(ev.data);
      } catch {
        return;
      }
      fn(data);
    });
  on('turn_start', (d) => {
    setModel(d.model, d.demo);
    saveSession(d.sessionId);
  });
  on('text_delta', (d) => turn.view.text(d.text));
  on('tool_call', (d) => turn.view.toolCall(d));
  on('tool_result', (d) => {
    rememberCall(localStorage, d);
    turn.view.toolResult(d);
  });
  on('forced_summary', (d) => turn.view.notice('summary', `${SUMMARY_TEXT[d.reason] || d.reason}: the agent summarises what it did instead of going on.`));
  on('agent_error', (d) => turn.view.notice('error', `Agent error: ${d.message}${d.retryable ? ' (temporary; try again)' : ''}`));
  on('done', (d) => {
    if (d.reason === 'aborted')
      turn.view.notice('stopped', turn.stopping ? 'Stopped. The turn was cancelled on the server.' : 'The turn was stopped on the server.');
    const usage = d.usage ? ` · ${d.usage.promptTokens} + ${d.usage.completionTokens} tokens` : '';
    finishTurn(`${DONE_TEXT[d.reason] || d.reason} · ${d.iterations} iteration${d.iterations === 1 ? '' : 's'}${usage}`);
    if (turn.reattached) dedupeReattached(turn);
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
  const sessionId = localStorage.getItem(SESSION_KEY);
  let res, body;
  try {
    res = await fetch('v1/turns', {
      method: 'POST',
      headers: Object.assign({ 'Content-Type': 'application/json' }, authHeaders()),
      body: JSON.stringify(sessionId ? { message: text, sessionId } : { message: text }),
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
  rememberTurn(turn, body.sessionId);
  openStream(turn);
  if (turn.stopping) requestStop(turn); // Stop was pressed while the turn was being created
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
/** @param {string | undefined} id */
function saveSession(id) {
  if (id) localStorage.setItem(SESSION_KEY, id);
}

function resetSession() {
  if (current) return;
  localStorage.removeItem(SESSION_KEY);
  showHint('New session. Ask the agent something.');
  input.focus();
}

/**
 * The conversation as it was: each assistant message's text as Markdown, its calls as tool cards with
 * what this browser remembers of them, or what the tool messages say (history.js).
 * @param {ChatMessage[]} messages
 */
function renderHistory(messages) {
  const remembered = rememberedCalls(localStorage);
  /** @type {ReturnType<typeof AssistantView> | null} */
  let view = null;
  /** @type {Map<string, string>} */
  const names = new Map();
  for (const m of messages) {
    if (m.role === 'user') {
      view?.streaming(false);
      view = null;
      addUser(m.content);
    } else if (m.role === 'assistant') {
      if (!view) view = newAssistant();
      if (m.content) {
        view.text(m.content);
        view.settle();
      }
      for (const c of m.tool_calls || []) {
        names.set(c.id, c.function.name);
        view.toolCall({ id: c.id, name: c.function.name, arguments: c.function.arguments });
      }
    } else if (m.role === 'tool' && view) {
      const name = names.get(m.tool_call_id) ?? '';
      view.toolResult(historyResult({ id: m.tool_call_id, name, content: m.content, remembered: remembered[m.tool_call_id] }));
    }
  }
  view?.streaming(false);
  main.scrollTop = main.scrollHeight;
}

/**
 * The session's messages, or null when there is no session to show (none, gone, not ours, offline).
 * @returns {Promise<ChatMessage[] | null>}
 */
async function fetchHistory() {
  const id = localStorage.getItem(SESSION_KEY);
  if (!id) return null;
  try {
    const res = await fetch(`v1/sessions/${encodeURIComponent(id)}/messages`, { headers: authHeaders() });
    if (res.status === 404 || res.status === 403) {
      localStorage.removeItem(SESSION_KEY); // gone (server restarted with memory storage) or not ours
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
  if (messages) renderHistory(messages);
  const r = rememberedTurn();
  if (!r) return;
  if (r.sessionId && r.sessionId !== localStorage.getItem(SESSION_KEY)) {
    localStorage.removeItem(TURN_KEY); // from a session that is no longer this page's
    return;
  }
  const turn = startTurn({ id: r.turnId, streamUrl: r.streamUrl, message: r.message, reattached: true, historyCount: messages ? messages.length : null });
  openStream(turn);
}

// --- composer -----------------------------------------------------------------------------------
function autosize() {
  input.style.height = 'auto';
  input.style.height = `${Math.min(input.scrollHeight, window.innerHeight * 0.4)}px`;
}
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
