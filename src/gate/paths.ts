// The path index: which paths exist, and which existing path a model most likely meant by one that
// does not. Built once per path set. A suggestion never scores the whole tree: candidates come from
// keyed lookups (the name with case, separators, plurals and extension erased; the same under its
// parent or grandparent folder; a trigram index of names for typos and abbreviations), and only those
// few are scored by aligning components (path-score.ts).
import type { PathIndex } from './types.ts';
import { nameKey, pathScore, siblingSim, splitExt, stemSim } from './path-score.ts';

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

export function normalizePath(p: string): { path: string; dir: boolean } {
  let s = p.trim().replace(/\\/g, '/');
  const dir = s.endsWith('/');
  s = s.replace(/\/{2,}/g, '/').replace(/^(\.\/)+/, '').replace(/^\/+/, '').replace(/\/+$/, '');
  return { path: s, dir };
}

function parentOf(path: string): string {
  const k = path.lastIndexOf('/');
  return k < 0 ? '' : path.slice(0, k);
}

function lastOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Cheap pre-check before `siblingSim`: every kind of slip keeps the first letter or the length. */
function maybeSimilar(a: string, b: string): boolean {
  return a[0]?.toLowerCase() === b[0]?.toLowerCase() || Math.abs(a.length - b.length) <= 2;
}

function trigrams(key: string): string[] {
  const s = `^${key}$`;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= s.length; i++) out.add(s.slice(i, i + 3));
  return [...out];
}

function push<K>(m: Map<K, number[]>, k: K, v: number): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

