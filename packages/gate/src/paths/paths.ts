// The path index: which paths exist, and which existing path a model most likely meant by one that
// does not. Built once per path set. A suggestion never scores the whole tree: candidates come from
// keyed lookups (the name with case, separators, plurals and extension erased; the same under its
// parent or grandparent folder; a trigram index of names for typos and abbreviations), and only those
// few are scored by aligning components (path-score.ts).
// An attempt can be megabytes of slashes, dots or folders: no path longer than the longest in the
// index can exist, so every lookup is skipped past that length, runs of components are slices of one
// joined string (never re-joined per slash), and the time stays linear in the attempt.
import type { PathIndex } from '../types.ts';
import { readWorkspacePath } from './workspace-path.ts';
import { bestScore, fileNameSimilarity, pathScore, splitExt, stemSimilarity, type FileNameSimilarity } from './path-score.ts';
import { worthOffering } from '../suggest.ts';
import { singularKey } from '../words.ts';

interface Entry {
  path: string;
  comps: string[];
  dir: boolean;
}

/** Below this a suggestion is more likely noise than the path meant: abstain. */
const THRESHOLD = 0.55;
/** A name bucket larger than this (`index.ts`, `__test__.jsonc`) is narrowed by its folders. */
const BUCKET_CAP = 300;
/** At most this many candidates are scored per attempt. */
const SCORE_CAP = 200;
/**
 * Longer paths (PATH_MAX on Linux; no real file has one) are known to exist but not indexed for
 * suggestions and listings: indexing every folder of a path costs its length squared, and a model
 * can write a file with a megabyte-long path, which would then stall every index build.
 */
export const MAX_INDEXED_PATH_CHARS = 4096;

function parentOf(path: string): string {
  const k = path.lastIndexOf('/');
  return k < 0 ? '' : path.slice(0, k);
}

function lastOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Cheap pre-check before comparing siblings: every kind of slip keeps the first letter or the length. */
function maybeSimilar(a: string, b: string): boolean {
  return a[0]?.toLowerCase() === b[0]?.toLowerCase() || Math.abs(a.length - b.length) <= 2;
}

/** The distinct trigrams of `^key$`; counting stops once there are `cap`. */
function trigrams(key: string, cap = Infinity): string[] {
  const s = `^${key}$`;
  // Deduplicated by code (three UTF-16 units fit a double exactly): a long repetitive key costs
  // no string per position.
  const seen = new Set<number>();
  const out: string[] = [];
  for (let i = 0; i + 3 <= s.length && out.length < cap; i++) {
    const code = (s.charCodeAt(i) * 65536 + s.charCodeAt(i + 1)) * 65536 + s.charCodeAt(i + 2);
    if (seen.has(code)) continue;
    seen.add(code);
    out.push(s.slice(i, i + 3));
  }
  return out;
}

function push<K>(m: Map<K, number[]>, k: K, v: number): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

/**
 * An attempt's components as offsets into the one `/`-joined string: any run of them is one slice,
 * never a re-join, and a path of millions of slashes costs no string per component.
 */
interface Comps {
  readonly length: number;
  at(i: number): string;
  /** `comps.slice(a, b).join('/')`. */
  text(a: number, b: number): string;
  /** Its length, without building it. */
  textLength(a: number, b: number): number;
}

function compsOf(joined: string): Comps {
  let count = 1;
  for (let i = 0; i < joined.length; i++) if (joined.charCodeAt(i) === 47) count++;
  // start[i]: where component i begins; start[count] is one past the end, as if a slash followed.
  const start = new Int32Array(count + 1);
  for (let i = 0, k = 1; i < joined.length; i++) if (joined.charCodeAt(i) === 47) start[k++] = i + 1;
  start[count] = joined.length + 1;
  const text = (a: number, b: number): string => (a >= b ? '' : joined.slice(start[a], start[b]! - 1));
  const textLength = (a: number, b: number): number => (a >= b ? 0 : start[b]! - 1 - start[a]!);
  return { length: count, at: (i) => text(i, i + 1), text, textLength };
}

