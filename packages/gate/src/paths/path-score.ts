// How alike two path components are, and how alike two whole paths are. The kinds of slip a model
// makes with a path — a typo, an abbreviation (Mgr/Manager, cfg/config), singular/plural, a wrong
// extension, a dropped or swapped folder — each get a similarity below an exact match, and a path is
// scored by aligning its components with the candidate's (an edit distance over components).
import { distance } from 'fastest-levenshtein';
import { singular, words } from '../words.ts';

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
  // Greedy, one native search per letter of the abbreviation: cheap even when `b` is very long.
  for (let i = 1, j = 1; j < a.length; i++, j++) {
    i = b.indexOf(a[j]!, i);
    if (i < 0) return false;
  }
  return true;
}

/** One word with its singular, found once. */
interface Word {
  text: string;
  one: string;
}

function wordSim(a: Word, b: Word): number {
  if (a.text === b.text) return 1;
  if (a.one === b.one) return 0.9;
  if (abbreviates(a.text, b.text) || abbreviates(b.text, a.text)) return Math.min(a.text.length, b.text.length) >= 3 ? 0.8 : 0.65;
  const m = Math.max(a.text.length, b.text.length);
  // The distance is at least the difference in length: names far apart in length skip it.
  if (m >= 4 && Math.abs(a.text.length - b.text.length) <= 2) {
    const d = distance(a.text, b.text);
    if (d === 1) return 0.75;
    if (d === 2 && m >= 6) return 0.65;
  }
  return 0;
}

/**
 * A stem as every comparison reads it, computed once: comparing one attempted name with many
 * candidates then costs each candidate's length, not the attempt's again and again.
 */
interface Stem {
  text: string;
  lower: string;
  words: Word[];
  joined: string;
  joinedOne: string;
}

function stemOf(text: string): Stem {
  const ws = words(text);
  const one = ws.map(singular);
  return { text, lower: text.toLowerCase(), words: ws.map((w, i) => ({ text: w, one: one[i]! })), joined: ws.join(''), joinedOne: one.join('') };
}

function compareStems(a: Stem, b: Stem): number {
  if (a.text === b.text) return 1;
  const al = a.lower;
  const bl = b.lower;
  if (al === bl) return 0.95;
  if (a.joined === b.joined) return 0.93;
  if (a.joinedOne === b.joinedOne) return 0.9;
  let best = 0;
  const wa = a.words;
  const wb = b.words;
  if (wa.length === wb.length && wa.length > 0) {
    let sum = 0;
    let worst = 1;
    let ok = true;
    for (let i = 0; i < wa.length; i++) {
      const s = wordSim(wa[i]!, wb[i]!);
      if (s === 0) {
        ok = false;
        break;
      }
      sum += s;
      worst = Math.min(worst, s);
    }
    // A name is only as close as its worst word, but identical words make up for some of it.
    if (ok) best = Math.min(0.88, 0.5 * (sum / wa.length) + 0.5 * worst);
  }
  const m = Math.max(al.length, bl.length);
  const lim = m >= 10 ? 3 : m >= 6 ? 2 : 1;
  if (m >= 4 && Math.abs(al.length - bl.length) <= lim) {
    const d = distance(al, bl);
    if (d <= lim) best = Math.max(best, 0.8 - 0.06 * d - (m < 6 ? 0.05 : 0));
  }
  return best;
}

/** Similarity of names without extensions to `a`, in [0, 1]; `a` is read once for all of them. */
export function stemSimilarity(a: string): (b: string) => number {
  const sa = stemOf(a);
  return (b) => (a === b ? 1 : compareStems(sa, stemOf(b)));
}

export interface FileNameSimilarity {
  /** The name's `nameKey` (of its stem). */
  key: string;
  /** Similarity of a name without extension to the stem. */
  stem(b: string): number;
  /** Similarity of a file or folder name, extensions included. */
  base(b: string): number;
  /** Looser, for a sibling in a folder that otherwise matches (short names like `mian.ts`). */
  sibling(b: string): number;
}

