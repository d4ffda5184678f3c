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

let current = null; // the running turn: { view, source, controller, done }

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
  const quiet = Math.round((Date.now() - lastEvent) / 1000);
  if (source.readyState === EventSource.OPEN) {
    if (quiet < 4) setConn('live', 'connected', 'events arriving');
    else setConn('quiet', 'connected · waiting', 'stream open, no event for ' + quiet + ' s (keepalives hold it open)');
  } else if (source.readyState === EventSource.CONNECTING) {
    setConn('connecting', 'reconnecting…');
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
  stickToBottom(() => {
    const m = el('div', 'msg user');
    m.append(el('div', 'who', 'You'), document.createTextNode(text));
    transcript.append(m);
  });
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
function setBusy(busy) {
  sendBtn.disabled = busy;
  stopBtn.disabled = !busy;
  newBtn.disabled = busy;
}

function finishTurn(text) {
  const turn = current;
  if (!turn) return;
  current = null;
  if (turn.source) turn.source.close();
  turn.view.streaming(false);
  turn.view.end(text);
  setBusy(false);
  setConn('idle', 'idle');
  if (!document.activeElement || document.activeElement === document.body || document.activeElement === stopBtn) input.focus();
}

const DONE_TEXT = {
  completed: 'done',
  iteration_limit: 'stopped at the iteration limit',
  time_budget: 'stopped at the time budget',
  aborted: 'aborted',
  error: 'ended with an error',
};

function openStream(turn, url) {
  const source = new EventSource(url);
  turn.source = source;
  setConn('connecting', 'connecting…');
  source.onopen = () => { lastEvent = Date.now(); setConn('live', 'connected'); };
  source.onerror = () => {
    if (current !== turn) return;
    // CLOSED: the server answered 204 (turn already finished) or refused: the stream is over.
    if (source.readyState === EventSource.CLOSED) {
      turn.view.notice('error', 'The stream closed before the turn finished.');
      finishTurn();
    } else {
      setConn('connecting', 'reconnecting…');
    }
  };
  const on = (name, fn) => source.addEventListener(name, (ev) => {
    if (current !== turn) return;
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
    const usage = d.usage ? ' · ' + d.usage.promptTokens + ' + ' + d.usage.completionTokens + ' tokens' : '';
    finishTurn((DONE_TEXT[d.reason] || d.reason) + ' · ' + d.iterations + ' iteration' + (d.iterations === 1 ? '' : 's') + usage);
  });
}

async function send(text) {
  if (current) return;
  addUser(text);
  const turn = { view: AssistantView(), source: null, controller: new AbortController() };
  current = turn;
  turn.view.streaming(true);
  setBusy(true);
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
  if (current !== turn) return; // stopped while starting
  if (!res.ok || !body || !body.streamUrl) {
    turn.view.notice('error', 'The server refused the message: ' + errorMessage(body, res));
    finishTurn();
    return;
  }
  saveSession(body.sessionId);
  openStream(turn, body.streamUrl);
}

// Closing the EventSource is the abort: the server cancels the model and tools on disconnect.
function stop() {
  const turn = current;
  if (!turn) return;
  turn.controller.abort();
  turn.view.notice('stopped', 'Stopped. The turn was cancelled on the server.');
  finishTurn();
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

async function loadHistory() {
  const id = localStorage.getItem(SESSION_KEY);
  if (!id) return;
  try {
    const res = await fetch('v1/sessions/' + encodeURIComponent(id) + '/messages', { headers: authHeaders() });
    if (res.status === 404 || res.status === 403) {
      localStorage.removeItem(SESSION_KEY); // gone (server restarted with memory storage) or not ours
      return;
    }
    if (!res.ok) return;
    const body = await res.json();
    if (!current && body && Array.isArray(body.messages)) renderHistory(body.messages);
  } catch (e) {
    // Offline or no history route: the page still works, it just starts empty.
  }
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
window.addEventListener('pagehide', () => { if (current && current.source) current.source.close(); });

loadHistory();
input.focus();
`;
