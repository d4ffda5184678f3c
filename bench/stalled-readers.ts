// Readers that never read, as bench:stream and bench:abuse measure them: raw sockets that send their
// request and then take nothing. What the server process grows by (RSS after a full GC) while 20 of
// them hold a 20 MB turn's stream open, and while 10 hold a gateway answer of 20 MB; and how much of
// that answer the upstream could write meanwhile (the gateway reads it only as fast as its client
// takes it). Issue 18 measured 580 MB for the turn's 20 and 480 MB for the gateway's 10 before the SSE
// writer had backpressure.
import type { ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import type { ScriptedServer } from '../test/support/scripted-openai.ts';
import { ask } from './app-process.ts';

/** The user message the benches' upstream answers with BIG_ANSWER. */
export const BIG_MESSAGE = 'big';
/** 20 MB in 2,000 deltas of 10 KB. */
export const BIG_ANSWER = `${'y'.repeat(10 * 1024 - 1)} `.repeat(2_000);

export interface StalledFigures {
  answerMB: number;
  turnReaders: number;
  /** The turn read by one client, no stalled reader: its own cost. */
  turnAloneRssGrowthMB: number;
  /** The same with the stalled readers beside it. */
  turnRssGrowthMB: number;
  gatewayClients: number;
  gatewayRssGrowthMB: number;
  /** What the upstream wrote of the gateway clients' answers, per client. */
  gatewayUpstreamSentMB: number;
}

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function stalled(base: string, request: string): Promise<Socket> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.pause();
      socket.write(request);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

const rssMB = async (child: ChildProcess) => (await ask<NodeJS.MemoryUsage>(child, 'mem')).rss / MB;

export async function measureStalledReaders(options: {
  child: ChildProcess;
  base: string;
  upstream: ScriptedServer;
  readers?: number;
  clients?: number;
}): Promise<StalledFigures> {
  const { child, base, upstream } = options;
  const readers = options.readers ?? 20;
  const clients = options.clients ?? 10;

  // A turn's stream read whole by one client, first alone (what the turn itself costs: its log in
  // memory and in the store) and then with 20 stalled readers beside it: the difference is theirs.
  const turnGrowth = async (stalledReaders: number) => {
    const before = await rssMB(child);
    const created = await fetch(`${base}/v1/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: BIG_MESSAGE }),
    });
    const { streamUrl } = (await created.json()) as { streamUrl: string };
    const sockets = await Promise.all(Array.from({ length: stalledReaders }, () => stalled(base, `GET ${streamUrl} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)));
    const whole = await (await fetch(base + streamUrl)).text();
    if (!whole.includes('event: done')) throw new Error('the reading client did not get the turn to its end');
    await sleep(500);
    const growth = (await rssMB(child)) - before;
    for (const s of sockets) s.destroy();
    await sleep(500);
    return growth;
  };
  const alone = await turnGrowth(0);
  const withStalled = await turnGrowth(readers);

  // The gateway: 10 stalled clients of a streamed 20 MB answer.
  const gwBefore = await rssMB(child);
  const first = upstream.requests.length;
  const body = JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: BIG_MESSAGE }] });
  const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const gwSockets = await Promise.all(Array.from({ length: clients }, () => stalled(base, request)));
  await sleep(3_000);
  const gwGrowth = (await rssMB(child)) - gwBefore;
  const sent = upstream.sentBytes.slice(first).reduce((a, b) => a + b, 0);
  for (const s of gwSockets) s.destroy();
  await sleep(500);

  const r = (x: number) => Math.round(x * 10) / 10;
  return {
    answerMB: r(BIG_ANSWER.length / MB),
    turnReaders: readers,
    turnAloneRssGrowthMB: r(alone),
    turnRssGrowthMB: r(withStalled),
    gatewayClients: clients,
    gatewayRssGrowthMB: r(gwGrowth),
    gatewayUpstreamSentMB: r(sent / MB / clients),
  };
}