export function buildPathIndex(paths: Iterable<string>): PathIndex {
  const entries: Entry[] = [];
  const ids = new Map<string, number>();
  // Folder → names of its direct entries (no trailing slash).
  const children = new Map<string, Set<string>>([['', new Set()]]);

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
    if (!set) children.set(parent, (set = new Set()));
    set.add(lastOf(path));
    if (dir && !children.has(path)) children.set(path, new Set());
  };

  for (const raw of paths) {
    const { path, dir } = normalizePath(raw);
    if (path === '') continue;
    // Folders are implied by the files in them.
    const comps = path.split('/');
    for (let i = 1; i < comps.length; i++) add(comps.slice(0, i).join('/'), true);
    add(path, dir);
  }

  // Keyed buckets.
  const byName = new Map<string, number[]>();
  const byParentName = new Map<string, number[]>();
  const byGrandName = new Map<string, number[]>();
  const byGrandExact = new Map<string, number[]>();
  const keyCache = new Map<string, string>();
  const key = (name: string): string => {
    let k = keyCache.get(name);
    if (k === undefined) {
      k = nameKey(splitExt(name).stem) || name.toLowerCase();
      keyCache.set(name, k);
    }
    return k;
  };
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
  nameKeys.forEach((k, i) => {
    for (const g of trigrams(k)) push(byTrigram, g, i);
  });

  function fuzzyKeys(nk: string, stem: string): string[] {
    const grams = trigrams(nk);
    const counts = new Map<number, number>();
    for (const g of grams) {
      const list = byTrigram.get(g);
      if (!list || list.length > 20000) continue;
      for (const i of list) counts.set(i, (counts.get(i) ?? 0) + 1);
    }
    const need = Math.max(2, Math.ceil(grams.length * 0.35));
    const ranked = [...counts].filter(([, n]) => n >= need).sort((a, b) => b[1] - a[1]).slice(0, 30);
    const out: string[] = [];
    for (const [i] of ranked) {
      const k = nameKeys[i]!;
      if (stemSim(stem, k) > 0 || stemSim(nk, k) > 0) out.push(k);
    }
    return out;
  }

  function candidates(att: string[]): Set<number> {
    const out = new Set<number>();
    const name = att[att.length - 1]!;
    const nk = key(name);
    const pk = att.length >= 2 ? key(att[att.length - 2]!) : undefined;
    const gk = att.length >= 3 ? key(att[att.length - 3]!) : undefined;
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
    if (out.size === 0) for (const k of fuzzyKeys(nk, splitExt(name).stem)) take(k);
    return out;
  }

  function scoreAll(att: string[], attDir: boolean, hits: Map<number, number>): void {
    // Folder names repeat across candidates: memoise per attempted folder.
    const memo = new Map<string, Map<string, number>>();
    const dirSim = (a: string, b: string): number => {
      let m = memo.get(a);
      if (!m) memo.set(a, (m = new Map()));
      let s = m.get(b);
      if (s === undefined) {
        s = a === b ? 1 : stemSim(a, b);
        m.set(b, s);
      }
      return s;
    };
    for (const id of candidates(att)) {
      const e = entries[id]!;
      let s = pathScore(att, e.comps, dirSim);
      // A file was asked for and this is a folder (or the reverse): still possible, less likely.
      const attFile = !attDir && splitExt(att[att.length - 1]!).ext !== '';
      if ((attFile && e.dir) || (attDir && !e.dir)) s *= 0.85;
      if (s > (hits.get(id) ?? 0)) hits.set(id, s);
    }
  }

  // One edit away: the attempt with one component replaced by a sibling, one folder inserted, or
  // one dropped, that exists exactly. This is what most single slips look like, and it is cheap: a
  // folder's entries, each checked by one map lookup.
  function walk(att: string[], hits: Map<number, number>): void {
    const n = att.length;
    let k = 0;
    while (k < n && ids.has(att.slice(0, k + 1).join('/'))) k++;
    if (k === n) return;
    const join = (parts: string[]): string => parts.join('/');
    const put = (p: string, s: number): void => {
      const id = ids.get(p);
      if (id !== undefined && s > (hits.get(id) ?? 0)) hits.set(id, s);
    };
    // Written relative to another base (a working folder repeated in front): a tail that exists.
    for (let s = 1; s < n; s++) put(join(att.slice(s)), 1.05 + 0.01 * (n - s));
    for (let L = 0; L <= k; L++) {
      const folder = join(att.slice(0, L));
      const pre = folder === '' ? '' : `${folder}/`;
      const rest = join(att.slice(L + 1));
      const isName = L === n - 1;
      // The more of the attempt that survives after the edit, the more telling the match.
      const kept = 0.02 * (n - L - 1);
      if (isName) {
        // The folder is right, the name is not: a similar sibling.
        for (const c of children.get(folder) ?? []) {
          const sim = c === att[L] || !maybeSimilar(att[L]!, c) ? 0 : siblingSim(att[L]!, c);
          if (sim > 0) put(pre + c, 1 + 0.5 * sim + kept);
        }
      } else {
        // Folder att[L] dropped.
        put(pre + rest, 1.2 + kept);
        // Folder att[L] replaced by a sibling: folder/*/att[L+1]/… exists.
        // Unlike siblings all tie; a few of them are as good as a thousand.
        let unlike = 0;
        for (const id of byGrandExact.get(`${folder}\u0000${att[L + 1]}`) ?? []) {
          const sib = entries[id]!.comps[L]!;
          if (sib === att[L]) continue;
          const sim = maybeSimilar(att[L]!, sib) ? siblingSim(att[L]!, sib) : 0;
          if (sim === 0 && ++unlike > 24) continue;
          put(`${pre}${sib}/${rest}`, sim > 0 ? 1 + 0.5 * sim + kept : 1.1 + kept);
        }
      }
      // A folder left out before att[L]: folder/*/att[L]/… exists.
      const here = join(att.slice(L));
      for (const id of byGrandExact.get(`${folder}\u0000${att[L]}`) ?? []) put(`${parentOf(entries[id]!.path)}/${here}`, 1.25 + kept);
    }
  }

  const has = (path: string): boolean => ids.has(normalizePath(path).path);

  return {
    get size() {
      return entries.length;
    },
    has,
    suggest(path: string, limit = 3): string[] {
      const { path: p, dir } = normalizePath(path);
      if (p === '') return [];
      const hits = new Map<number, number>();
      const att = p.split('/');
      const forms = [att];
      // `Service.Core.Systems.WeaponMgr`: a module path written with dots.
      if (att.length === 1) {
        const parts = p.split('.');
        if (parts.length >= 3 || (parts.length === 2 && splitExt(p).ext === '')) forms.push(parts);
      }
      for (const f of forms) walk(f, hits);
      // One-edit matches are strong evidence; the wider scoring only fills the remaining places.
      if (hits.size === 0) for (const f of forms) scoreAll(f, dir, hits);
      const depth = att.length;
      return [...hits]
        .filter(([, s]) => s >= THRESHOLD)
        .sort(
          (a, b) =>
            b[1] - a[1] ||
            Math.abs(entries[a[0]]!.comps.length - depth) - Math.abs(entries[b[0]]!.comps.length - depth) ||
            entries[a[0]]!.path.length - entries[b[0]]!.path.length ||
            (entries[a[0]]!.path < entries[b[0]]!.path ? -1 : 1),
        )
        .slice(0, limit)
        .map(([id]) => entries[id]!.path + (entries[id]!.dir ? '/' : ''));
    },
    nearestListing(path: string): { folder: string; entries: string[] } {
      let folder = normalizePath(path).path;
      while (folder !== '' && !(children.has(folder) && entries[ids.get(folder)!]?.dir)) folder = parentOf(folder);
      const names = [...(children.get(folder) ?? [])].sort();
      return { folder, entries: names.map((c) => c + (entries[ids.get(folder === '' ? c : `${folder}/${c}`)!]!.dir ? '/' : '')) };
    },
  };
}
