// bench:turn-memory — what one turn costs the server's memory against the size of its text (issue 32):
// the app in its own process (bench/stream-server.ts, as npm start wires it: PGlite by default, the
// in-memory store with --store memory), turns of 1, 5 and 20 MB of text (10 KB deltas, as
// BIG_ANSWER) and a second 20 MB turn, each read whole by one reader. Before and after each, with a
// full GC: the process's RSS and JS heap. Prints the growth per MB of text, the idle RSS (after a
// warm-up turn), and what is left once finished turns are no longer retained for reconnects
// (LiveTurns' retainMs, shortened here by RETAIN_MS).
//
//   npm run bench:turn-memory -- [--store pglite|memory] [--sizes 1,5,20,20] [--heap-snapshot DIR] [--json]
//
// --heap-snapshot DIR writes the server's V8 heap snapshot after the last turn (open it in Chrome's
// DevTools, Memory tab, to see what holds the text).
import { startScriptedOpenAI } from '../test/support/scripted-openai.ts';
import { ask, startAppProcess } from './app-process.ts';

const args = process.argv.slice(2);
const arg = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const STORE = arg('--store') === 'memory' ? 'memory' : 'pglite';
const SIZES = (arg('--sizes') ?? '1,5,20,20').split(',').map(Number);
const SNAPSHOT_DIR = arg('--heap-snapshot');
const json = args.includes('--json');
const MB = 1024 * 1024;
/** How long a finished turn stays readable from memory here (LiveTurns' retainMs; 60 s in npm start). */
const RETAIN_MS = 2_000;

/** `mb` MB of text in 10 KB deltas. */
const answer = (mb: number) => `${'y'.repeat(10 * 1024 - 1)} `.repeat(Math.round(mb * 102.4));
const upstream = await startScriptedOpenAI((req) => {
  const message = req.messages.findLast((m) => m.role === 'user')?.content ?? '';
  const mb = Number(/^big (\S+)/.exec(message)?.[1] ?? 0);
  return { text: mb > 0 ? answer(mb) : 'warm' };
});
const { child, base } = await startAppProcess({ upstreamUrl: upstream.url, env: { STORE, LIVE_TURN_RETAIN_MS: String(RETAIN_MS) } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mem = () => ask<NodeJS.MemoryUsage>(child, 'mem');

/** One turn of `mb` MB read whole by one reader; resolves once its stream has ended, with the rows its log took in the store. */
async function turn(mb: number): Promise<number> {
  const created = await fetch(`${base}/v1/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: mb > 0 ? `big ${mb}` : 'warm up' }),
  });
  const { turnId, streamUrl } = (await created.json()) as { turnId: string; streamUrl: string };
  const whole = await (await fetch(base + streamUrl)).text();
  if (!whole.includes('event: done')) throw new Error('the reader did not get the turn to its end');
  return ask<number>(child, 'rows', { turnId });
}

await turn(0);
await turn(1);
await sleep(RETAIN_MS + 500);
const idle = await mem();
const rows: Array<{ mb: number; rssMB: number; heapMB: number; externalMB: number; rssPerMB: number; heapPerMB: number; logRows: number }> = [];
for (const mb of SIZES) {
  const before = await mem();
  const logRows = await turn(mb);
  await sleep(500);
  const after = await mem();
  const rss = (after.rss - before.rss) / MB;
  const heap = (after.heapUsed - before.heapUsed) / MB;
  // Outside the JS heap: ArrayBuffers, among them PGlite's WASM memory (which grows and never shrinks).
  const external = (after.external - before.external) / MB;
  rows.push({ mb, rssMB: rss, heapMB: heap, externalMB: external, rssPerMB: rss / mb, heapPerMB: heap / mb, logRows });
}
await sleep(RETAIN_MS + 500);
const released = await mem();
if (SNAPSHOT_DIR) console.error(`heap snapshot: ${await ask<string>(child, 'snapshot', { dir: SNAPSHOT_DIR })}`);
child.send({ type: 'exit' });
await upstream.close();

const r1 = (x: number) => Math.round(x * 10) / 10;
const result = {
  store: STORE,
  idleRssMB: r1(idle.rss / MB),
  idleHeapMB: r1(idle.heapUsed / MB),
  idleExternalMB: r1(idle.external / MB),
  turns: rows.map((t) => ({
    mb: t.mb,
    rssMB: r1(t.rssMB),
    heapMB: r1(t.heapMB),
    externalMB: r1(t.externalMB),
    rssPerMB: r1(t.rssPerMB),
    heapPerMB: r1(t.heapPerMB),
    logRows: t.logRows,
  })),
  afterRetainRssMB: r1(released.rss / MB),
  afterRetainHeapMB: r1(released.heapUsed / MB),
  afterRetainExternalMB: r1(released.external / MB),
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(`bench:turn-memory (${STORE} store): idle RSS ${result.idleRssMB} MB, heap ${result.idleHeapMB} MB, external ${result.idleExternalMB} MB`);
  console.log('  text   RSS growth   per MB   heap growth   per MB   external growth   log rows');
  for (const t of result.turns)
    console.log(
      `  ${String(t.mb).padStart(3)} MB ${String(t.rssMB).padStart(9)} MB ${String(t.rssPerMB).padStart(7)} ${String(t.heapMB).padStart(10)} MB ${String(t.heapPerMB).padStart(7)} ${String(t.externalMB).padStart(12)} MB ${String(t.logRows).padStart(10)}`,
    );
  console.log(
    `  once finished turns are let go: RSS ${result.afterRetainRssMB} MB, heap ${result.afterRetainHeapMB} MB, external ${result.afterRetainExternalMB} MB`,
  );
}
