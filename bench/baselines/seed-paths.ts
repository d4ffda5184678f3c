// The seed validator's path suggestion, as the seed describes it: every existing path is scored —
// exact component +25, a component within 2 edits +15, the attempt's last component found in the
// candidate +10, same depth +10, −5 per level of depth difference — kept at ≥ 20, top 3.
// Edit distances are memoised per distinct component so the corpus run finishes; the scores (and so
// the suggestions) are exactly the seed's, only faster than a literal implementation.
import { distance } from 'fastest-levenshtein';

export interface SeedPathIndex {
  suggest(attempt: string, limit?: number): string[];
}

export function buildSeedPathIndex(paths: Iterable<string>): SeedPathIndex {
  const all = new Set<string>();
  for (const raw of paths) {
    const p = raw.replace(/^\.?\/+/, '');
    const dir = p.endsWith('/');
    const comps = p.replace(/\/+$/, '').split('/');
    for (let i = 1; i < comps.length; i++) all.add(`${comps.slice(0, i).join('/')}/`);
    all.add(comps.join('/') + (dir ? '/' : ''));
  }
  const entries = [...all].map((p) => ({ p, comps: p.replace(/\/$/, '').split('/') }));
  const distinct = [...new Set(entries.flatMap((e) => e.comps))];
  return {
    suggest(attempt: string, limit = 3): string[] {
      const att = attempt
        .replace(/^\.?\/+/, '')
        .replace(/\/+$/, '')
        .split('/');
      const last = att[att.length - 1]!;
      const near = att.map((a) => new Set(distinct.filter((c) => Math.abs(c.length - a.length) <= 2 && distance(a, c) <= 2)));
      const scored: Array<[string, number]> = [];
      for (const e of entries) {
        const set = new Set(e.comps);
        let s = 0;
        att.forEach((a, i) => {
          if (set.has(a)) s += 25;
          else if (e.comps.some((c) => near[i]!.has(c))) s += 15;
        });
        if (set.has(last)) s += 10;
        if (e.comps.length === att.length) s += 10;
        else s -= 5 * Math.abs(e.comps.length - att.length);
        if (s >= 20) scored.push([e.p, s]);
      }
      return scored
        .sort((a, b) => b[1] - a[1])
        .slice(0, limit)
        .map(([p]) => p);
    },
  };
}
