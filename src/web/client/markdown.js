// @ts-check
// Model text as Markdown (CommonMark + GFM tables, task lists, strikethrough, autolinks), safe by
// construction: marked's lexer turns the text into tokens and this module turns the tokens into a
// plain tree ({tag, attrs, children}, text as strings). dom.js builds DOM from the tree with
// createElement and text nodes only, so no HTML string from the model is ever parsed: raw HTML shows as
// text, links open only http(s) and mailto URLs, and images are never loaded (their alt text and URL
// are shown instead). Pure, so it runs under vitest as well as in the page.
import { Lexer } from 'marked';

/** @typedef {import('marked').Token} Token */
/** @typedef {import('marked').Tokens.TableCell} TableCell */
/**
 * An element of the tree; `code` marks a fenced or indented code block (dom.js highlights it).
 * @typedef {{ tag: string, attrs?: Record<string, string>, children: MdNode[], code?: { lang: string, text: string } }} MdElement
 */
/** @typedef {MdElement | string} MdNode */

/** marked's options: GitHub's dialect, and a single newline is a line break, as in GitHub comments and every chat UI. */
const LEX_OPTIONS = { gfm: true, breaks: true };

/** The URL schemes a link may open; anything else (javascript:, data:, vbscript:, relative paths) stays text. */
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/**
 * The Markdown of `text` as a tree of blocks. With `streaming`, the text is still arriving: a line that
 * may yet turn into a construct (the start of a fence, a table whose delimiter row has not come, a
 * line of only markers) is held back until the next line shows what it is, so no raw syntax flickers.
 * @param {string} text
 * @param {{ streaming?: boolean }} [options]
 * @returns {MdNode[]}
 */
export function markdownTree(text, options = {}) {
  const source = options.streaming ? settled(text) : text;
  return blocks(Lexer.lex(source, LEX_OPTIONS));
}

/**
 * The part of streaming text whose rendering will not change when more arrives, give or take the last
 * words of a paragraph: `text` without a trailing partial line that could still become a fence or a
 * setext underline, and without a table's header rows while its delimiter row is missing.
 * @param {string} text
 */
