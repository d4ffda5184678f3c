// The words of a name, and the keys under which spellings of one name meet: one tokenizer for every
// name the gate compares, tool names, parameter names and path components alike (`getHTTPServer`,
// `get_http_server`, `get-http.server` and `GetHttpServer` have the same words everywhere).

const isUpper = (c: number): boolean => c >= 65 && c <= 90;
const isLower = (c: number): boolean => c >= 97 && c <= 122;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** `\s` (ECMAScript white space and line terminators) and `_ - . @ / :`: what separates words. */
function isSeparator(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13) || c === 95 || c === 45 || c === 46 || c === 64 || c === 47 || c === 58;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/**
 * Words of a name: split on separators and camelCase (`fooBar`, `v2Beta`, `HTTPServer`); lowercased.
 * One pass over the name (a regex pair did the same with a replace per boundary).
 */
export function words(name: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= name.length; i++) {
    const c = i < name.length ? name.charCodeAt(i) : 32;
    if (isSeparator(c)) {
      if (start >= 0) out.push(name.slice(start, i).toLowerCase());
      start = -1;
      continue;
    }
    if (start >= 0) {
      const p = name.charCodeAt(i - 1);
      // `fooBar`, `v2Beta` | `HTTPServer`: a capital after a lower-case letter or digit, or the
      // last capital of a run that a lower-case letter follows.
      if (isUpper(c) && (isLower(p) || isDigit(p) || (isUpper(p) && isLower(name.charCodeAt(i + 1))))) {
        out.push(name.slice(start, i).toLowerCase());
        start = i;
      }
    } else start = i;
  }
  return out;
}

/** The words a name comparison weighs: a bare number (`v2` stays, `2` goes) is noise between names. */
export function nameTokens(name: string): string[] {
  return words(name).filter((w) => !/^\d+$/.test(w));
}

export function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && (w.endsWith('sses') || w.endsWith('xes') || w.endsWith('ches') || w.endsWith('shes'))) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** Case and separators erased: `player_stats.getLast-game` → `playerstatsgetlastgame`. Tool and parameter names. */
export function nameKey(name: string): string {
  return words(name).join('');
}

/** Case, separators and plurals erased: where spelling variants of a file or folder name meet. */
export function singularKey(name: string): string {
  return words(name).map(singular).join('');
}
