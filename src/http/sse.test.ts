import { describe, expect, it } from 'vitest';
import { ReaderStalledError, type SseChannel, SseStream } from './sse.ts';

const decoder = new TextDecoder();
const options = { keepaliveMs: 60_000, stallMs: 60_000 };
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Opens a stream whose run waits for `until` (resolved by the test), handing the test its channel and signal. */
function open(opts: Partial<ConstructorParameters<typeof SseStream>[1]> = {}) {
  let release!: (error?: unknown) => void;
  const until = new Promise<void>((resolve, reject) => (release = (error) => (error === undefined ? resolve() : reject(error))));
  let out!: SseChannel;
  let signal!: AbortSignal;
  const stream = new SseStream(
    (channel, s) => {
      out = channel;
      signal = s;
      return until;
    },
    { ...options, ...opts },
  );
  return { stream, out, signal, release, reader: stream.body.getReader() };
}

const text = (chunk: ReadableStreamReadResult<Uint8Array>) => (chunk.done ? null : decoder.decode(chunk.value));
/** A read whose text is set as soon as it resolves, to tell what is readable now from what comes a turn later. */
function readNow(reader: ReadableStreamDefaultReader<Uint8Array>): { text?: string | null } {
  const read: { text?: string | null } = {};
  void reader.read().then((chunk) => (read.text = text(chunk)));
  return read;
}
/** Lets pending promise callbacks run, but no timer or immediate. */
const microtasks = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('SseStream', () => {
  it("coalesces a tick's writes into one chunk once the tick is over; flush() queues them at once", async () => {
    const { out, reader, release } = open();
    out.write('data: a\n\n');
    out.write('');
    out.write('data: b\n\n');
    const first = readNow(reader);
    await microtasks();
    expect(first.text).toBeUndefined(); // not before the tick is over
    await nextTurn();
    expect(first.text).toBe('data: a\n\ndata: b\n\n');
    out.write('data: c\n\n');
    out.flush();
    const second = readNow(reader);
    await microtasks();
    expect(second.text).toBe('data: c\n\n'); // queued at once: no turn of the event loop between
    release();
    expect((await reader.read()).done).toBe(true);
  });

  it('writes `: open` first when asked, and ends with an error when the run rejects', async () => {
    const { reader, release } = open({ open: true });
    expect(text(await reader.read())).toBe(': open\n\n');
    release(new Error('upstream broke'));
    await expect(reader.read()).rejects.toThrow('upstream broke');
  });

  it('drained() waits while what the client has not taken reaches the high-water mark, and resolves once it takes it', async () => {
    const { out, reader, release } = open({ highWaterBytes: 100 });
    out.write('x'.repeat(60));
    await expect(out.drained()).resolves.toBeUndefined(); // 60 written this tick: below the mark
    out.write('y'.repeat(60));
    let drained = false;
    const waiting = out.drained().then(() => (drained = true)); // 120 this tick: queued now, the writer waits
    await nextTurn();
    await sleep(10);
    expect(drained).toBe(false);
    expect(text(await reader.read())).toBe(`${'x'.repeat(60)}${'y'.repeat(60)}`);
    await waiting;
    expect(drained).toBe(true);
    release();
  });

  it('the run ends with data unread: the stream closes once the client has taken it', async () => {
    const { out, reader, release } = open({ highWaterBytes: 10 });
    out.write('data: the end\n\n');
    release();
    await sleep(10);
    expect(text(await reader.read())).toBe('data: the end\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('a reader that takes nothing for stallMs while data waits is closed, its signal aborted with ReaderStalledError', async () => {
    const { out, signal, reader } = open({ highWaterBytes: 10, stallMs: 30 });
    out.write('data: nobody reads this\n\n');
    const aborted = new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason)));
    expect(await aborted).toBeInstanceOf(ReaderStalledError);
    // What was queued is dropped with the stream: the client sees it fail.
    await expect(reader.read()).rejects.toBeInstanceOf(ReaderStalledError);
  });

  it('a cancelled body or the aborted request signal aborts the run: the client disconnected', async () => {
    const a = open();
    await a.reader.cancel();
    expect(a.signal.aborted).toBe(true);
    expect(String(a.signal.reason)).toMatch(/client disconnected/);
    a.out.write('data: after\n\n'); // ignored: the stream is closed
    a.release();

    const request = new AbortController();
    const b = open({ requestSignal: request.signal });
    request.abort();
    expect(b.signal.aborted).toBe(true);
    expect((await b.reader.read()).done).toBe(true);
    b.release();
  });

  it('sends `: keepalive` comments while idle, none to a client that has not taken what it was sent', async () => {
    const idle = open({ keepaliveMs: 20 });
    expect(text(await idle.reader.read())).toBe(': keepalive\n\n');
    expect(text(await idle.reader.read())).toBe(': keepalive\n\n');
    idle.release();

    const full = open({ keepaliveMs: 20, highWaterBytes: 10 });
    full.out.write('data: unread\n\n');
    await sleep(100); // several keepalive periods, the data still unread
    expect(text(await full.reader.read())).toBe('data: unread\n\n');
    full.release();
    expect((await full.reader.read()).done).toBe(true);
  });
});
