// bench:worker-limits — what one turn costs against Cloudflare's per-request limits (Free: 50
// subrequests and 10 ms of CPU; Paid: 10,000 subrequests, 30 s of CPU per Durable Object request by
// default, developers.cloudflare.com/workers/platform/limits/). The Worker runs under workerd
// (`wrangler dev`) with Supabase storage exactly as test/runtimes/worker-supabase.test.ts sets it up:
// PostgreSQL 17 + PostgREST behind the key-exchanging gateway stand-in, configured with the new API
// keys only. A turn is one tool call, then an answer streamed for about --seconds (default 120), read
// by one client to its end: the turn runs in its Durable Object, whose invocation is that stream.
//
// Subrequests: every request the gateway stand-in and the scripted model received during the turn
// (what the Worker and the turn's object fetched), by kind. CPU: the workerd processes' CPU time
// (all threads, from /proc/<pid>/task/*/schedstat) over the turn, minus the same span of idle CPU
// measured just before: an upper bound on the isolates' own CPU, since it counts the runtime's I/O
// threads too. A 5-second turn in the same run is the baseline the long one is compared with.
//   npm run bench:worker-limits -- [--seconds 120] [--short 5]
// Last line: one JSON object.
import { readdirSync, readFileSync } from 'node:fs';
import { readMigrations } from '../src/entries/sql-files.ts';
import { signingKeys } from '../test/support/jwt.ts';
import { migrate, startPostgres } from '../test/support/postgres.ts';
import { startPostgrest } from '../test/support/postgrest.ts';
import { startScriptedOpenAI } from '../test/support/scripted-openai.ts';
import { startSupabaseGateway, TEST_PUBLISHABLE_KEY, TEST_SECRET_KEY } from '../test/support/supabase-gateway.ts';
import { startWorkerd } from '../test/runtimes/servers.ts';
import { readSse } from '../test/runtimes/sse-client.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const LONG_S = opt('seconds', 120);
const SHORT_S = opt('short', 5);
/** The answer streams a word every WORD_MS: 20 words a second, a steady stream the turn log batches. */
const WORD_MS = 50;
const USER = 'be0c0000-0000-4000-8000-000000000001';

