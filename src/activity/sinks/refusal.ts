// Which database errors are a row's fault, by SQLSTATE class, so that both sinks tell the writer the
// same thing: split the batch and find the row (RowsRefusedError), or retry it whole (a plain Error).
// An unreachable PostgREST, a PostgREST without its database (PGRST…), a read-only or full database are
// not a row's fault, and splitting the batch would only multiply the calls during the outage.
import { RowsRefusedError } from '../types.ts';

/** 21 cardinality (one id twice in an upsert), 22 data exception (range, encoding, syntax of a value), 23 integrity constraint, 54 program limit (a value or batch too large). */
const ROW_CLASSES = new Set(['21', '22', '23', '54']);

/** The error a sink throws for a failed write of `what`, from the driver's error (PGlite's exception, PostgREST's `error`). */
export function sinkError(what: string, error: unknown): Error {
  const e = error as { message?: unknown; code?: unknown } | null;
  const message = `${what}: ${typeof e?.message === 'string' ? e.message : String(error)}`;
  const code = typeof e?.code === 'string' ? e.code : '';
  return /^[0-9A-Z]{5}$/.test(code) && ROW_CLASSES.has(code.slice(0, 2))
    ? new RowsRefusedError(message, { code, cause: error })
    : new Error(message, { cause: error });
}
