// Reads a V8 .cpuprofile (bench:stream --cpu-prof DIR writes one) and prints where the time went:
// self time summed by function and by file, so a profile is read rather than guessed at.
//
//   npx tsx bench/cpu-profile.ts FILE.cpuprofile [--top 40] [--filter TEXT]
// --filter keeps only frames whose url or function name contains TEXT (e.g. src/ or hono). The last
// table is total (inclusive) time: a function's own time plus that of everything it called.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--top' && args[args.indexOf(a) - 1] !== '--filter');
if (!file) {
  console.error('usage: npx tsx bench/cpu-profile.ts FILE.cpuprofile [--top 40] [--filter TEXT]');
  process.exit(1);
}
const top = args.includes('--top') ? Number(args[args.indexOf('--top') + 1]) : 40;
const filter = args.includes('--filter') ? args[args.indexOf('--filter') + 1]! : '';

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));

const short = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, 'node_modules/')
    .replace(/^.*\/work\/main\//, '');
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (filter && !url.includes(filter) && !functionName.includes(filter)) continue;
  const where = url ? short(url) : '(native)';
  const fn = `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  const pkg = where.startsWith('node_modules/')
    ? where
        .split('/')
        .slice(0, where.split('/')[1]!.startsWith('@') ? 3 : 2)
        .join('/')
    : where;
  byFile.set(pkg, (byFile.get(pkg) ?? 0) + us);
}
// Inclusive time: every sample counts once for each distinct function on its stack.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (id: number) => {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  return `${functionName || '(anonymous)'}  ${url ? `${short(url)}:${lineNumber + 1}` : '(native)'}`;
};
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { url, functionName } = byId.get(at)!.callFrame;
    if (filter && !url.includes(filter) && !functionName.includes(filter)) continue;
    seen.add(label(at));
  }
  for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + us);
}
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled${filter ? `, showing frames matching ${JSON.stringify(filter)}` : ''}`);
print('self time by file (packages grouped)', byFile);
print('self time by function', byFunction);
print('total time by function (itself and what it called)', inclusive);
