// @ts-check
// Code highlighting for the chat page with @speed-highlight/core's tokenizer (regex grammars, about a
// kilobyte): tokens come back as (text, type) pairs and dom.js makes a span per typed token, so no
// HTML is built from code. Each language's grammar is its own asset, loaded the first time a fence
// needs it; until then the block is plain text, and the caller is told when to draw it again.
import { tokenizeWith } from '@speed-highlight/core/tokenize';
import { languageOf } from './languages.js';

/** @typedef {import('@speed-highlight/core/tokenize').ShjLanguageData} Grammar */
/** @typedef {import('./languages.js').LanguageName} LanguageName */
/** A token: its text and, for the ones that get a colour, its type (kwd, str, cmnt, …). */
/** @typedef {[string, string | undefined]} HighlightToken */

/** Grammars loaded so far, by name, including the ones a loaded language embeds (jsdoc, regex, …). */
/** @type {Record<string, Grammar>} */
const grammars = {};
/** @type {Map<LanguageName, Set<() => void>>} */
const waiting = new Map();
/** @type {Set<LanguageName>} */
const failed = new Set();
/** @type {Partial<Record<LanguageName, string>>} */
let urls = {};

/** Small memo: a frame asks for a block's tokens twice (its key, then its DOM), and settled blocks every frame. */
/** @type {Map<string, HighlightToken[]>} */
const memo = new Map();
const MEMO_SIZE = 64;

/**
 * Where each language's grammar module is (the page says, since asset URLs carry content hashes).
 * @param {Partial<Record<LanguageName, string>>} languageUrls
 */
export function configureLanguages(languageUrls) {
  urls = languageUrls;
}

/**
 * The tokens of `text` in the language a fence names, or null when it is drawn plain: a language not
 * highlighted, or one still loading (then `onReady` is called once it has loaded).
 * @param {string} text
 * @param {string} fence
 * @param {() => void} onReady
 * @returns {HighlightToken[] | null}
 */
export function highlight(text, fence, onReady) {
  const name = languageOf(fence);
  if (name === null || failed.has(name)) return null;
  if (!(name in grammars)) {
    load(name, onReady);
    return null;
  }
  const memoKey = `${name}\u0000${text}`;
  const hit = memo.get(memoKey);
  if (hit) return hit;
  /** @type {HighlightToken[]} */
  const tokens = [];
  tokenizeWith(
    text,
    name,
    (str, type) => {
      if (str) tokens.push([str, type]);
    },
    { languages: grammars },
  );
  if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value ?? '');
  memo.set(memoKey, tokens);
  return tokens;
}

/**
 * @param {LanguageName} name
 * @param {() => void} onReady
 */
function load(name, onReady) {
  let callbacks = waiting.get(name);
  if (callbacks) {
    callbacks.add(onReady);
    return;
  }
  const url = urls[name];
  if (!url) {
    failed.add(name);
    return;
  }
  callbacks = new Set([onReady]);
  waiting.set(name, callbacks);
  import(new URL(url, document.baseURI).href)
    .then((/** @type {{ default: Record<string, Grammar> }} */ mod) => Object.assign(grammars, mod.default))
    .catch(() => failed.add(name)) // offline or gone: the block stays plain
    .finally(() => {
      waiting.delete(name);
      for (const fn of callbacks) fn();
    });
}
