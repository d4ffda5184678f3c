// bench:approval — what a turn waiting for a person costs one Node process (issue 20, docs/approval.md § What a waiting turn costs):
// the app in its own process (bench/stream-server.ts, as npm start wires it; the memory store by
// default, PGlite with --store pglite) against the scripted upstream. In one run: N turns that finish
// (the baseline), then N turns that each pause on a call that needs approval, every reader gone. After
// each step, with a full GC: RSS and JS heap, and the process's active handles by kind (sockets, timers),
// and the upstream's open connections. Prints KB per waiting turn beside KB per finished turn, and what
// the waiting turns hold (sockets, timers, requests: none per turn). A sample of the waiting turns is
// then approved, to show they were real and go on.
//
//   npm run bench:approval -- [--turns 1000] [--store memory|pglite] [--log-mb 0] [--json]
//
// --log-mb N: each waiting turn first streams N MB of text (10 KB deltas) before the call that waits, so
// its log is that long: what a waiting turn holds of its log (issue 32: a window, not the log; the
// memory store keeps its own copy of every log, so measure it with --store pglite).
import { startScriptedOpenAI } from '../test/support/scripted-openai.ts';
import { openStream } from '../test/support/sse-client.ts';
import { ask, startAppProcess } from './app-process.ts';

const args = process.argv.slice(2);
const arg = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const TURNS = Number(arg('--turns') ?? 1000);
const STORE = arg('--store') === 'pglite' ? 'pglite' : 'memory';
const json = args.includes('--json');
const LOG_MB = Number(arg('--log-mb') ?? 0);
/** What a waiting turn says before its call: LOG_MB MB in 10 KB deltas. */
const LOG_TEXT = LOG_MB > 0 ? `${'y'.repeat(10 * 1024 - 1)} `.repeat(Math.round(LOG_MB * 102.4)) : undefined;
const CONCURRENCY = 25;
const SAMPLE = 20;

// A turn told to wait writes a file (APPROVAL_TOOLS=write_file); any other answers at once; a turn that got its tool result answers.
const upstream = await startScriptedOpenAI((req) => {
  if (req.messages.some((m) => m.role === 'tool')) return { text: 'Written.' };
  const message = req.messages.findLast((m) => m.role === 'user')?.content ?? '';
  return message.startsWith('wait')
    ? {
        ...(LOG_TEXT ? { text: LOG_TEXT } : {}),
        toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: `${message.replace(/\W/g, '-')}.md`, content: 'x' }) }],
      }
    : { text: 'Done.' };
});

const { child, base } = await startAppProcess({
  upstreamUrl: upstream.url,
  env: { STORE: STORE, APPROVAL_TOOLS: 'write_file', APPROVAL_TIMEOUT_MS: '3600000' },
});

async function inBatches<T>(count: number, run: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += CONCURRENCY) out.push(...(await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count - i) }, (_, k) => run(i + k)))));
  return out;
}

/** A turn that runs to its end; its stream read to done. */
async function finishedTurn(i: number): Promise<void> {
  const stream = await openStream(`${base}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: `hello ${i}` }),
  });
  await stream.until((e) => e.event === 'done', 60_000);
  await stream.ended;
}

/** A turn that pauses for approval; its reader leaves at approval_required. */
async function waitingTurn(i: number): Promise<{ turnId: string; approvalId: string }> {
  const stream = await openStream(`${base}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: `wait ${i}` }),
  });
  const asked = await stream.until((e) => e.event === 'approval_required', 60_000);
  stream.close();
  return { turnId: stream.events[0]!.data.turnId as string, approvalId: asked.data.approvalId as string };
}

interface Snapshot {
  rss: number;
  heapUsed: number;
  external: number;
  handles: Record<string, number>;
  upstreamSockets: number;
  upstreamRequests: number;
}