/** Similarity of file or folder names to `a`; `a` is read once for all of them. */
export function fileNameSimilarity(a: string): FileNameSimilarity {
  const pa = splitExt(a);
  const sa = stemOf(pa.stem);
  const base = (b: string): number => {
    if (a === b) return 1;
    const pb = splitExt(b);
    const s = compareStems(sa, stemOf(pb.stem));
    if (pa.ext === pb.ext) return s;
    // A missing extension (dotted module paths) costs less than a wrong one.
    return s * (pa.ext === '' || pb.ext === '' ? 0.95 : 0.9);
  };
  return {
    key: sa.joinedOne,
    stem: (b) => (pa.stem === b ? 1 : compareStems(sa, stemOf(b))),
    base,
    sibling(b) {
      const s = base(b);
      if (s > 0) return s;
      const pb = splitExt(b);
      const x = sa.lower;
      const y = pb.stem.toLowerCase();
      const d = osaDistance(x, y);
      const len = Math.max(x.length, y.length);
      if (d <= 2 && d <= Math.max(1, Math.floor(len * 0.4)) && d < len) {
        const v = 0.7 - 0.1 * d;
        return pa.ext === pb.ext ? v : v * 0.9;
      }
      return 0;
    },
  };
}

/** An attempted folder the candidate lacks. */
const GAP = 0.3;
/** A candidate folder the attempt left out: cheaper, models drop folders (a cwd-relative path). */
const EXTRA = 0.15;
/** The name counts as much as two folders. */
const W = 2;

/**
 * The highest score a candidate with `C` folders can get from an attempt with `A`, for a name
 * similarity `nb`: every folder of the shorter side matched exactly, the rest gaps. It grows with
 * `C` while `C <= A`, so an attempt thousands of folders deep is over before any alignment.
 */
export function bestScore(A: number, C: number, nb = 1): number {
  const m = Math.min(A, C);
  // Folders the candidate has beyond the attempt weigh half: a short attempt is often just relative.
  return (m - GAP * (A - m) - EXTRA * (C - m) + W * nb) / (A + W + 0.5 * Math.max(0, C - A));
}

export interface PathScoring {
  /** Similarity of the attempt's name (its last component) to a candidate's. */
  nameSim(b: string): number;
  /** Similarity of an attempted folder to a candidate's, in [0, 1]. */
  dirSim(a: string, b: string): number;
  /** A score that cannot reach this is reported as 0 without aligning the folders. */
  floor?: number;
}

/**
 * Score in [0, 1] of `cand` (components) as what `att` (components) meant. The last components
 * (the names) are aligned with each other; the folders are aligned by dynamic programming.
 */
export function pathScore(att: readonly string[], cand: readonly string[], how: PathScoring): number {
  const nb = how.nameSim(cand[cand.length - 1]!);
  if (nb === 0) return 0;
  const A = att.length - 1;
  const C = cand.length - 1;
  // The alignment costs folders × folders: skipped when even a perfect one stays below the floor.
  if (how.floor !== undefined && bestScore(A, C, nb) < how.floor - 1e-9) return 0;
  // dp over folder prefixes; rows reuse one array.
  let prev = new Float64Array(C + 1);
  for (let j = 1; j <= C; j++) prev[j] = -EXTRA * j;
  for (let i = 1; i <= A; i++) {
    const cur = new Float64Array(C + 1);
    cur[0] = -GAP * i;
    for (let j = 1; j <= C; j++) {
      const s = how.dirSim(att[i - 1]!, cand[j - 1]!);
      cur[j] = Math.max(prev[j - 1]! + s, prev[j]! - GAP, cur[j - 1]! - EXTRA);
    }
    prev = cur;
  }
  const dirs = prev[C]!;
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
