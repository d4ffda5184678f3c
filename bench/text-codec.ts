// What the storage text codec (src/store/text-codec.ts) costs on a 1 MB value, against JSON.stringify of
// the same string in the same run (what every SQL store does to a value anyway). Median of many runs.
// Last line: one JSON object.
//
//   npx tsx bench/text-codec.ts [--mb 1] [--runs 41]
import { decodeText, encodeText, ESCAPE } from '../src/store/text-codec.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const SIZE = Math.round((opt('mb', 1) * 1024 * 1024) / 100) * 100;
const RUNS = opt('runs', 41);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
function time(fn: () => unknown): number {
  for (let i = 0; i < 3; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

const text = 'const answer = 42; // a line of code\n';
const base = text.repeat(Math.ceil(SIZE / text.length)).slice(0, SIZE);
/** `base` with `insert` in place of its last characters in every block of 100. */
const every100 = (insert: string) => Array.from({ length: SIZE / 100 }, (_, i) => base.slice(i * 100, i * 100 + 100 - insert.length) + insert).join('');
const cases: Record<string, string> = {
  'ascii (nothing to escape)': base,
  'emoji every 100 chars (nothing to escape)': every100('\u{1F600}'),
  'one NUL in the middle': `${base.slice(0, SIZE / 2)}\u0000${base.slice(SIZE / 2 + 1)}`,
  'NUL, lone surrogate and escape every 100 chars': every100(`\u0000\uD800${ESCAPE}`),
};

const results = Object.entries(cases).map(([name, s]) => {
  const stored = encodeText(s);
  if (decodeText(stored) !== s) throw new Error(`${name}: did not round-trip`);
  const row = {
    case: name,
    chars: s.length,
    encodeMs: time(() => encodeText(s)),
    decodeMs: time(() => decodeText(stored)),
    jsonStringifyMs: time(() => JSON.stringify(s)),
  };
  return { ...row, encodeVsStringify: row.encodeMs / row.jsonStringifyMs };
});

for (const r of results) {
  console.log(
    `${r.case.padEnd(48)} encode ${r.encodeMs.toFixed(3)} ms  decode ${r.decodeMs.toFixed(3)} ms  JSON.stringify ${r.jsonStringifyMs.toFixed(3)} ms  (encode ${r.encodeVsStringify.toFixed(2)}× stringify)`,
  );
}
console.log(JSON.stringify({ bytes: SIZE, runs: RUNS, results }));
