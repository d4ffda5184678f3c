// The SSE decoder on its own: lines split across reads at every position, every line ending,
// comments and fields, the caps, the end of the stream, and the body being cancelled when the
// caller stops.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SSE_LIMITS, SseDecoder, SseLimitError, sseBatches, type SseLimits, type SseMessage } from './sse-decode.ts';
import { ModelError } from './types.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `reads` one by one, then ends the stream: every event, in order. */
function decode(reads: Array<string | Uint8Array>, limits?: Partial<SseLimits>): SseMessage[] {
  const decoder = new SseDecoder(limits);
  const out: SseMessage[] = [];
  for (const read of reads) out.push(...decoder.push(typeof read === 'string' ? bytes(read) : read));
  out.push(...decoder.end());
  return out;
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

const STREAM = 'data: {"a":1}\n\nevent: error\ndata: {"b":"x y"}\n\n: keepalive\n\ndata: first\ndata: second\n\ndata: [DONE]\n\n';
const EVENTS: SseMessage[] = [
  { event: null, data: '{"a":1}' },
  { event: 'error', data: '{"b":"x y"}' },
  { event: null, data: 'first\nsecond' },
  { event: null, data: '[DONE]' },
];

describe('SseDecoder', () => {
  it('decodes a whole stream in one read', () => {
    expect(decode([STREAM])).toEqual(EVENTS);
  });

  it('gives the same events whichever position a read boundary falls at', () => {
    for (let cut = 0; cut <= STREAM.length; cut++) {
      expect(decode([STREAM.slice(0, cut), STREAM.slice(cut)]), `cut at ${cut}`).toEqual(EVENTS);
    }
  });

  it('gives the same events read one byte at a time', () => {
    const all = bytes(STREAM);
    expect(decode([...all].map((b) => Uint8Array.of(b)))).toEqual(EVENTS);
  });

  it('accepts CRLF and CR line endings, also when CRLF is split between reads', () => {
    const crlf = STREAM.replaceAll('\n', '\r\n');
    const cr = STREAM.replaceAll('\n', '\r');
    for (const text of [crlf, cr]) {
      for (let cut = 0; cut <= text.length; cut++) {
        expect(decode([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(EVENTS);
      }
    }
    // The "\r" ends one read, the "\n" starts the next: one line break, not a blank line between.
    expect(decode(['data: a\r', '\ndata: b\r\n\r\n'])).toEqual([{ event: null, data: 'a\nb' }]);
  });

  it('keeps a multi-byte character split between reads', () => {
    const all = bytes('data: "héllo ✓ 😀"\n\n');
    for (let cut = 0; cut <= all.length; cut++) {
      expect(decode([all.slice(0, cut), all.slice(cut)])).toEqual([{ event: null, data: '"héllo ✓ 😀"' }]);
    }
  });

  it('joins multi-line data with "\\n", and keeps an empty data line', () => {
    expect(decode(['data: one\ndata:\ndata:  two\n\n'])).toEqual([{ event: null, data: 'one\n\n two' }]);
    expect(decode(['data:\n\n'])).toEqual([{ event: null, data: '' }]);
  });

  it('skips comments, id:, retry: and unknown fields, and does not dispatch an event without data', () => {
    expect(decode([': ping\n\nid: 7\nretry: 100\nfoo: bar\n\nevent: x\n\ndata: y\n\n'])).toEqual([{ event: null, data: 'y' }]);
  });

  it('reads a field without a colon as that field with an empty value', () => {
    expect(decode(['data\n\n'])).toEqual([{ event: null, data: '' }]);
  });

  it('counts a final event without its blank line, and a final line without its line break', () => {
    expect(decode(['data: {"a":1}\n\ndata: last\n'])).toEqual([
      { event: null, data: '{"a":1}' },
      { event: null, data: 'last' },
    ]);
    expect(decode(['data: {"a":1}\n\ndata: la', 'st'])).toEqual([
      { event: null, data: '{"a":1}' },
      { event: null, data: 'last' },
    ]);
  });

  it('returns the events each read completes, and nothing more', () => {
    const decoder = new SseDecoder();
    expect(decoder.push(bytes('data: a\n'))).toEqual([]);
    expect(decoder.push(bytes('\ndata: b\n\ndata: c'))).toEqual([
      { event: null, data: 'a' },
      { event: null, data: 'b' },
    ]);
    expect(decoder.end()).toEqual([{ event: null, data: 'c' }]);
  });

  it('keeps the beginning of the stream for error messages', () => {
    const decoder = new SseDecoder();
    decoder.push(bytes('<html>'));
    decoder.push(bytes('x'.repeat(500)));
    expect(decoder.head).toBe(`<html>${'x'.repeat(194)}`);
  });

  it('defaults a line and an event to 1 MB, a stream to 32 MB (MAX_COMPLETION_BYTES)', () => {
    expect(DEFAULT_SSE_LIMITS).toEqual({ maxLineChars: 1_048_576, maxEventChars: 1_048_576, maxStreamBytes: 33_554_432 });
  });

  it('stops a stream past maxStreamBytes, however well formed its events, as an SseLimitError that names the limit', () => {
    const event = `data: {"choices":[{"index":0,"delta":{"content":"${'w'.repeat(980)}"}}]}\n\n`;
    const decoder = new SseDecoder();
    let read = 0;
    let events = 0;
    const err = caught(() => {
      for (; read < 40_000; read++) events += decoder.push(bytes(event)).length;
    });
    expect(err).toBeInstanceOf(SseLimitError);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).message).toMatch(/stream is longer than 32 MB \(33,554,432 bytes\) \(the stream limit, MAX_COMPLETION_BYTES\)/);
    // Every event before the read that crossed it was decoded; that read was not.
    expect(read).toBe(Math.floor(DEFAULT_SSE_LIMITS.maxStreamBytes / event.length));
    expect(events).toBe(read);
    // Within the cap a stream of any number of events is read whole.
    expect(decode([event.repeat(3)], { maxStreamBytes: 3 * event.length })).toHaveLength(3);
    expect(caught(() => decode([event.repeat(3)], { maxStreamBytes: 3 * event.length - 1 }))).toBeInstanceOf(SseLimitError);
  });

  it('fails a line longer than the cap as a retryable ModelError that names the limit, whether it arrives in one read or many', () => {
    const limits = { maxLineChars: 100, maxEventChars: 1_000 };
    const oneRead = caught(() => decode([`data: ${'x'.repeat(200)}\n\n`], limits));
    const manyReads = caught(() =>
      decode(
        Array.from({ length: 50 }, () => 'xxxxxxxxxx'),
        limits,
      ),
    );
    for (const err of [oneRead, manyReads]) {
      expect(err).toBeInstanceOf(ModelError);
      expect((err as ModelError).retryable).toBe(true);
      expect((err as ModelError).message).toMatch(/SSE line longer than 100 characters.*line limit/);
    }
    // Exactly at the cap is fine.
    const atCap = `data: ${'y'.repeat(94)}`;
    expect(decode([`${atCap}\n\n`], limits)).toEqual([{ event: null, data: 'y'.repeat(94) }]);
    expect(decode([...atCap, '\n\n'], limits)).toEqual([{ event: null, data: 'y'.repeat(94) }]);
  });

  it('fails an event whose data lines add up past the cap', () => {
    const limits = { maxLineChars: 100, maxEventChars: 250 };
    const line = `data: ${'x'.repeat(90)}\n`;
    expect(decode([`${line.repeat(2)}\n`], limits)).toHaveLength(1);
    const err = caught(() => decode([`${line.repeat(3)}\n`], limits));
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).retryable).toBe(true);
    expect((err as ModelError).message).toMatch(/SSE event whose data is longer than 250 characters.*event limit/);
    // The count starts again with each event.
    expect(decode([`${line.repeat(2)}\n`.repeat(5)], limits)).toHaveLength(5);
  });

  it('names the default cap in megabytes', () => {
    const err = caught(() => decode(['x'.repeat(DEFAULT_SSE_LIMITS.maxLineChars + 1)]));
    expect((err as ModelError).message).toContain('1 MB (1,048,576 characters)');
  });

  it('does work linear in its input: an endless line is refused after the cap, not rescanned', () => {
    // Not a timing assertion: the cap bounds what is held, so 4 MB in 64 KB reads fails at 1 MB.
    const decoder = new SseDecoder();
    const piece = bytes('z'.repeat(65_536));
    let read = 0;
    const err = caught(() => {
      for (; read < 64; read++) decoder.push(piece);
    });
    expect(err).toBeInstanceOf(ModelError);
    expect(read).toBe(16);
  });
});

