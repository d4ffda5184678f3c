// @ts-check
// The Markdown tree (markdown.js) as DOM, with createElement, setAttribute and text nodes only: nothing
// here parses HTML. A message is re-rendered once per animation frame while it streams, so its blocks
// are reconciled: a block whose tree is unchanged keeps its DOM node (a finished code block keeps its
// highlighting, copy button and selection), and only what changed (usually the last block) is rebuilt.
import { highlight } from './highlight.js';

/** @typedef {import('./markdown.js').MdNode} MdNode */
/** @typedef {import('./markdown.js').MdElement} MdElement */

/** What each rendered block was built from, to tell whether it can stay. */
const built = new WeakMap();

/**
 * Makes `container`'s children show `blocks`, reusing the nodes of blocks that did not change.
 * @param {Element} container
 * @param {MdNode[]} blocks
 * @param {() => void} onHighlighterReady called when a language this render wanted has loaded
 */
export function renderBlocks(container, blocks, onHighlighterReady) {
  const old = Array.from(container.childNodes);
  blocks.forEach((block, i) => {
    const key = blockKey(block, onHighlighterReady);
    const existing = old[i];
    if (existing && built.get(existing) === key) return;
    const node = toDom(block, onHighlighterReady);
    built.set(node, key);
    if (existing) container.replaceChild(node, existing);
    else container.append(node);
  });
  for (let i = blocks.length; i < old.length; i++) old[i]?.remove();
}

/**
 * A block's identity: its tree, and whether each code block in it can be highlighted yet (a block
 * drawn plain is drawn again once its language has loaded).
 * @param {MdNode} block
 * @param {() => void} onReady
 */
function blockKey(block, onReady) {
  let key = JSON.stringify(block);
  walkCode(block, (code) => {
    key += highlight(code.text, code.lang, onReady) ? '+' : '-';
  });
  return key;
}

/**
 * @param {MdNode} node
 * @param {(code: { lang: string, text: string }) => void} fn
 */
function walkCode(node, fn) {
  if (typeof node === 'string') return;
  if (node.code) fn(node.code);
  for (const child of node.children) walkCode(child, fn);
}

/**
 * @param {MdNode} node
 * @param {() => void} onReady
 * @returns {Node}
 */
export function toDom(node, onReady) {
  if (typeof node === 'string') return document.createTextNode(node);
  if (node.code) return codeBlock(node.code, onReady);
  const el = document.createElement(node.tag);
  for (const [name, value] of Object.entries(node.attrs ?? {})) el.setAttribute(name, value);
  for (const child of node.children) el.append(toDom(child, onReady));
  return el;
}

/**
 * A code block: a bar with the language and a copy button, and the code, highlighted when its
 * language is known and loaded (until then plain, and redrawn once it has loaded).
 * @param {{ lang: string, text: string }} code
 * @param {() => void} onReady
 */
function codeBlock(code, onReady) {
  const figure = document.createElement('figure');
  figure.className = 'code';
  const bar = document.createElement('div');
  bar.className = 'code-bar';
  const label = document.createElement('span');
  label.className = 'code-lang';
  label.textContent = code.lang || 'text';
  const copy = document.createElement('button');
  copy.type = 'button';
  copy.className = 'copy';
  copy.textContent = 'Copy';
  copy.setAttribute('aria-label', `Copy ${code.lang || 'code'} to the clipboard`);
  copy.addEventListener('click', () => copyText(copy, code.text));
  bar.append(label, copy);
  const pre = document.createElement('pre');
  const el = document.createElement('code');
  const tokens = highlight(code.text, code.lang, onReady);
  if (tokens) {
    el.dataset.highlighted = code.lang;
    for (const [text, type] of tokens) {
      if (!type) {
        el.append(document.createTextNode(text));
        continue;
      }
      const span = document.createElement('span');
      span.className = `tok-${type}`;
      span.textContent = text;
      el.append(span);
    }
  } else {
    el.textContent = code.text;
  }
  pre.append(el);
  figure.append(bar, pre);
  return figure;
}

/**
 * @param {HTMLButtonElement} button
 * @param {string} text
 */
async function copyText(button, text) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Copy failed';
  }
  setTimeout(() => {
    button.textContent = 'Copy';
  }, 1500);
}