export function settled(text) {
  const lines = text.split('\n');
  const last = lines[lines.length - 1] ?? '';
  // Inside a fence opened by a whole line, everything is code: only a closing fence being written waits.
  if (lines.slice(0, -1).filter((l) => FENCE.test(l)).length % 2 === 1) {
    if (/^ {0,3}(`+|~+)\s*$/.test(last)) lines.pop();
    return lines.join('\n');
  }
  // A line still being written (no newline yet) that opens a fence or holds only markers (- = * # > |).
  if (last !== '' && (/^ {0,3}(`{1,2}|~{1,2})$/.test(last) || FENCE.test(last) || /^ {0,3}[-=*_+#>|:\s]+$/.test(last))) lines.pop();
  // Rows of a table at the end, with no delimiter row among them yet: not a table so far.
  const end = lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
  let start = end;
  while (start > 0 && /^ {0,3}\|/.test(lines[start - 1] ?? '')) start--;
  if (start < end && !lines.slice(start, end).some((r) => TABLE_DELIMITER.test(r))) lines.length = start;
  return lines.join('\n');
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TABLE_DELIMITER = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/**
 * @param {Token[]} tokens
 * @returns {MdNode[]}
 */
function blocks(tokens) {
  /** @type {MdNode[]} */
  const out = [];
  for (const t of tokens) {
    const node = block(t);
    if (node) out.push(node);
  }
  return out;
}

/**
 * @param {string} tag
 * @param {MdNode[]} children
 * @param {Record<string, string>} [attrs]
 * @returns {MdElement}
 */
const h = (tag, children, attrs) => (attrs ? { tag, attrs, children } : { tag, children });

/**
 * @param {Token} t
 * @returns {MdNode | null}
 */
function block(t) {
  switch (t.type) {
    case 'space':
    case 'def':
      return null;
    case 'paragraph':
      return h('p', inline(t.tokens ?? []));
    case 'heading':
      // h1 is the page's; a message's headings start at h3.
      return h(`h${Math.min(6, t.depth + 2)}`, inline(t.tokens ?? []));
    case 'code': {
      const lang =
        String(t.lang ?? '')
          .trim()
          .split(/\s+/)[0] ?? '';
      return { tag: 'figure', children: [], code: { lang: lang.toLowerCase(), text: t.text } };
    }
    case 'blockquote':
      return h('blockquote', blocks(t.tokens ?? []));
    case 'hr':
      return h('hr', []);
    case 'list': {
      /** @type {MdNode[]} */
      const items = t.items.map(/** @param {import('marked').Tokens.ListItem} item */ (item) => listItem(item, t.loose));
      const attrs = t.ordered && t.start !== '' && t.start !== 1 ? { start: String(t.start) } : undefined;
      return h(t.ordered ? 'ol' : 'ul', items, attrs);
    }
    case 'table':
      return h(
        'div',
        [
          h('table', [
            h('thead', [
              h(
                'tr',
                t.header.map(/** @param {TableCell} c */ (c) => cell('th', c)),
              ),
            ]),
            h(
              'tbody',
              t.rows.map(
                /** @param {TableCell[]} row */ (row) =>
                  h(
                    'tr',
                    row.map((c) => cell('td', c)),
                  ),
              ),
            ),
          ]),
        ],
        { class: 'table-wrap' },
      );
    case 'html':
      // Raw HTML is shown as the text it is, never rendered.
      return h('p', [t.raw.replace(/\n+$/, '')], { class: 'raw-html' });
    case 'text':
      return h('p', t.tokens ? inline(t.tokens) : [decodeEntities(t.text)]);
    default:
      return 'raw' in t && typeof t.raw === 'string' ? h('p', [t.raw]) : null;
  }
}

/**
 * @param {'th' | 'td'} tag
 * @param {TableCell} c
 */
function cell(tag, c) {
  return h(tag, inline(c.tokens), c.align ? { class: `align-${c.align}` } : undefined);
}

/**
 * @param {import('marked').Tokens.ListItem} item
 * @param {boolean} loose
 * @returns {MdElement}
 */
function listItem(item, loose) {
  /** @type {MdNode[]} */
  const children = [];
  for (const t of item.tokens) {
    if (t.type === 'checkbox') continue;
    // A tight list's paragraphs are plain text in the item, as CommonMark renders them.
    if (t.type === 'text' && !loose) children.push(...(t.tokens ? inline(t.tokens) : [decodeEntities(t.text)]));
    else {
      const node = block(t);
      if (node) children.push(node);
    }
  }
  if (!item.task) return h('li', children);
  /** @type {Record<string, string>} */
  const box = { type: 'checkbox', disabled: '' };
  if (item.checked) box.checked = '';
  return h('li', [h('input', [], box), ' ', ...children], { class: 'task' });
}

/**
 * @param {Token[]} tokens
 * @returns {MdNode[]}
 */
function inline(tokens) {
  /** @type {MdNode[]} */
  const out = [];
  for (const t of tokens) {
    const node = inlineNode(t);
    if (node === null) continue;
    // Adjacent text joins into one string, so the same text gives the same tree however it was split.
    const prev = out[out.length - 1];
    if (typeof node === 'string' && typeof prev === 'string') out[out.length - 1] = prev + node;
    else out.push(node);
  }
  return out;
}

/**
 * @param {Token} t
 * @returns {MdNode | null}
 */
function inlineNode(t) {
  switch (t.type) {
    case 'text':
      return t.tokens ? h('span', inline(t.tokens)) : decodeEntities(t.text);
    case 'escape':
      return t.text;
    case 'strong':
      return h('strong', inline(t.tokens ?? []));
    case 'em':
      return h('em', inline(t.tokens ?? []));
    case 'del':
      return h('del', inline(t.tokens ?? []));
    case 'codespan':
      return h('code', [t.text]);
    case 'br':
      return h('br', []);
    case 'link':
      return link(t.href, t.title ?? null, inline(t.tokens ?? []));
    case 'image':
      return image(t.href, decodeEntities(t.text));
    case 'html':
      return t.raw;
    case 'checkbox':
      return null;
    default:
      return 'raw' in t && typeof t.raw === 'string' ? t.raw : null;
  }
}

/**
 * A link that opens in a new tab without the page's window or address, or, for a URL it must not
 * open, its text with the destination in a tooltip.
 * @param {string} rawHref
 * @param {string | null} title
 * @param {MdNode[]} children
 * @returns {MdElement}
 */
function link(rawHref, title, children) {
  const href = safeUrl(rawHref);
  const shownTitle = title === null ? null : decodeEntities(title);
  if (href === null) return h('span', children, { class: 'link-inert', title: `link not opened: ${decodeEntities(rawHref)}` });
  /** @type {Record<string, string>} */
  const attrs = { href, rel: 'noopener noreferrer nofollow', target: '_blank' };
  if (shownTitle) attrs.title = shownTitle;
  return h('a', children, attrs);
}

/**
 * An image is never loaded (no tracking pixels, nothing sent anywhere by showing a message): its alt
 * text and its address are shown, the address as a link the user may choose to open.
 * @param {string} rawHref
 * @param {string} alt
 * @returns {MdElement}
 */
function image(rawHref, alt) {
  const href = safeUrl(rawHref);
  const url = decodeEntities(rawHref);
  /** @type {MdNode} */
  const target = href === null ? h('span', [url], { class: 'link-inert' }) : h('a', [url], { href, rel: 'noopener noreferrer nofollow', target: '_blank' });
  return h('span', [`[image${alt ? `: ${alt}` : ''}] `, target], { class: 'md-image', title: 'images in messages are not loaded' });
}

/**
 * The URL a link may open, or null: absolute http(s) and mailto only, judged after entity decoding and
 * the URL parser's own clean-up (tabs, newlines and leading controls that browsers ignore).
 * @param {string} raw
 * @returns {string | null}
 */
export function safeUrl(raw) {
  const decoded = decodeEntities(raw).trim();
  let url;
  try {
    url = new URL(decoded);
  } catch {
    return null; // relative, or not a URL at all
  }
  return LINK_SCHEMES.has(url.protocol) ? url.href : null;
}

/** Named character references models use; numeric ones are decoded by marked already (and here too). */
/** @type {Record<string, string>} */
const ENTITIES = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  times: '×',
  divide: '÷',
  middot: '·',
  bull: '•',
  deg: '°',
  plusmn: '±',
  para: '¶',
  sect: '§',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  larr: '←',
  rarr: '→',
  uarr: '↑',
  darr: '↓',
  harr: '↔',
  rArr: '⇒',
  lArr: '⇐',
  hArr: '⇔',
  le: '≤',
  ge: '≥',
  ne: '≠',
  minus: '−',
  infin: '∞',
  check: '✓',
  tab: '\t',
  newline: '\n',
  colon: ':',
  sol: '/',
  lpar: '(',
  rpar: ')',
  semi: ';',
  comma: ',',
  period: '.',
  excl: '!',
  num: '#',
  percnt: '%',
};

/**
 * @param {string} text
 * @returns {string}
 */
export function decodeEntities(text) {
  if (!text.includes('&')) return text;
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, ref) => {
    if (ref[0] !== '#') return ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    // CommonMark: invalid code points and NUL become U+FFFD.
    return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code);
  });
}
