// A client codec's channel behind HeldStream, wired as the gateway's stream wires them (src/gateway/stream.ts:
// Delivery's text, chunks and runs of texts to the channel), writing into an array: what the codec tests
// compare, with the random ids and times masked.
import type { ToolSpec } from 'rebound-gate';
import { Delivery } from '../../src/gateway/delivery.ts';
import { HeldStream } from '../../src/gateway/held-stream.ts';
import type { StreamChannel } from '../../src/gateway/stream.ts';

export interface HeldCodec {
  held: HeldStream;
  delivery: Delivery;
  /** Each write of the channel, as it came. */
  out: string[];
  /** The writes joined, the random ids (resp_, msg_, fc_, chatcmpl-rebound-) and created_at masked. */
  text(): string;
}

export function heldCodec(open: (out: StreamChannel) => StreamChannel, toolset: ToolSpec[], first: boolean): HeldCodec {
  const out: string[] = [];
  const channel = open({ write: (t) => void out.push(t), drained: async () => {}, flush: () => {} });
  const delivery = new Delivery(
    (t) => channel.write(t),
    (c) => channel.chunk!(c),
    (like, texts, from, to) => channel.texts!(like, texts, from, to),
  );
  const held = new HeldStream({ toolset, extractTextCalls: true, first, last: true, delivery });
  const text = () =>
    out
      .join('')
      .replace(/(resp|msg|fc)_[0-9a-f]{32}/g, '$1_X')
      .replace(/"created_at":\d+/g, '"created_at":T')
      .replace(/chatcmpl-rebound-[0-9a-f-]{36}/g, 'chatcmpl-rebound-X');
  return { held, delivery, out, text };
}
