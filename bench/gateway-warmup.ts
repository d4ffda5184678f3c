// bench:gateway's warm-up (--warmup N): before a part measures its first bytes or its held calls, each of
// its sides (the gateway, the bare proxies, the upstream directly) serves N of them, the sides taking
// turns in the rotating order the measurement uses. A fresh server runs a request's code in V8's
// interpreter and baseline tiers for its first hundreds of requests; a server in production has served
// far more, so the figures that count are the warm ones, every side warmed alike (docs/benchmarks.md
// § "The streaming paths at the physical limit (issue 34)", H1 of the fourth session: the curve, the
// default). The cold figure stays: each side's first COLD, timed one at a time like the measured ones.
// The warm-up past those runs BATCH rounds at a time, concurrently: V8's tiers count the code's runs, not
// the time between them, and a held call is mostly its upstream's 1 ms pauses.

/** How many of each side's first requests make its cold figure (the warm-up's, then the measured ones'). */
export const COLD = 100;
/** Rounds (a request of each side) in flight at once in the warm-up past the cold ones. */
const BATCH = 4;

/** --warmup's value: a whole number of requests, 0 or more. */
export function warmupOption(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    throw new Error(`--warmup ${text}: give the requests each side serves before it is measured, a whole number (0 for none; e.g. --warmup 1000)`);
  }
  return n;
}

/** The sides in a rotating order from round `r`, so drift hits each alike. */
export const rotate = <S>(sides: readonly S[], r: number): S[] => sides.map((_, i, all) => all[(i + r) % all.length]!);

/**
 * `warmup` rounds then `measured` rounds of `serve` (a figure of one request to a side), each round a
 * request of every side in the rotating order. Returns each side's measured figures and its cold ones
 * (its first COLD).
 */
export async function servedWarm<S extends string>(
  sides: readonly S[],
  counts: { warmup: number; measured: number },
  serve: (side: S) => Promise<number>,
): Promise<{ measured: Record<S, number[]>; cold: Record<S, number[]> }> {
  const per = () => Object.fromEntries(sides.map((side) => [side, [] as number[]])) as Record<S, number[]>;
  const cold = per();
  const measured = per();
  const timedWarmup = Math.min(counts.warmup, COLD);
  for (let r = 0; r < timedWarmup; r++) for (const side of rotate(sides, r)) cold[side].push(await serve(side));
  for (let r = timedWarmup; r < counts.warmup; r += BATCH) {
    const rounds = Array.from({ length: Math.min(BATCH, counts.warmup - r) }, (_, k) => rotate(sides, r + k)).flat();
    await Promise.all(rounds.map((side) => serve(side)));
  }
  for (let r = counts.warmup; r < counts.warmup + counts.measured; r++) {
    for (const side of rotate(sides, r)) {
      const x = await serve(side);
      measured[side].push(x);
      if (cold[side].length < COLD) cold[side].push(x);
    }
  }
  return { measured, cold };
}