async function snapshot(): Promise<Snapshot> {
  // Idle keep-alive sockets to the upstream close after undici's 4 s keep-alive timeout; the readers' sockets as the server sees them go.
  await new Promise((r) => setTimeout(r, 5_000));
  const mem = await ask<NodeJS.MemoryUsage>(child, 'mem');
  const handles = await ask<Record<string, number>>(child, 'handles');
  return {
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    external: mem.external,
    handles,
    upstreamSockets: upstream.openSockets,
    upstreamRequests: upstream.requests.length,
  };
}

// Warm-up: the code paths loaded and JIT-compiled before the first snapshot.
await inBatches(20, (i) => finishedTurn(-1 - i));
await waitingTurn(-1);
const start = await snapshot();
await inBatches(TURNS, finishedTurn);
const finished = await snapshot();
const waiting = await inBatches(TURNS, waitingTurn);
const paused = await snapshot();

// They were real: a sample approved goes on and completes.
const sample = waiting.slice(0, SAMPLE);
const completed = await Promise.all(
  sample.map(async ({ turnId, approvalId }) => {
    const res = await fetch(`${base}/v1/turns/${turnId}/approvals/${approvalId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true }),
    });
    const { streamUrl } = (await res.json()) as { streamUrl: string };
    const stream = await openStream(base + streamUrl);
    const done = await stream.until((e) => e.event === 'done', 60_000);
    stream.close();
    return res.status === 202 && (done.data as { reason: string }).reason === 'completed';
  }),
);

child.send({ type: 'exit' });
await upstream.close();

const kb = (bytes: number) => bytes / 1024;
const per = (a: number, b: number) => kb(b - a) / TURNS;
const result = {
  turns: TURNS,
  store: STORE,
  logMB: LOG_MB,
  rssKbPerWaitingTurn: per(finished.rss, paused.rss),
  heapKbPerWaitingTurn: per(finished.heapUsed, paused.heapUsed),
  rssKbPerFinishedTurn: per(start.rss, finished.rss),
  heapKbPerFinishedTurn: per(start.heapUsed, finished.heapUsed),
  handles: { start: start.handles, finished: finished.handles, waiting: paused.handles },
  upstreamSockets: { start: start.upstreamSockets, finished: finished.upstreamSockets, waiting: paused.upstreamSockets },
  modelRequestsPerWaitingTurn: (paused.upstreamRequests - finished.upstreamRequests) / TURNS,
  sampleApprovedCompleted: `${completed.filter(Boolean).length}/${SAMPLE}`,
};

if (json) console.log(JSON.stringify(result));
else {
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  const handles = (h: Record<string, number>) =>
    Object.entries(h)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  console.log(
    `bench:approval: ${TURNS} turns waiting for approval on one Node process (store: ${STORE}${LOG_MB ? `, a ${LOG_MB} MB log each` : ''}), after a full GC\n`,
  );
  console.log('| after | RSS | JS heap | active handles | upstream sockets open |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const [name, s] of [
    ['start (warmed up)', start],
    [`${TURNS} finished turns (baseline)`, finished],
    [`+ ${TURNS} waiting turns, readers gone`, paused],
  ] as const)
    console.log(`| ${name} | ${mb(s.rss)} | ${mb(s.heapUsed)} | ${handles(s.handles)} | ${s.upstreamSockets} |`);
  console.log(
    `\nper waiting turn: ${result.rssKbPerWaitingTurn.toFixed(1)} KB RSS, ${result.heapKbPerWaitingTurn.toFixed(1)} KB heap` +
      ` (a finished turn, same run: ${result.rssKbPerFinishedTurn.toFixed(1)} KB RSS, ${result.heapKbPerFinishedTurn.toFixed(1)} KB heap)`,
  );
  console.log(`model requests per waiting turn: ${result.modelRequestsPerWaitingTurn} (the one that proposed the call; none open while it waits)`);
  console.log(`a sample approved afterwards completed: ${result.sampleApprovedCompleted}`);
}
