// How alike two path components are, and how alike two whole paths are. The kinds of slip a model
// makes with a path — a typo, an abbreviation (Mgr/Manager, cfg/config), singular/plural, a wrong
// extension, a dropped or swapped folder — each get a similarity below an exact match, and a path is
// scored by aligning its components with the candidate's (an edit distance over components).
import { distance } from 'fastest-levenshtein';

/** Words of a name: split on separators, camelCase and digit boundaries; lowercased. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_\-.@]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

export function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 4 && /(ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** The key under which spelling variants of one name meet: case, separators and plurals erased. */
export function nameKey(name: string): string {
  return words(name).map(singular).join('');
}

export function splitExt(base: string): { stem: string; ext: string } {
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return { stem: base, ext: '' };
  const ext = base.slice(dot + 1);
  // `1.0.0`, `v8.3` are names, not extensions.
  if (!/^[a-z][a-z0-9]{0,5}$/i.test(ext)) return { stem: base, ext: '' };
  return { stem: base.slice(0, dot), ext: ext.toLowerCase() };
}

/** `a` is an abbreviation of `b`: same first letter and a subsequence of it (mgr/manager, cfg/config). */
function abbreviates(a: string, b: string): boolean {
  if (a.length < 2 || a.length >= b.length || a[0] !== b[0]) return false;
  let j = 0;
  for (let i = 0; i < b.length && j < a.length; i++) if (b[i] === a[j]) j++;
  return j === a.length;
}

function wordSim(a: string, b: string): number {
  if (a === b) return 1;
  const sa = singular(a);
  const sb = singular(b);
  if (sa === sb) return 0.9;
  if (abbreviates(a, b) || abbreviates(b, a)) return Math.min(a.length, b.length) >= 3 ? 0.8 : 0.65;
  const m = Math.max(a.length, b.length);
  if (m >= 4) {
    const d = distance(a, b);
    if (d === 1) return 0.75;
    if (d === 2 && m >= 6) return 0.65;
  }
  return 0;
}

/** Similarity of two names without extensions, in [0, 1]. */
export function stemSim(a: string, b: string): number {
  if (a === b) return 1;
  const al = a.toLowerCase();
  const bl = b.toLowerCase();
  if (al === bl) return 0.95;
  const wa = words(a);
  const wb = words(b);
  if (wa.join('') === wb.join('')) return 0.93;
  if (wa.map(singular).join('') === wb.map(singular).join('')) return 0.9;
  let best = 0;
  if (wa.length === wb.length && wa.length > 0) {
    let sum = 0;
    let ok = true;
    for (let i = 0; i < wa.length; i++) {
      const s = wordSim(wa[i]!, wb[i]!);
      if (s === 0) {
        ok = false;
        break;
      }
      sum += s;
    }
    // A name is only as close as its worst word, but identical words make up for some of it.
    if (ok) best = Math.min(0.88, 0.5 * (sum / wa.length) + 0.5 * Math.min(...wa.map((w, i) => wordSim(w, wb[i]!))));
  }
  const m = Math.max(al.length, bl.length);
  if (m >= 4) {
    const d = distance(al, bl);
    const lim = m >= 10 ? 3 : m >= 6 ? 2 : 1;
    if (d <= lim) best = Math.max(best, 0.8 - 0.06 * d - (m < 6 ? 0.05 : 0));
  }
  return best;
}

/** Similarity of two file or folder names, extensions included. */
export function baseSim(a: string, b: string): number {
  if (a === b) return 1;
  const pa = splitExt(a);
  const pb = splitExt(b);
  const s = stemSim(pa.stem, pb.stem);
  if (pa.ext === pb.ext) return s;
  // A missing extension (dotted module paths) costs less than a wrong one.
  return s * (pa.ext === '' || pb.ext === '' ? 0.95 : 0.9);
}

/** An attempted folder the candidate lacks. */
const GAP = 0.3;
/** A candidate folder the attempt left out: cheaper, models drop folders (a cwd-relative path). */
const EXTRA = 0.15;

/**
 * Score in [0, 1] of `cand` (components) as what `att` (components) meant. The last components
 * (the names) are aligned with each other; the folders are aligned by dynamic programming.
 */
export function pathScore(att: readonly string[], cand: readonly string[], dirSim: (a: string, b: string) => number): number {
  const nb = baseSim(att[att.length - 1]!, cand[cand.length - 1]!);
  if (nb === 0) return 0;
  const A = att.length - 1;
  const C = cand.length - 1;
  // dp over folder prefixes; rows reuse one array.
  let prev = new Float64Array(C + 1);
  for (let j = 1; j <= C; j++) prev[j] = -EXTRA * j;
  for (let i = 1; i <= A; i++) {
    const cur = new Float64Array(C + 1);
    cur[0] = -GAP * i;
    for (let j = 1; j <= C; j++) {
      const s = dirSim(att[i - 1]!, cand[j - 1]!);
      cur[j] = Math.max(prev[j - 1]! + s, prev[j]! - GAP, cur[j - 1]! - EXTRA);
    }
    prev = cur;
  }
  const dirs = prev[C]!;
  const W = 2; // the name counts as much as two folders
  // Folders the candidate has beyond the attempt weigh half: a short attempt is often just relative.
  return Math.max(0, (dirs + W * nb) / (A + W + 0.5 * Math.max(0, C - A)));
}

/** Optimal-string-alignment distance (a transposition is one edit: `mian` → `main`). */
export function osaDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > 3) return Math.abs(n - m);
  let d2 = new Array<number>(m + 1).fill(0);
  let d1 = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const d0 = new Array<number>(m + 1);
    d0[0] = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d1[j]! + 1, d0[j - 1]! + 1, d1[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d2[j - 2]! + 1);
      d0[j] = v;
    }
    d2 = d1;
    d1 = d0;
  }
  return d1[m]!;
}

/**
 * Similarity of a name to a sibling in a folder that otherwise matches: looser than `baseSim`,
 * because the rest of the path already agrees (short names like `mian.ts` deserve a match).
 */
export function siblingSim(a: string, b: string): number {
  const s = baseSim(a, b);
  if (s > 0) return s;
  const pa = splitExt(a);
  const pb = splitExt(b);
  const x = pa.stem.toLowerCase();
  const y = pb.stem.toLowerCase();
  const d = osaDistance(x, y);
  const len = Math.max(x.length, y.length);
  if (d <= 2 && d <= Math.max(1, Math.floor(len * 0.4)) && d < len) {
    const v = 0.7 - 0.1 * d;
    return pa.ext === pb.ext ? v : v * 0.9;
  }
  return 0;
}
