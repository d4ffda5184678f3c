// @ts-check
// The chat page's view: its DOM outside one assistant message (view.js draws that). The composer, the
// transcript's user messages and hints, the model label, the connection indicator and the busy state.
// chat.js decides what happens; this only draws it. Model output reaches the DOM as text nodes or
// through view.js, never as HTML.
import { configureLanguages } from './highlight.js';
import { historyResult } from './history.js';
import { AssistantView, el } from './view.js';

/** @typedef {import('../../vocabulary.ts').ChatMessage} ChatMessage */
/** @typedef {import('./history.js').Remembered} Remembered */

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
export const transcript = $('transcript', HTMLElement);
const main = $('main', HTMLElement);
export const form = $('composer', HTMLFormElement);
export const input = $('message', HTMLTextAreaElement);
const sendBtn = $('send', HTMLButtonElement);
export const stopBtn = $('stop', HTMLButtonElement);
export const newBtn = $('new-session', HTMLButtonElement);
const connEl = $('conn', HTMLElement);

// The highlighter's grammars are assets with hashed names; the page lists them.
try {
  configureLanguages(JSON.parse(document.body.dataset.languages || '{}'));
} catch {
  // No list: code blocks stay plain.
}

// --- model label -------------------------------------------------------------------------------
/**
 * @param {string} model
 * @param {boolean} demo
 */
export function setModel(model, demo) {
  $('model', HTMLElement).textContent = model ? `model: ${model}` : '';
  $('demo', HTMLElement).hidden = demo !== true;
}

// --- connection indicator ----------------------------------------------------------------------
/**
 * @param {string} state
 * @param {string} text
 * @param {string} [title]
 */
export function setConn(state, text, title) {
  if (connEl.dataset.state !== state || connEl.textContent !== text) {
    connEl.dataset.state = state;
    connEl.textContent = text;
  }
  connEl.title = title || '';
}

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
export function showHint(text) {
  const hint = el('p', 'empty-hint', text);
  hint.id = 'empty-hint';
  transcript.replaceChildren(hint);
}

/** @param {string} text */
export function addUser(text) {
  hideHint();
  const m = el('div', 'msg user');
  stickToBottom(() => {
    m.append(el('div', 'who', 'You'), document.createTextNode(text));
    transcript.append(m);
  });
  return m;
}

export const newAssistant = () => AssistantView({ transcript, stickToBottom, hideHint });

/** @param {boolean} busy */
export function setBusy(busy) {
  sendBtn.disabled = busy;
  stopBtn.disabled = !busy;
  newBtn.disabled = busy;
}

/**
 * The conversation as it was: each assistant message's text as Markdown, its calls as tool cards with
 * what this browser remembers of them (`remembered`, by call id), or what the tool messages say
 * (history.js), and under each turn the footer this browser saw it end with (`ends`, by the turn's
 * place among the user messages, from 1).
 * @param {ChatMessage[]} messages
 * @param {Record<string, Remembered>} remembered
 * @param {Record<number, string>} [ends]
 */
export function renderHistory(messages, remembered, ends = {}) {
  /** @type {ReturnType<typeof AssistantView> | null} */
  let view = null;
  /** @type {Map<string, string>} */
  const names = new Map();
  let turns = 0;
  const endTurn = () => {
    view?.streaming(false);
    if (view && ends[turns]) view.end(ends[turns]);
  };
  for (const m of messages) {
    if (m.role === 'user') {
      endTurn();
      view = null;
      turns += 1;
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
  endTurn();
  main.scrollTop = main.scrollHeight;
}

// --- composer -----------------------------------------------------------------------------------
export function autosize() {
  input.style.height = 'auto';
  input.style.height = `${Math.min(input.scrollHeight, window.innerHeight * 0.4)}px`;
}
