// The static assets, embedded as strings so every runtime serves them without a file system or a
// build step. Each URL carries a content hash so browsers may cache it forever.
import { chatHtml } from './assets/chat.html.ts';
import { chatJs } from './assets/chat.js.ts';
import { dashboardHtml } from './assets/dashboard.html.ts';
import { dashboardJs } from './assets/dashboard.js.ts';
import { highlightLanguages } from './assets/highlight-languages.ts';
import { iconSvg } from './assets/icon.svg.ts';
import { stylesCss } from './assets/styles.css.ts';

export interface Asset {
  body: string;
  type: string;
  hash: string;
  /** Relative to the app's mount point (the pages carry a <base>). */
  url: string;
}

/** FNV-1a: synchronous (crypto.subtle is async) and plenty to tell two versions of a file apart. */
export function contentHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

function asset(name: string, body: string, type: string): Asset {
  const hash = contentHash(body);
  const dot = name.lastIndexOf('.');
  return { body, type, hash, url: `assets/${name.slice(0, dot)}.${hash}${name.slice(dot)}` };
}

const css = asset('styles.css', stylesCss, 'text/css; charset=utf-8');
const chat = asset('chat.js', chatJs, 'text/javascript; charset=utf-8');
const dashboard = asset('dashboard.js', dashboardJs, 'text/javascript; charset=utf-8');
const icon = asset('icon.svg', iconSvg, 'image/svg+xml');
// A code language's grammar, loaded by the chat page the first time a code block in it is drawn.
const grammars = Object.entries(highlightLanguages).map(([name, code]) => [name, asset(`hl-${name}.js`, code, 'text/javascript; charset=utf-8')] as const);
/** Language name → its grammar module's URL, for the chat page (data-languages on its body). */
const languageUrls = Object.fromEntries(grammars.map(([name, a]) => [name, a.url]));

/** By file name without the hash: an old hashed URL still gets the current file (just not cached). */
export const assets = new Map<string, Asset>([
  ['styles.css', css],
  ['chat.js', chat],
  ['dashboard.js', dashboard],
  ['icon.svg', icon],
  ...grammars.map(([name, a]) => [`hl-${name}.js`, a] as const),
]);

const templates = { chat: chatHtml, dashboard: dashboardHtml };
const pageCache = new Map<string, Asset>();

/**
 * A page for an app mounted at `prefix` ('' at the root, '/rebound' inside a Supabase function):
 * its <base> makes every other URL in it relative to the mount point. Cached per prefix.
 */
export function page(kind: keyof typeof templates, prefix: string): Asset {
  const key = `${kind} ${prefix}`;
  let built = pageCache.get(key);
  if (!built) {
    const html = templates[kind]({ css: css.url, js: kind === 'chat' ? chat.url : dashboard.url, icon: icon.url, base: `${prefix}/`, languages: languageUrls });
    built = asset(`${kind}.html`, html, 'text/html; charset=utf-8');
    if (pageCache.size < 16) pageCache.set(key, built);
  }
  return built;
}

/** "chat.1a2b3c.js" → {name: "chat.js", hash: "1a2b3c"}. */
export function parseAssetFile(file: string): { name: string; hash: string | null } {
  const m = /^([\w-]+)\.([0-9a-z]+)\.(\w+)$/.exec(file);
  return m ? { name: `${m[1]}.${m[3]}`, hash: m[2] ?? null } : { name: file, hash: null };
}
