// Who reads a turn running here. Each reader is a cursor over the turn's log (TurnLog.read): it holds
// a position, not a copy, and moves on only when its stream has taken the last event (the SSE writer's
// backpressure), so a reader costs its socket's buffer, not the turn. This counts them: a cap per turn
// (MAX_READERS_PER_TURN, a 429 past it), and the moment the last one leaves early, which is when
// ON_DISCONNECT=abort stops the turn (a reader the server closed for taking nothing leaves like one
// whose client went away).

/** A reader past the turn's cap: the route answers 429. */
export class TooManyReadersError extends Error {
  readonly max: number;
  constructor(max: number) {
    super(`This turn already has ${max} readers, the most it serves at once (MAX_READERS_PER_TURN). Close one of its streams, or wait for the turn to end.`);
    this.max = max;
    this.name = 'TooManyReadersError';
  }
}

export class TurnReaders {
  private count = 0;

  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  /** Readers reading now. */
  get size(): number {
    return this.count;
  }

  /** Throws TooManyReadersError when the turn has as many readers as it serves. */
  check(): void {
    if (this.count >= this.max) throw new TooManyReadersError(this.max);
  }

  /** A reader starts reading; the returned function ends it, and says whether it was the last. */
  join(): () => boolean {
    this.count++;
    let gone = false;
    return () => {
      if (!gone) {
        gone = true;
        this.count--;
      }
      return this.count === 0;
    };
  }
}
