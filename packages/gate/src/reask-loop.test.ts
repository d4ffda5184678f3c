import { describe, expect, it } from 'vitest';
import { type ReaskAttempt, reaskLoop, reaskStream } from './reask-loop.ts';

/** A run whose answers are numbers: each "keeps" blocked calls as `blocked(answer)` says; the re-ask asks for answer + 1. */
function run(retries: number, blocked: (answer: number) => number, ask: (q: number) => number | null = (q) => q) {
  const seen: ReaskAttempt[] = [];
  const loop = reaskLoop<number, number>({
    retries,
    first: 0,
    ask,
    read: (answer, at) => {
      seen.push(at);
      return { blocked: blocked(answer), reask: () => answer + 1 };
    },
  });
  return { seen, loop };
}

describe('reaskLoop: the one re-ask loop', () => {
  it('counts attempts from 1; the attempt after the last retry is the last', async () => {
    const { seen, loop } = run(2, () => 1);
    expect(await loop).toEqual({ attempts: 3, ended: 'retries-spent' });
    expect(seen).toEqual([
      { attempt: 1, first: true, last: false },
      { attempt: 2, first: false, last: false },
      { attempt: 3, first: false, last: true },
    ]);
  });

  it('no re-ask with retries 0, or when the answer kept no blocked call', async () => {
    expect(await run(0, () => 1).loop).toEqual({ attempts: 1, ended: 'retries-spent' });
    expect(await run(3, (a) => (a < 1 ? 1 : 0)).loop).toEqual({ attempts: 2, ended: 'settled' });
  });

  it('a re-ask that throws or answers null ends the run; an answer the host cannot re-ask ends it', async () => {
    expect(
      await run(
        2,
        () => 1,
        () => null,
      ).loop,
    ).toEqual({ attempts: 1, ended: 'reask-failed' });
    const thrown = run(
      2,
      () => 1,
      () => {
        throw new Error('upstream down');
      },
    );
    expect(await thrown.loop).toEqual({ attempts: 1, ended: 'reask-failed' });
    const unaskable = await reaskLoop<number, number>({ retries: 2, first: 0, ask: (q) => q, read: () => ({ blocked: 1, reask: null }) });
    expect(unaskable).toEqual({ attempts: 1, ended: 'unaskable' });
  });

  it('reaskStream ends each run as reaskLoop does (one decision after each answer)', async () => {
    const scenarios: Array<{ retries: number; blocked: (answer: number) => number; ask?: (q: number) => number | null; unaskable?: boolean }> = [
      { retries: 0, blocked: () => 1 },
      { retries: 2, blocked: () => 1 },
      { retries: 3, blocked: (a) => (a < 2 ? 1 : 0) },
      { retries: 2, blocked: () => 1, ask: () => null },
      { retries: 2, blocked: () => 1, unaskable: true },
    ];
    for (const s of scenarios) {
      const read = (answer: number) => ({ blocked: s.blocked(answer), reask: s.unaskable ? null : () => answer + 1 });
      const whole = await reaskLoop<number, number>({ retries: s.retries, first: 0, ask: s.ask ?? ((q) => q), read });
      const steps = reaskStream<number, number, never>({
        retries: s.retries,
        first: 0,
        ask: s.ask ?? ((q) => q),
        // biome-ignore lint/correctness/useYield: the answer is read whole here.
        async *read(answer) {
          return read(answer);
        },
      });
      let step = await steps.next();
      while (!step.done) step = await steps.next();
      expect(step.value).toEqual(whole);
    }
  });

  it('reaskStream yields what each read yields, in order', async () => {
    const parts: string[] = [];
    const steps = reaskStream<number, number, string>({
      retries: 1,
      first: 0,
      ask: (q) => q,
      async *read(answer, at) {
        yield `answer ${answer} (attempt ${at.attempt})`;
        return { blocked: 1, reask: () => answer + 10 };
      },
    });
    for (;;) {
      const step = await steps.next();
      if (step.done) {
        expect(step.value).toEqual({ attempts: 2, ended: 'retries-spent' });
        break;
      }
      parts.push(step.value);
    }
    expect(parts).toEqual(['answer 0 (attempt 1)', 'answer 10 (attempt 2)']);
  });
});