export function buildPathIndex(paths: Iterable<string>): PathIndex {
  const entries: Entry[] = [];
  const ids = new Map<string, number>();
  // Folder → names of its direct entries (no trailing slash).
  const children = new Map<string, Set<string>>([['', new Set()]]);
  const unindexed = new Set<string>();

  const add = (path: string, dir: boolean): void => {
    if (path === '' || ids.has(path)) {
      const id = ids.get(path);
      if (id !== undefined && dir) entries[id]!.dir = true;
      return;
    }
    ids.set(path, entries.length);
    entries.push({ path, comps: path.split('/'), dir });
    const parent = parentOf(path);
    let set = children.get(parent);
    if (!set) {
      set = new Set();
      children.set(parent, set);
    }
    set.add(lastOf(path));
    if (dir && !children.has(path)) children.set(path, new Set());
  };

  for (const raw of paths) {
    const { path, dir } = readWorkspacePath(raw);
    if (path === '') continue;
    if (path.length > MAX_INDEXED_PATH_CHARS) {
      unindexed.add(path);
      continue;
    }
    // Folders are implied by the files in them.
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) add(path.slice(0, i), true);
    add(path, dir);
  }

  // Keyed buckets.
  const byName = new Map<string, number[]>();
  const byParentName = new Map<string, number[]>();
  const byGrandName = new Map<string, number[]>();
  const byGrandExact = new Map<string, number[]>();
  const keyCache = new Map<string, string>();
  const keyOf = (name: string): string => singularKey(splitExt(name).stem) || name.toLowerCase();
  // Index names repeat (`index.ts`): cached. An attempt's names are not, so the cache stays the index's size.
  const key = (name: string): string => {
    let k = keyCache.get(name);
    if (k === undefined) {
      k = keyOf(name);
      keyCache.set(name, k);
    }
    return k;
  };
  // No path longer (in characters) than the longest indexed one can exist, and no attempt much
  // deeper than the deepest one can score against it (`bestScore` grows with the candidate's depth).
  let maxLen = 0;
  let maxFolders = 0;
  for (const e of entries) {
    maxLen = Math.max(maxLen, e.path.length);
    maxFolders = Math.max(maxFolders, e.comps.length - 1);
  }
  const canScore = (depth: number): boolean => depth - 1 < maxFolders || bestScore(depth - 1, maxFolders) >= THRESHOLD - 1e-9;
  for (let id = 0; id < entries.length; id++) {
    const c = entries[id]!.comps;
    const nk = key(c[c.length - 1]!);
    push(byName, nk, id);
    // Exact: grandparent folder + name, for "one folder in between" lookups.
    const gp = c.length >= 2 ? c.slice(0, c.length - 2).join('/') : undefined;
    if (gp !== undefined) push(byGrandExact, `${gp}\u0000${c[c.length - 1]}`, id);
    if (c.length >= 2) push(byParentName, `${key(c[c.length - 2]!)}/${nk}`, id);
    if (c.length >= 3) push(byGrandName, `${key(c[c.length - 3]!)}/${nk}`, id);
  }
  // Trigram index over the distinct name keys, for names that are misspelt or abbreviated.
  const nameKeys = [...byName.keys()];
  const byTrigram = new Map<string, number[]>();
  // A key shares at most as many trigrams as it has.
  let maxGrams = 0;
  nameKeys.forEach((k, i) => {
    const grams = trigrams(k);
    maxGrams = Math.max(maxGrams, grams.length);
    for (const g of grams) push(byTrigram, g, i);
  });

  function fuzzyKeys(nk: string, named: FileNameSimilarity): string[] {
    const grams = trigrams(nk, Math.ceil(maxGrams / 0.35) + 1);
    // A long attempt needs more shared trigrams than any key has.
    if (Math.max(2, Math.ceil(grams.length * 0.35)) > maxGrams) return [];
    const counts = new Map<number, number>();
    for (const g of grams) {
      const list = byTrigram.get(g);
      if (!list || list.length > 20000) continue;
      for (const i of list) counts.set(i, (counts.get(i) ?? 0) + 1);
    }
    const need = Math.max(2, Math.ceil(grams.length * 0.35));
    const ranked = [...counts]
      .filter(([, n]) => n >= need)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30);
    const out: string[] = [];
    const byKey = stemSimilarity(nk);
    for (const [i] of ranked) {
      const k = nameKeys[i]!;
      if (named.stem(k) > 0 || byKey(k) > 0) out.push(k);
    }
    return out;
  }

  function candidates(att: string[], named: FileNameSimilarity): Set<number> {
    const out = new Set<number>();
    const name = att[att.length - 1]!;
    const nk = named.key || name.toLowerCase();
    const pk = att.length >= 2 ? keyOf(att[att.length - 2]!) : undefined;
    const gk = att.length >= 3 ? keyOf(att[att.length - 3]!) : undefined;
    const take = (k: string): void => {
      const bucket = byName.get(k);
      if (!bucket) return;
      if (bucket.length <= BUCKET_CAP) {
        for (const id of bucket) out.add(id);
        return;
      }
      // A common name: keep those whose parent or grandparent matches one of the attempt's folders
      // (covers a wrong/missing folder anywhere above, and a wrong parent), the closest first.
      for (const m of [byParentName.get(`${pk}/${k}`), byGrandName.get(`${pk}/${k}`), byGrandName.get(`${gk}/${k}`), byParentName.get(`${gk}/${k}`)]) {
        if (!m) continue;
        for (const id of m) {
          if (out.size >= SCORE_CAP) return;
          out.add(id);
        }
      }
    };
    take(nk);
    if (out.size === 0) for (const k of fuzzyKeys(nk, named)) take(k);
    return out;
  }

  function scoreAll(att: string[], attDir: boolean, hits: Map<number, number>): void {
    // Folder and file names repeat across candidates: memoise per attempted folder, and per name.
    const memo = new Map<string, { sim: (b: string) => number; seen: Map<string, number> }>();
    const dirSim = (a: string, b: string): number => {
      let m = memo.get(a);
      if (!m) {
        m = { sim: stemSimilarity(a), seen: new Map() };
        memo.set(a, m);
      }
      let s = m.seen.get(b);
      if (s === undefined) {
        s = m.sim(b);
        m.seen.set(b, s);
      }
      return s;
    };
    const name = att[att.length - 1]!;
    const toName = fileNameSimilarity(name);
    const names = new Map<string, number>();
    const nameSim = (b: string): number => {
      let s = names.get(b);
      if (s === undefined) {
        s = toName.base(b);
        names.set(b, s);
      }
      return s;
    };
    // A file was asked for and this is a folder (or the reverse): still possible, less likely.
    const attFile = !attDir && splitExt(name).ext !== '';
    for (const id of candidates(att, toName)) {
      const e = entries[id]!;
      let s = pathScore(att, e.comps, { nameSim, dirSim, floor: THRESHOLD });
      if ((attFile && e.dir) || (attDir && !e.dir)) s *= 0.85;
      if (s > (hits.get(id) ?? 0)) hits.set(id, s);
    }
  }

  // One edit away: the attempt with one component replaced by a sibling, one folder inserted, or
  // one dropped, that exists exactly. This is what most single slips look like, and it is cheap: a
  // folder's entries, each checked by one map lookup.
  function walk(att: Comps, hits: Map<number, number>): void {
    const n = att.length;
    const fits = (extra: number, a: number, b: number): boolean => extra + att.textLength(a, b) <= maxLen;
    let k = 0;
    while (k < n && fits(0, 0, k + 1) && ids.has(att.text(0, k + 1))) k++;
    if (k === n) return;
    const put = (p: string, s: number): void => {
      const id = ids.get(p);
      if (id !== undefined && s > (hits.get(id) ?? 0)) hits.set(id, s);
    };
    // Written relative to another base (a working folder repeated in front): a tail that exists.
    for (let s = n - 1; s >= 1 && fits(0, s, n); s--) put(att.text(s, n), 1.05 + 0.01 * (n - s));
    for (let L = 0; L <= k; L++) {
      const folder = att.text(0, L);
      const here = att.at(L);
      const pre = folder === '' ? '' : `${folder}/`;
      const isName = L === n - 1;
      // The more of the attempt that survives after the edit, the more telling the match.
      const kept = 0.02 * (n - L - 1);
      let similar: FileNameSimilarity | undefined;
      const sim = (b: string): number => {
        similar ??= fileNameSimilarity(here);
        return similar.sibling(b);
      };
      if (isName) {
        // The folder is right, the name is not: a similar sibling.
        for (const c of children.get(folder) ?? []) {
          const s = c === here || !maybeSimilar(here, c) ? 0 : sim(c);
          if (s > 0) put(pre + c, 1 + 0.5 * s + kept);
        }
      } else {
        const rest = fits(pre.length, L + 1, n) ? att.text(L + 1, n) : undefined;
        // Folder att[L] dropped.
        if (rest !== undefined) put(pre + rest, 1.2 + kept);
        // Folder att[L] replaced by a sibling: folder/*/att[L+1]/… exists.
        // Unlike siblings all tie; a few of them are as good as a thousand.
        let unlike = 0;
        for (const id of rest === undefined ? [] : (byGrandExact.get(`${folder}\u0000${att.at(L + 1)}`) ?? [])) {
          const sib = entries[id]!.comps[L]!;
          if (sib === here) continue;
          const s = maybeSimilar(here, sib) ? sim(sib) : 0;
          if (s === 0 && ++unlike > 24) continue;
          if (fits(pre.length + sib.length + 1, L + 1, n)) put(`${pre}${sib}/${rest}`, s > 0 ? 1 + 0.5 * s + kept : 1.1 + kept);
        }
      }
      // A folder left out before att[L]: folder/*/att[L]/… exists.
      if (!fits(2, L, n)) continue;
      const tail = att.text(L, n);
      for (const id of byGrandExact.get(`${folder}\u0000${here}`) ?? []) {
        const parent = parentOf(entries[id]!.path);
        if (fits(parent.length + 1, L, n)) put(`${parent}/${tail}`, 1.25 + kept);
      }
    }
  }

  // A path the workspace tools would refuse (absolute, or leaving the workspace) never exists.
  const has = (path: string): boolean => {
    const { path: p, refusal } = readWorkspacePath(path);
    return refusal === undefined && (ids.has(p) || unindexed.has(p));
  };

  return {
    get size() {
      return entries.length;
    },
    has,
    suggest(path: string, limit = 3): string[] {
      const { path: p, dir } = readWorkspacePath(path);
      if (p === '') return [];
      const hits = new Map<number, number>();
      const att = compsOf(p);
      const forms = [att];
      // `Service.Core.Systems.WeaponMgr`: a module path written with dots.
      if (att.length === 1) {
        const dots = compsOf(p.replaceAll('.', '/'));
        if (dots.length >= 3 || (dots.length === 2 && splitExt(p).ext === '')) forms.push(dots);
      }
      for (const f of forms) walk(f, hits);
      // One-edit matches are strong evidence; the wider scoring only fills the remaining places.
      // An attempt far deeper than any indexed path cannot score: its components are never listed.
      if (hits.size === 0) {
        for (const f of forms)
          if (canScore(f.length))
            scoreAll(
              Array.from({ length: f.length }, (_, i) => f.at(i)),
              dir,
              hits,
            );
      }
      const depth = att.length;
      const ranked = [...hits]
        .filter(([, s]) => s >= THRESHOLD)
        .sort(
          (a, b) =>
            b[1] - a[1] ||
            Math.abs(entries[a[0]]!.comps.length - depth) - Math.abs(entries[b[0]]!.comps.length - depth) ||
            entries[a[0]]!.path.length - entries[b[0]]!.path.length ||
            (entries[a[0]]!.path < entries[b[0]]!.path ? -1 : 1),
        );
      return worthOffering(ranked, ([, s]) => s, limit).map(([id]) => entries[id]!.path + (entries[id]!.dir ? '/' : ''));
    },
    nearestListing(path: string): { folder: string; entries: string[] } {
      // Every folder above an existing folder exists: walk down from the root while the prefix is a
      // folder, instead of up from the end (a hash of the whole remaining path per slash).
      const p = readWorkspacePath(path).path;
      let folder = '';
      for (let end = p.indexOf('/'); ; end = p.indexOf('/', end + 1)) {
        const prefix = p.slice(0, end < 0 ? p.length : end);
        if (prefix === '' || prefix.length > maxLen || !(children.has(prefix) && entries[ids.get(prefix)!]?.dir)) break;
        folder = prefix;
        if (end < 0) break;
      }
      const names = [...(children.get(folder) ?? [])].sort();
      return { folder, entries: names.map((c) => c + (entries[ids.get(folder === '' ? c : `${folder}/${c}`)!]!.dir ? '/' : '')) };
    },
  };
}