describe('sseBatches', () => {
  function body(reads: string[], onCancel?: () => void): ReadableStream<Uint8Array> {
    let i = 0;
    return new ReadableStream({
      pull(controller) {
        if (i < reads.length) controller.enqueue(bytes(reads[i++]!));
        else controller.close();
      },
      cancel() {
        onCancel?.();
      },
    });
  }

  it('yields one batch per read that completed events', async () => {
    const batches: SseMessage[][] = [];
    for await (const batch of sseBatches(body(['data: a\n\ndata: b\n\n', ': keepalive\n\n', 'data: c\n\n']))) batches.push(batch);
    expect(batches).toEqual([
      [
        { event: null, data: 'a' },
        { event: null, data: 'b' },
      ],
      [{ event: null, data: 'c' }],
    ]);
  });

  it('cancels the body when a cap is hit, so the upstream is not read on', async () => {
    let cancelled = false;
    const endless = body(
      Array.from({ length: 100 }, () => 'x'.repeat(1_000)),
      () => (cancelled = true),
    );
    const err = await (async () => {
      try {
        for await (const _ of sseBatches(endless, new SseDecoder({ maxLineChars: 5_000 }))) void _;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ModelError);
    expect(cancelled).toBe(true);
  });

  it('cancels the body when the caller stops early', async () => {
    let cancelled = false;
    for await (const _ of sseBatches(body(['data: a\n\n', 'data: b\n\n'], () => (cancelled = true)))) break;
    expect(cancelled).toBe(true);
  });
});
