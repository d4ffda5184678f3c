import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_KEPT_TEXT_CHARS, MAX_TEXT_CALL_CHARS } from './limits.ts';
import { pushPlainRun, TextHold } from './text-hold.ts';

// The rule, written as the two patterns it is defined by (see text-hold.ts), applied to the whole text
// so far. The class must show exactly this much after every delta, however the text is cut.
const TRIGGER = /(?:^|\n)[ \t]*(?:\{|\[[ \t\r\n]*\{)|```|<tool_call|<function=|\[TOOL_CALLS\]|<\||\{"/;
const PARTIAL =
  /(?:`{1,2}|<(?:t(?:o(?:o(?:l(?:_(?:c(?:a(?:l)?)?)?)?)?)?)?|f(?:u(?:n(?:c(?:t(?:i(?:o(?:n)?)?)?)?)?)?)?)?|\[(?:T(?:O(?:O(?:L(?:_(?:C(?:A(?:L(?:L(?:S)?)?)?)?)?)?)?)?)?)?|\{|(?:^|\n)[ \t]*\[?[ \t\r\n]*)$/;
function shownBy(text: string): number {
  const trigger = TRIGGER.exec(text);
  if (trigger) return trigger.index;
  return PARTIAL.exec(text)?.index ?? text.length;
}

/** Feeds `chunks`; returns what each push showed and what release() added. */
function feed(chunks: string[], visible?: string): { pushed: string[]; released: string } {
  const hold = new TextHold();
  const pushed = chunks.map((c) => hold.push(c));
  return { pushed, released: hold.release(visible) };
}

/** Cuts `text` at the given points (sorted, deduplicated, inside the text). */
function cut(text: string, points: number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of at) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

// Text made of the characters the patterns care about, so that triggers and near-misses are common.
const pieces = [
  ...['\n', ' ', '\t', '\r', '[', '{', '"', '`', '<', '|', 'tool_call', '<tool_cal', 'a', 'Hi. ', '{"', '```', '\n  [\n {', 'é', '😀'],
  ...['<function=', '<func', 'tion=', '[TOOL_CALLS]', '[TOOL_', 'CALLS]', 'T'],
];
const textArb = fc.oneof(
  fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((p) => p.join('')),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);

describe('TextHold', () => {
  it('shows prose as it arrives', () => {
    const hold = new TextHold();
    expect(hold.push('The file ')).toBe('The file ');
    expect(hold.push('is ready.')).toBe('is ready.');
    expect(hold.release()).toBe('');
  });

  it('holds from a call written into the text until the completion ends', () => {
    const hold = new TextHold();
    expect(hold.push('Let me check.\n<tool_call>\n{"name"')).toBe('Let me check.\n');
    expect(hold.push(': "read_file"}</tool_call>')).toBe('');
    expect(hold.full).toBe('Let me check.\n<tool_call>\n{"name": "read_file"}</tool_call>');
    // The loop releases what remains of the visible text once the call is extracted.
    expect(hold.release('Let me check.')).toBe('');
  });

  it('holds a JSON object at a line start, a fence and an opening {" anywhere', () => {
    expect(feed(['Here:\n  {"a": 1}']).pushed).toEqual(['Here:']);
    expect(feed(['Code: ```json']).pushed).toEqual(['Code: ']);
    expect(feed(['x = {"a": 1}']).pushed).toEqual(['x = ']);
    expect(feed(['calls:\n[\n  {']).pushed).toEqual(['calls:']);
  });

  it('keeps back a tail that may still become a trigger, and shows it once it does not', () => {
    const hold = new TextHold();
    expect(hold.push('Run <too')).toBe('Run ');
    expect(hold.push('k> now`')).toBe('<took> now');
    expect(hold.push('x` and {')).toBe('`x` and ');
    expect(hold.push('curly}\n')).toBe('{curly}');
    expect(hold.push('  \n')).toBe('');
    expect(hold.push('Done')).toBe('\n  \nDone');
    expect(hold.release()).toBe('');
  });

  it('releases what was held when no call was extracted', () => {
    const r = feed(['Example:\n', '{"a": 1}\n', 'end']);
    expect(r.pushed.join('') + r.released).toBe('Example:\n{"a": 1}\nend');
  });

  it('releases nothing more when the visible text no longer starts with what was shown', () => {
    expect(feed(['Hello\n{"name": "x"}'], 'Bye').released).toBe('');
  });

  it('shows exactly what the patterns allow after every delta, however the text is cut', () => {
    fc.assert(
      fc.property(textArb, fc.array(fc.nat(), { maxLength: 8 }), (text, points) => {
        const chunks = cut(text, points);
        const hold = new TextHold();
        let shown = '';
        let sofar = '';
        for (const c of chunks) {
          shown += hold.push(c);
          sofar += c;
          expect(shown).toBe(sofar.slice(0, shownBy(sofar)));
        }
        expect(hold.full).toBe(text);
        expect(shown + hold.release()).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same output one character at a time as in one piece', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const whole = feed([text]);
        const chars = feed([...text]);
        expect(chars.pushed.join('')).toBe(whole.pushed.join(''));
        expect(chars.released).toBe(whole.released);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a long run of blank lines in chunks without holding prose before it', () => {
    const hold = new TextHold();
    let shown = hold.push('Intro.');
    for (let i = 0; i < 10_000; i++) shown += hold.push('\n \t');
    expect(shown).toBe('Intro.');
    expect(hold.push('Next.')).toBe(`${'\n \t'.repeat(10_000)}Next.`);
  });

  it('holds nothing past MAX_TEXT_CALL_CHARS, which is never searched for calls (issue 29), and keeps no more than one character past it', () => {
    const hold = new TextHold();
    let text = 'Here it is:\n```\n';
    let shown = hold.push(text);
    const chunk = 'x'.repeat(64 * 1024);
    let held = 0;
    let kept = 0;
    while (text.length < MAX_TEXT_CALL_CHARS + 3 * chunk.length) {
      text += chunk;
      shown += hold.push(chunk);
      held = Math.max(held, text.length - shown.length);
      kept = Math.max(kept, hold.full.length);
    }
    // Held up to the bound (a call may still be taken out below it), then released with the delta that crosses it.
    expect(held).toBeLessThanOrEqual(MAX_TEXT_CALL_CHARS);
    expect(held).toBeGreaterThan(MAX_TEXT_CALL_CHARS - 2 * chunk.length);
    expect(shown).toBe(text);
    // Kept: the start of the text, one character past the search (so it is never searched), not the rest.
    expect(kept).toBe(MAX_KEPT_TEXT_CHARS);
    expect(hold.full).toBe(text.slice(0, MAX_KEPT_TEXT_CHARS));
    expect(hold.shown).toBe(hold.full);
    expect(hold.push('{"name": "x"}')).toBe('{"name": "x"}');
    expect(hold.release()).toBe('');
  });

  describe('pushPlainRun', () => {
    // Texts that are plain (pushPlain takes them) and texts that are not, at any position of a run.
    const runPieces = ['', ' ', '\t', ' \t ', 'a', 'é', 'Hi', ' so', 'it ', ' x ', 'a\tb', 'tool_call', 'TOOL_CALLS]', 'ol_call>', 'unction=', '|', '"'];
    const specials = ['{', '[', '<', '`', '\n', '\r', '{"', ' {', '\n ', 'a\n', '<tool_ca', '``', '[TOOL_', 'x<|'];
    const runText = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...runPieces) },
      { weight: 1, arbitrary: fc.constantFrom(...specials) },
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(' ', '\t', 'a', 'b', '{', '[', '<', '`', '\n', '\r', '"', '|'), maxLength: 6 }) },
    );
    // What may follow a run: each decides something the run's state answers (a line start, a blank run, the carry).
    const continuations = [
      [],
      ['{'],
      ['[', '{'],
      ['\n', ' {'],
      ['\t{'],
      [' [\n{'],
      ['`', '``'],
      ['"'],
      ['|'],
      ['<', 'tool_call>'],
      ['_CALLS]'],
      ['ol_call>'],
      ['\n'],
      ['\r\n{'],
      ['a'],
      [' ', '{'],
      ['x{"'],
    ];

    /** Pushes `prefix` one by one, then `texts` as HeldStream does (runs, the text a run stops at one by one); what each text showed. */
    function byRuns(prefix: readonly string[], texts: string[], hold: TextHold): string[] {
      for (const t of prefix) hold.push(t);
      const out: string[] = [];
      for (let i = 0; i < texts.length; i++) {
        const next = pushPlainRun(hold, texts, i, texts.length);
        for (; i < next; i++) out.push(texts[i]!);
        if (i === texts.length) break;
        out.push(hold.push(texts[i]!));
      }
      return out;
    }

    function expectSame(prefix: readonly string[], texts: string[], after = continuations): void {
      for (const more of after) {
        const one = new TextHold();
        for (const t of prefix) one.push(t);
        const oneByOne = texts.map((t) => one.push(t));
        const run = new TextHold();
        expect(byRuns(prefix, texts, run)).toEqual(oneByOne);
        expect(run.full).toBe(one.full);
        expect(run.shown).toBe(one.shown);
        for (const t of more) expect(run.push(t)).toBe(one.push(t));
        expect(run.full).toBe(one.full);
        expect(run.release()).toBe(one.release());
      }
    }

    it('takes plain texts whole and stops, without pushing it, at the first it cannot take', () => {
      const hold = new TextHold();
      expect(pushPlainRun(hold, ['Hello', '', ' world', ' \tok', '\n', 'more'], 0, 6)).toBe(4);
      expect(hold.full).toBe('Hello world \tok');
      expect(hold.shown).toBe('Hello world \tok');
      expect(pushPlainRun(hold, ['\n', 'more'], 0, 2)).toBe(0);
      expect(pushPlainRun(hold, [' ', 'a'], 0, 2)).toBe(0);
      expect(hold.push('\n')).toBe('');
      expect(pushPlainRun(hold, ['x'], 0, 1)).toBe(0);
      expect(hold.push('x')).toBe('\nx');
      expect(pushPlainRun(hold, ['a', 'b', 'c'], 1, 2)).toBe(2);
      expect(hold.full).toBe('Hello world \tok\nxb');
    });

    it('leaves the state one-by-one pushes leave, for any run after any text (blanks at its edges, triggers at any position)', () => {
      fc.assert(
        fc.property(fc.array(fc.oneof(runText, fc.constantFrom(...pieces)), { maxLength: 6 }), fc.array(runText, { maxLength: 12 }), (prefix, texts) =>
          expectSame(prefix, texts),
        ),
        { numRuns: 1500 },
      );
    });

    it('leaves the same state across MAX_TEXT_CALL_CHARS, and past it', () => {
      const near = 'x'.repeat(MAX_TEXT_CALL_CHARS - 8);
      fc.assert(
        fc.property(fc.constantFrom([near], [near, 'Hi\n{'], [near, '  '], [`${near}123456789`]), fc.array(runText, { maxLength: 8 }), (prefix, texts) =>
          expectSame(prefix, texts, [[], ['{'], ['\n', ' {'], [' ', '{']]),
        ),
        { numRuns: 8 },
      );
    });
  });
});