/** Nanoseconds of CPU the process group's workerd processes have used so far, all threads. */
function workerdCpuNs(pgid: number): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (!comm.startsWith('workerd') || Number(fields[2]) !== pgid) continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // thread gone
      }
    }
  }
  return total;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const [pg, model] = await Promise.all([
    startPostgres(),
    startScriptedOpenAI((req) => {
      const text = req.messages.find((m) => m.role === 'user')?.content ?? '';
      const seconds = Number(/^TALK (\d+)/.exec(text)?.[1] ?? 1);
      if (!req.messages.some((m) => m.role === 'tool')) {
        return { text: 'Let me look. ', toolCalls: [{ id: 'call_look', name: 'list_files', arguments: '{}' }], delayMs: 10 };
      }
      const words = Math.max(1, Math.round((seconds * 1000) / WORD_MS));
      return { text: Array.from({ length: words }, (_, i) => `word${i}`).join(' '), delayMs: WORD_MS };
    }),
  ]);
  await migrate(pg.url, readMigrations());
  const keys = await signingKeys();
  const rest = await startPostgrest({ dbUri: pg.authenticatorUrl, jwtSecret: keys.postgrestJwks });
  const gateway = await startSupabaseGateway({ restUrl: rest.url, secretKey: TEST_SECRET_KEY, publishableKey: TEST_PUBLISHABLE_KEY, jwks: keys.jwks });
  const token = await keys.userToken(USER, `${gateway.url}/auth/v1`);
  const worker = await startWorkerd({
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-scripted',
    MODEL: 'scripted-model',
    MODEL_RETRIES: '0',
    TIME_BUDGET_MS: String((LONG_S + 60) * 1000),
    SUPABASE_URL: gateway.url,
    SUPABASE_SECRET_KEY: TEST_SECRET_KEY,
    SUPABASE_PUBLISHABLE_KEY: TEST_PUBLISHABLE_KEY,
    SUPABASE_JWKS: JSON.stringify(keys.jwks),
  });
  const pgid = worker.pgid!;
  try {
    // Warm: the Worker and a turn object built, the bundle compiled, so the measured turns pay none of it.
    await turn(2);
    const short = await measured(SHORT_S);
    const long = await measured(LONG_S);
    const row = (name: string, m: Awaited<ReturnType<typeof measured>>) =>
      `${name.padEnd(14)} ${(m.wallMs / 1000).toFixed(1).padStart(6)} s  ${String(m.events).padStart(5)} events  subrequests ${String(m.subrequests).padStart(4)} (model ${m.model}, Supabase ${m.supabase}: ${Object.entries(
        m.byKind,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})  workerd CPU ${m.cpuMs.toFixed(0).padStart(5)} ms (idle-corrected; raw ${m.rawCpuMs.toFixed(0)} ms)`;
    console.log(`One turn under workerd with Supabase storage (the turn's Durable Object streams it to one reader to its end):`);
    console.log(row(`${SHORT_S}-s turn`, short));
    console.log(row(`${LONG_S}-s turn`, long));
    const perS = (m: typeof long) => ({ subrequests: m.subrequests / (m.wallMs / 1000), cpuMs: m.cpuMs / (m.wallMs / 1000) });
    console.log(
      `per second of turn: ${perS(long).subrequests.toFixed(2)} subrequests, ${perS(long).cpuMs.toFixed(2)} ms CPU (the ${SHORT_S}-s turn: ${perS(short).subrequests.toFixed(2)}, ${perS(short).cpuMs.toFixed(2)})`,
    );
    console.log(
      `against the Free plan's 50 subrequests and 10 ms CPU per request: ${(long.subrequests / 50).toFixed(1)}× and ${(long.cpuMs / 10).toFixed(0)}× for the ${LONG_S}-s turn; the Paid plan's 10,000 subrequests: ${((long.subrequests / 10_000) * 100).toFixed(1)}%`,
    );
    console.log(JSON.stringify({ short, long, perSecond: perS(long), shortPerSecond: perS(short) }));
  } finally {
    await worker.stop();
    await gateway.close();
    await model.close();
    await rest.stop();
    await pg.stop();
  }

  async function turn(seconds: number) {
    const created = await fetch(`${worker.baseUrl}/v1/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: `TALK ${seconds}` }),
    });
    if (created.status !== 201) throw new Error(`POST /v1/turns: ${created.status} ${await created.text()}`);
    const { streamUrl, turnId } = (await created.json()) as { streamUrl: string; turnId: string };
    const started = performance.now();
    const t = await readSse(`${worker.baseUrl}${streamUrl}`, {}, { timeoutMs: (seconds + 60) * 1000 });
    const last = t.events.at(-1);
    if ((last?.data as { reason?: string } | undefined)?.reason !== 'completed') throw new Error(`turn ended with ${JSON.stringify(last)}`);
    const streamMs = performance.now() - started;
    // The log's last rows and the activity flush follow done: wait until the row says finished and the writes stop.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const [row] = await pg.sql`select outcome from agent_turns where id = ${turnId}`;
      if (row?.outcome === 'completed' || Date.now() > deadline) break;
      await sleep(100);
    }
    let seen = gateway.requests.length;
    for (;;) {
      await sleep(1_500);
      if (gateway.requests.length === seen) break;
      seen = gateway.requests.length;
    }
    return { events: t.events.length, streamMs };
  }

  async function measured(seconds: number) {
    // Idle CPU over a few seconds, as a rate, to take out of the turn's figure.
    const idle0 = workerdCpuNs(pgid);
    const idleStart = performance.now();
    await sleep(3_000);
    const idleNsPerMs = (workerdCpuNs(pgid) - idle0) / (performance.now() - idleStart);

    const gatewayBefore = gateway.requests.length;
    const modelBefore = model.requests.length;
    const cpu0 = workerdCpuNs(pgid);
    const t0 = performance.now();
    const { events, streamMs } = await turn(seconds);
    const spanMs = performance.now() - t0;
    const rawNs = workerdCpuNs(pgid) - cpu0;
    const supabaseRequests = gateway.requests.slice(gatewayBefore);
    const byKind: Record<string, number> = {};
    for (const r of supabaseRequests) {
      const table = r.path.replace(/^\/rest\/v1\//, '').split('?')[0]!;
      const kind = `${r.method} ${table}`;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
    const modelCalls = model.requests.length - modelBefore;
    return {
      /** The stream, from the first request to done (the span measured runs on until the writes after done stop). */
      wallMs: Math.round(streamMs),
      events,
      subrequests: modelCalls + supabaseRequests.length,
      model: modelCalls,
      supabase: supabaseRequests.length,
      byKind,
      rawCpuMs: rawNs / 1e6,
      cpuMs: Math.max(0, rawNs - idleNsPerMs * spanMs) / 1e6,
    };
  }
}

await main();
