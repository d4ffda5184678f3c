// A turn's events as stored rows (agent_turn_events), so that a reader on another instance can replay
// a turn and follow it. Text deltas are many and tiny, so a run of consecutive ones is one row
// holding each delta's text: rows stay few, and a replay from any seq is still event for event.
import type { LoggedEvent, TurnEvent } from '../vocabulary.ts';

export interface TurnEventRow {
  turnId: string;
  /** The seq of the row's first event. */
  seq: number;
  /** The seq of its last event: equal to `seq` except for a run of text deltas. */
  lastSeq: number;
  event: TurnEvent['event'];
  /** The event's data; for a run of text deltas `{ texts: [...] }`, one string per event. */
  data: unknown;
}

/** Where a turn's log is persisted. Appends come from the one producer of the turn, in seq order. */
export interface TurnEventStore {
  appendEvents(rows: TurnEventRow[]): Promise<void>;
  /** The rows holding any event with seq > afterSeq, in seq order; the first `limit` of them when it is given. */
  eventsAfter(turnId: string, afterSeq: number, options?: { limit?: number }): Promise<TurnEventRow[]>;
}

/**
 * The most text one row of text deltas holds (characters), so that a page of rows is bounded: a reader
 * that replays a long answer from the store reads it a few rows at a time (storedEvents), never the
 * whole answer at once.
 */
export const MAX_ROW_TEXT = 256 * 1024;

/** Packs logged events (in seq order, contiguous) into rows, merging runs of text deltas up to MAX_ROW_TEXT. */
export function packEvents(turnId: string, events: LoggedEvent[]): TurnEventRow[] {
  const rows: TurnEventRow[] = [];
  let rowText = 0;
  for (const { seq, event } of events) {
    const last = rows.at(-1);
    const fits = rowText + (event.event === 'text_delta' ? event.data.text.length : 0) <= MAX_ROW_TEXT;
    if (event.event === 'text_delta' && last?.event === 'text_delta' && last.lastSeq === seq - 1 && fits) {
      (last.data as { texts: string[] }).texts.push(event.data.text);
      last.lastSeq = seq;
      rowText += event.data.text.length;
    } else if (event.event === 'text_delta') {
      rows.push({ turnId, seq, lastSeq: seq, event: 'text_delta', data: { texts: [event.data.text] } });
      rowText = event.data.text.length;
    } else {
      rows.push({ turnId, seq, lastSeq: seq, event: event.event, data: event.data });
    }
  }
  return rows;
}

/** Unpacks rows into the events with seq > afterSeq, one per seq. */
export function unpackEvents(rows: TurnEventRow[], afterSeq: number): LoggedEvent[] {
  const out: LoggedEvent[] = [];
  for (const row of rows) {
    if (row.event === 'text_delta') {
      const texts = (row.data as { texts: string[] }).texts;
      texts.forEach((text, i) => {
        const seq = row.seq + i;
        if (seq > afterSeq) out.push({ seq, event: { event: 'text_delta', data: { text } } });
      });
    } else if (row.seq > afterSeq) {
      out.push({ seq: row.seq, event: { event: row.event, data: row.data } as TurnEvent });
    }
  }
  return out;
}

/** The largest seq agent_turn_events can hold (integer columns). */
const MAX_SEQ = 2 ** 31 - 1;

/**
 * eventsAfter's position as every store compares it: a whole number ≥ 0 (0 for the whole turn), else a
 * RangeError that says so. A position past any storable seq is clamped (it matches nothing either way).
 */
export function afterSeqArg(afterSeq: number): number {
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
    throw new RangeError(`eventsAfter: afterSeq must be a whole number ≥ 0 (the last seq the reader has, 0 for the whole turn), got ${String(afterSeq)}`);
  }
  return Math.min(afterSeq, MAX_SEQ);
}
