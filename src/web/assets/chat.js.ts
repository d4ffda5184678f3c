// The chat page's script, shipped as-is (plain ES2020, no build step). Model output only ever goes
// through textContent / text nodes. Written without template literals so it can live in this string.
export const chatJs = String.raw`
const $ = (id) => document.getElementById(id);
const transcript = $('transcript');
const main = $('main');
const form = $('composer');
const input = $('message');
const sendBtn = $('send');
const stopBtn = $('stop');
const newBtn = $('new-session');
const connEl = $('conn');
const SESSION_KEY = 'rebound.sessionId';
const TOKEN_KEY = 'rebound.token';
// The running turn, so a reload can re-attach to it: {turnId, sessionId, streamUrl, message}.
const TURN_KEY = 'rebound.turn';
// After Stop, how long to wait for done{aborted} on the stream before closing it anyway.
const STOP_FALLBACK_MS = 5000;

// The running turn: { id, streamUrl, view, userNode, source, controller, lastSeq, everOpen, stopping,
// stopTimer, reattached, historyCount }. lastSeq is the id of the last event rendered: the server
// resumes after it on EventSource's own reconnect, and anything at or below it is a duplicate.
let current = null;

function authHeaders() {
  const token = localStorage.getItem(TOKEN_KEY);
  return token ? { Authorization: 'Bearer ' + token } : {};
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function errorMessage(body, res) {
  if (body && typeof body === 'object') {
    const e = body.error;
    if (e && typeof e === 'object' && e.message) return e.message;
    if (body.message) return body.message;
    if (typeof e === 'string') return e;
  }
  return res.status + ' ' + res.statusText;
}

// --- model label -------------------------------------------------------------------------------
function setModel(model, demo) {
  $('model').textContent = model ? 'model: ' + model : '';
  $('demo').hidden = !demo;
}
fetch('health').then((r) => (r.ok ? r.json() : null)).then((h) => { if (h) setModel(h.model, h.demo); }).catch(() => {});

// --- connection indicator ----------------------------------------------------------------------
// EventSource never surfaces the server's ': keepalive' comments, but they are what keeps the
// connection OPEN through proxies while the model is silent. So the indicator reads readyState on
// a timer, and events tell it the server is actively sending.
let lastEvent = 0;
const RECONNECT_TITLE = 'connection lost; the turn goes on on the server and the stream resumes where it stopped';
function setConn(state, text, title) {
  if (connEl.dataset.state !== state || connEl.textContent !== text) {
    connEl.dataset.state = state;
    connEl.textContent = text;
  }
  connEl.title = title || '';
}
setInterval(() => {
  const source = current && current.source;
  if (!source) return;
  if (current.stopping && source.readyState !== EventSource.CONNECTING) return setConn('connecting', 'stopping…');
  const quiet = Math.round((Date.now() - lastEvent) / 1000);
  if (source.readyState === EventSource.OPEN) {
    if (quiet < 4) setConn('live', 'connected', 'events arriving');
    else setConn('quiet', 'connected · waiting', 'stream open, no event for ' + quiet + ' s (keepalives hold it open)');
  } else if (source.readyState === EventSource.CONNECTING) {
    if (current.everOpen) setConn('reconnecting', 'reconnecting…', RECONNECT_TITLE);
    else setConn('connecting', 'connecting…');
  }
}, 1000);

// --- transcript ---------------------------------------------------------------------------------
function stickToBottom(fn) {
  const atBottom = main.scrollHeight - main.scrollTop - main.clientHeight < 80;
  fn();
  if (atBottom) main.scrollTop = main.scrollHeight;
}

function hideHint() {
  const hint = $('empty-hint');
  if (hint) hint.remove();
}

function addUser(text) {
  hideHint();
  let node = null;
  stickToBottom(() => {
    const m = el('div', 'msg user');
    m.append(el('div', 'who', 'You'), document.createTextNode(text));
    transcript.append(m);
    node = m;
  });
  return node;
}

function prettyArgs(raw) {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch (e) {
    return String(raw);
  }
}

function details(summary, text) {
  const d = el('details');
  d.append(el('summary', '', summary), el('pre', '', text));
  return d;
}

function listBlock(cls, heading, items) {
  const box = el('div', cls);
  box.append(el('span', '', heading));
  const ul = el('ul');
  for (const item of items) {
    const li = el('li');
    if (Array.isArray(item)) li.append(...item);
    else li.append(el('code', '', item));
    ul.append(li);
  }
  box.append(ul);
  return box;
}

// One assistant message: text segments interleaved with tool cards, in the order they happened.
function AssistantView() {
  hideHint();
  const root = el('div', 'msg assistant');
  root.append(el('div', 'who', 'Agent'));
  transcript.append(root);
  let segment = null;
  const tools = new Map();
  const add = (node) => stickToBottom(() => root.append(node));

  function toolCard(id, name, args) {
    const card = el('div', 'tool');
    card.dataset.verdict = 'pending';
    const head = el('div', 'tool-head');
    const verdict = el('span', 'verdict pending', 'checking…');
    head.append(el('span', 'tool-name', name), verdict);
    card.append(head);
    if (args !== undefined) card.append(details('arguments', prettyArgs(args)));
    const entry = { card, head, verdict };
    tools.set(id, entry);
    segment = null;
    add(card);
    return entry;
  }

  return {
    root,
    streaming(on) {
      root.classList.toggle('streaming', on);
      root.setAttribute('aria-busy', on ? 'true' : 'false');
    },
    text(t) {
      if (!segment) {
        segment = el('div', 'answer');
        add(segment);
      }
      stickToBottom(() => segment.append(document.createTextNode(t)));
    },
    toolCall(d) {
      toolCard(d.id, d.name, d.arguments);
    },
    toolResult(d) {
      const entry = tools.get(d.id) || toolCard(d.id, d.name);
      const { card, head, verdict } = entry;
      card.dataset.verdict = d.verdict;
      card.dataset.ok = String(d.ok);
      const label = { pass: 'passed', repaired: 'repaired', blocked: 'blocked' }[d.verdict] || d.verdict;
      verdict.className = 'verdict ' + d.verdict;
      verdict.textContent = label;
      if (d.verdict !== 'blocked' && !d.ok) head.append(el('span', 'verdict failed', 'failed'));
      if (d.category && d.category !== 'valid') head.append(el('span', 'category', d.category.replace(/_/g, ' ')));
      if (typeof d.durationMs === 'number') head.append(el('span', 'duration', d.durationMs + ' ms'));
      stickToBottom(() => {
        if (d.repairs && d.repairs.length) {
          card.append(listBlock('repairs', 'Repaired before running:', d.repairs.map((r) => {
            const parts = [el('code', '', r.path), document.createTextNode(' ' + String(r.kind).replace(/_/g, ' '))];
            // A dropped value has no "to": say what became of it instead of an arrow to nothing.
            if (r.to !== undefined) {
              if (r.from !== undefined) parts.push(document.createTextNode(': '), el('code', '', r.from), document.createTextNode(' → '));
              else parts.push(document.createTextNode(': '));
              parts.push(el('code', '', r.to));
            } else if (r.kind === 'drop_unknown') {
              parts.push(document.createTextNode(': not a parameter of this tool; dropped and recorded as a feature request'));
            } else if (r.from !== undefined) {
              parts.push(document.createTextNode(': '), el('code', '', r.from), document.createTextNode(' dropped'));
            }
            return parts;
          })));
        }
        if (d.error) card.append(el('p', 'reason', d.error));
        if (d.suggestions && d.suggestions.length) {
          card.append(listBlock('suggestions', 'Suggested to the model:', d.suggestions));
        }
        if (d.ok && d.result !== undefined) {
          card.append(details('result', typeof d.result === 'string' ? d.result : JSON.stringify(d.result, null, 2)));
        }
      });
    },
    historyResult(id, content) {
      const entry = tools.get(id);
      if (!entry) return;
      entry.verdict.className = 'verdict';
      entry.verdict.textContent = 'from history';
      entry.card.append(details('what the model received', content));
    },
    notice(kind, text) {
      segment = null;
      const n = el('div', 'notice ' + kind, text);
      if (kind === 'error') n.setAttribute('role', 'alert');
      add(n);
    },
    end(text) {
      if (text) add(el('div', 'turn-end', text));
    },
  };
}

// --- one turn -----------------------------------------------------------------------------------
// A turn lives on the server, not in this page: the stream is only a reader of its event log. A
// dropped connection is EventSource's to repair (it reconnects on its own with Last-Event-ID and the
// server resumes after that event), Stop is a request to the server, and a reload re-attaches.
function setBusy(busy) {
  sendBtn.disabled = busy;
  stopBtn.disabled = !busy;
  newBtn.disabled = busy;
}

function rememberTurn(turn, sessionId) {
  try {
    localStorage.setItem(TURN_KEY, JSON.stringify({ turnId: turn.id, sessionId, streamUrl: turn.streamUrl, message: turn.message }));
  } catch (e) {
    // Storage full or blocked: the turn still runs, a reload just cannot re-attach to it.
  }
}

function rememberedTurn() {
  const raw = localStorage.getItem(TURN_KEY);
  if (raw === null) return null;
  try {
    const r = JSON.parse(raw);
    if (r && typeof r.turnId === 'string' && typeof r.streamUrl === 'string' && typeof r.message === 'string') return r;
  } catch (e) {
    // Not ours or corrupt: forgotten below.
  }
  localStorage.removeItem(TURN_KEY);
  return null;
}

function forgetTurn(turn) {
  const r = rememberedTurn();
  if (r && r.turnId === turn.id) localStorage.removeItem(TURN_KEY);
}

// Ends the turn in the page. With keep, the turn stays remembered: it may still run on the server,
// and a reload re-attaches to it.
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

// A re-attached turn that is not there any more (204, an expired token, an unknown turn): the user's
// message and the empty answer drawn for it go, without an error; the history above is what happened.
function dropReattached(turn) {
  turn.userNode.remove();
  turn.view.root.remove();
  finishTurn();
  if (!transcript.firstChild) {
    transcript.append(el('p', 'empty-hint', 'Ask the agent something.'));
    transcript.lastChild.id = 'empty-hint';
  }
}

// A re-attached turn replays from its first event; when it had already finished before the history was
// read, the history holds it too. It is saved before its done is sent, so by then the history has
// grown by its messages unless it held them already: then the replayed copy goes.
async function dedupeReattached(turn) {
  if (turn.historyCount === null) return;
  const count = await historyCount();
  if (count === turn.historyCount) {
    turn.userNode.remove();
    turn.view.root.remove();
  }
}

const DONE_TEXT = {
  completed: 'done',
  iteration_limit: 'stopped at the iteration limit',
  time_budget: 'stopped at the time budget',
  aborted: 'aborted',
  error: 'ended with an error',
};

function openStream(turn) {
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
  const on = (name, fn) => source.addEventListener(name, (ev) => {
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
    let data;
    try {
      data = JSON.parse(ev.data);
    } catch (e) {
      return;
    }
    fn(data);
  });
  on('turn_start', (d) => { setModel(d.model, d.demo); saveSession(d.sessionId); });
  on('text_delta', (d) => turn.view.text(d.text));
  on('tool_call', (d) => turn.view.toolCall(d));
  on('tool_result', (d) => turn.view.toolResult(d));
  on('forced_summary', (d) => turn.view.notice('summary',
    (d.reason === 'time_budget' ? 'Time budget reached' : 'Iteration limit reached') + ': the agent summarises what it did instead of going on.'));
  on('agent_error', (d) => turn.view.notice('error', 'Agent error: ' + d.message + (d.retryable ? ' (temporary; try again)' : '')));
  on('done', (d) => {
    if (d.reason === 'aborted') turn.view.notice('stopped', turn.stopping ? 'Stopped. The turn was cancelled on the server.' : 'The turn was stopped on the server.');
    const usage = d.usage ? ' · ' + d.usage.promptTokens + ' + ' + d.usage.completionTokens + ' tokens' : '';
    finishTurn((DONE_TEXT[d.reason] || d.reason) + ' · ' + d.iterations + ' iteration' + (d.iterations === 1 ? '' : 's') + usage);
    if (turn.reattached) dedupeReattached(turn);
  });
}

function startTurn(fields) {
  const turn = Object.assign({
    id: null, streamUrl: null, message: '', view: null, userNode: null, source: null, controller: null,
    lastSeq: 0, everOpen: false, stopping: false, stopTimer: 0, reattached: false, historyCount: null,
  }, fields);
  turn.userNode = addUser(turn.message);
  turn.view = AssistantView();
  turn.view.streaming(true);
  current = turn;
  setBusy(true);
  return turn;
}

async function send(text) {
  if (current) return;
  const turn = startTurn({ message: text, controller: new AbortController() });
  setConn('connecting', 'starting…');
  const sessionId = localStorage.getItem(SESSION_KEY);
  let res, body;
  try {
    res = await fetch('v1/turns', {
      method: 'POST',
      headers: Object.assign({ 'Content-Type': 'application/json' }, authHeaders()),
      body: JSON.stringify(sessionId ? { message: text, sessionId } : { message: text }),
      signal: turn.controller.signal,
    });
    body = await res.json().catch(() => null);
  } catch (e) {
    if (current === turn) {
      turn.view.notice('error', 'Could not reach the server: ' + e.message);
      finishTurn();
    }
    return;
  }
  if (current !== turn) return;
  if (!res.ok || !body || !body.streamUrl) {
    turn.view.notice('error', 'The server refused the message: ' + errorMessage(body, res));
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

async function requestStop(turn) {
  let res, body;
  try {
    res = await fetch('v1/turns/' + encodeURIComponent(turn.id) + '/stop', { method: 'POST', headers: authHeaders() });
    if (res.ok || res.status === 409) return; // 409: it had already finished; its done is on the stream
    body = await res.json().catch(() => null);
  } catch (e) {
    body = { message: e.message };
  }
  if (current !== turn) return;
  clearTimeout(turn.stopTimer);
  turn.stopping = false;
  stopBtn.disabled = false;
  turn.view.notice('error', 'Could not stop the turn: ' + (res ? errorMessage(body, res) : body.message) + '. It is still running; try Stop again.');
}

// --- sessions -----------------------------------------------------------------------------------
function saveSession(id) {
  if (id) localStorage.setItem(SESSION_KEY, id);
}

function resetSession() {
  if (current) return;
  localStorage.removeItem(SESSION_KEY);
  transcript.replaceChildren(el('p', 'empty-hint', 'New session. Ask the agent something.'));
  transcript.lastChild.id = 'empty-hint';
  input.focus();
}

function renderHistory(messages) {
  let view = null;
  for (const m of messages) {
    if (m.role === 'user') {
      view = null;
      addUser(m.content);
    } else if (m.role === 'assistant') {
      if (!view) view = AssistantView();
      if (m.content) view.text(m.content);
      for (const c of m.tool_calls || []) view.toolCall({ id: c.id, name: c.function.name, arguments: c.function.arguments });
    } else if (m.role === 'tool' && view) {
      view.historyResult(m.tool_call_id, m.content);
    }
  }
  main.scrollTop = main.scrollHeight;
}

// The session's messages, or null when there is no session to show (none, gone, not ours, offline).
async function fetchHistory() {
  const id = localStorage.getItem(SESSION_KEY);
  if (!id) return null;
  try {
    const res = await fetch('v1/sessions/' + encodeURIComponent(id) + '/messages', { headers: authHeaders() });
    if (res.status === 404 || res.status === 403) {
      localStorage.removeItem(SESSION_KEY); // gone (server restarted with memory storage) or not ours
      return null;
    }
    if (!res.ok) return null;
    const body = await res.json();
    return body && Array.isArray(body.messages) ? body.messages : null;
  } catch (e) {
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
  input.style.height = Math.min(input.scrollHeight, window.innerHeight * 0.4) + 'px';
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
window.addEventListener('pagehide', () => { if (current && current.source) current.source.close(); });

load();
input.focus();
`;
