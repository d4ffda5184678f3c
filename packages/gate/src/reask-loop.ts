// The re-ask loop, once for every host that gates a model's answers: Rebound's gateway (a whole answer,
// complete.ts, and a stream, stream.ts, for each protocol it speaks) and the three adapters (the AI
// SDK's doGenerate and doStream, LangChain's wrapModelCall, the Agents SDK's getResponse and
// getStreamedResponse). The host reads and gates one answer at a time (`read`, in its own format, the
// calls that pass going out under splitCalls / HeldAnswer); this loop decides, one way for all, when a
// re-ask follows: the answer kept a blocked call, a retry is left (`retries`, re-asks after the first
// answer), and the host can name the re-ask (`reask`: the answer's text and its blocked calls, each with
// the gate's message as its result). A re-ask that fails (`ask` throws or answers null) ends the run
// with the answer before it standing. One attempt counter: attempts are 1-based, the first answer is
// attempt 1, attempt `retries + 1` is the last (no re-ask follows it).
// A streaming host reads its answer as an async generator that yields what goes out as it is decided
// (reaskStream); a host that writes elsewhere, or holds a whole answer, uses reaskLoop.

export interface ReaskAttempt {
  /** 1-based: the first answer is attempt 1. */
  attempt: number;
  /** The first answer (its text goes out as it arrives; a re-ask's is held). */
  first: boolean;
  /** No re-ask follows this answer, whatever it holds (attempt > retries). */
  last: boolean;
}

export interface AnswerRead<Q> {
  /** How many of the answer's calls stayed blocked (none: the answer ends the run). */
  blocked: number;
  /** The request that re-asks for the blocked calls, built only when a re-ask follows; null: this answer ends the run whatever it holds (it broke, or cannot be re-asked). */
  reask: (() => Q) | null;
}

/** Why the run ended after its last answer. */
export type ReaskEnded =
  /** The last answer kept no blocked call. */
  | 'settled'
  /** The last answer kept a blocked call the host cannot re-ask for (it broke, or the conversation is stored upstream). */
  | 'unaskable'
  /** A blocked call stayed with no retry left: it goes out as the model wrote it. */
  | 'retries-spent'
  /** The re-ask failed: the answer before it stands. */
  | 'reask-failed';

export interface ReaskEnd {
  /** The answers read (1 + the re-asks that answered). */
  attempts: number;
  ended: ReaskEnded;
}

export interface ReaskRun<A, Q> {
  /** Re-asks after the first answer (0: never). */
  retries: number;
  /** The first answer, already asked for. */
  first: A;
  /** Asks again with this request; null (or a throw): the re-ask failed. */
  ask(request: Q): PromiseLike<A | null> | A | null;
}

export interface ReaskStreamRun<A, Q, P> extends ReaskRun<A, Q> {
  /** Reads one answer, yielding what goes out as it is decided; returns what it kept blocked. */
  read(answer: A, at: ReaskAttempt): AsyncGenerator<P, AnswerRead<Q>>;
}

export interface ReaskLoopRun<A, Q> extends ReaskRun<A, Q> {
  /** Reads one answer whole; returns what it kept blocked. */
  read(answer: A, at: ReaskAttempt): PromiseLike<AnswerRead<Q>> | AnswerRead<Q>;
}

/** The attempts of a streaming host: what each answer's read yields, in order; returns how the run ended. */
export async function* reaskStream<A, Q, P>(run: ReaskStreamRun<A, Q, P>): AsyncGenerator<P, ReaskEnd> {
  let answer = run.first;
  for (let attempt = 1; ; attempt++) {
    const last = attempt > run.retries;
    const read = yield* run.read(answer, { attempt, first: attempt === 1, last });
    const request = reaskAfter(read, attempt, last);
    if (!('request' in request)) return request;
    const next = await askAgain(run, request.request);
    if (next === null) return { attempts: attempt, ended: 'reask-failed' };
    answer = next;
  }
}

/**
 * The attempts of a host that reads each answer whole (or writes its output elsewhere): reaskStream's
 * loop, without the two async generators a whole answer does not need (their turns of the microtask
 * queue came before the gateway's stream read its first upstream chunk: docs/benchmarks.md § The
 * streaming paths at the physical limit). What follows an answer is decided by the same reaskAfter.
 */
export async function reaskLoop<A, Q>(run: ReaskLoopRun<A, Q>): Promise<ReaskEnd> {
  let answer = run.first;
  for (let attempt = 1; ; attempt++) {
    const last = attempt > run.retries;
    const read = await run.read(answer, { attempt, first: attempt === 1, last });
    const request = reaskAfter(read, attempt, last);
    if (!('request' in request)) return request;
    const next = await askAgain(run, request.request);
    if (next === null) return { attempts: attempt, ended: 'reask-failed' };
    answer = next;
  }
}

/** What follows an answer: the run's end, or the request that re-asks (built only then). */
function reaskAfter<Q>(read: AnswerRead<Q>, attempt: number, last: boolean): ReaskEnd | { request: Q } {
  if (read.blocked === 0) return { attempts: attempt, ended: 'settled' };
  if (read.reask === null) return { attempts: attempt, ended: 'unaskable' };
  if (last) return { attempts: attempt, ended: 'retries-spent' };
  return { request: read.reask() };
}

/** The re-ask: its answer, or null when it failed (`ask` threw, rejected or answered null). */
function askAgain<A, Q>(run: ReaskRun<A, Q>, request: Q): Promise<A | null> {
  return Promise.resolve()
    .then(() => run.ask(request))
    .catch(() => null);
}
