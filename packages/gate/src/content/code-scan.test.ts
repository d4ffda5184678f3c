import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bracketsCheckable, regexLiterals, scanBrackets } from './code-scan.ts';

const opens = (src: string, lang: Parameters<typeof scanBrackets>[1]) => scanBrackets(src, lang).open.map((o) => `${o.ch}${o.line}`);

describe('scanBrackets', () => {
  it('finds the brackets a cut-off body leaves open, with their lines', () => {
    const r = scanBrackets('function f() {\n  if (x) {\n    g(', 'js');
    expect(r.open).toEqual([
      { ch: '{', line: 1 },
      { ch: '{', line: 2 },
      { ch: '(', line: 3 },
    ]);
    expect(r.stray).toBe(0);
    expect(r.unterminated).toBe(false);
  });

  it('skips brackets in strings, comments and templates', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source as the scanner input: the template literal is the point
    expect(opens('const s = "{"; // (\n/* [ */ const t = `${ {a: 1}.a } (`;', 'js')).toEqual([]);
    expect(opens('s = """ { """  # (\nt = \'[\'', 'python')).toEqual([]);
    expect(opens('local s = [==[ { ]==] --[[ ( ]] -- [', 'lua')).toEqual([]);
    expect(opens('s := `{`', 'go')).toEqual([]);
    expect(opens("fn f<'a>(x: &'a str) -> char { '{' }", 'rust')).toEqual([]);
  });

  it('reports a body that ends inside a string, template or block comment', () => {
    expect(scanBrackets('const s = `abc', 'js').unterminated).toBe(true);
    expect(scanBrackets('f() /* never closed', 'js').unterminated).toBe(true);
    expect(scanBrackets('x = """never closed', 'python').unterminated).toBe(true);
    expect(scanBrackets('const s = `${a', 'js').unterminated).toBe(true);
  });

  it('counts closers that match nothing as stray', () => {
    expect(scanBrackets('a)]}', 'c').stray).toBe(3);
    expect(scanBrackets('(]', 'c')).toMatchObject({ stray: 1, open: [{ ch: '(', line: 1 }] });
  });

  it('tells a JS regex literal from a division', () => {
    expect(opens('x = /[(]/g; y = a / b / (c)', 'js')).toEqual([]);
    expect(opens('if (/\\(/.test(s)) {', 'js')).toEqual(['{1']);
    // After an identifier `/` divides, so the `(` after it counts.
    expect(opens('a / (b', 'js')).toEqual(['(1']);
  });

  it('stays exact on pathological bodies', () => {
    // Every `/` after `(` starts a literal that never closes: the brackets around all count.
    const r = scanBrackets('(/['.repeat(20_000), 'js');
    expect(r.open.length).toBe(40_000);
    expect(r.stray).toBe(0);
    expect(scanBrackets('"\n'.repeat(50_000), 'js')).toEqual({ open: [], stray: 0, unterminated: false, quoted: [] });
    expect(scanBrackets('{'.repeat(100_000), 'json').open.length).toBe(100_000);
  });

  it('reads JSX text and attribute strings as text, and `{…}` in them as code', () => {
    const src = '<p title="(">Press ( or [ {f(a, [b])} <b>{g(</b>\n</p>';
    expect(opens(src, 'js')).not.toEqual([]);
    // Only the `{g(` left open in the text counts: its `{` and its `(`.
    expect(scanBrackets(src, 'js', { jsx: true }).open.map((o) => o.ch)).toEqual(['{', '(']);
    expect(opens('return <div>{x}</div>;\nif (a < b) { c(', 'js')).toEqual(['{2', '(2']);
    expect(scanBrackets('x = cond ? <A/> : <>(</>;\nf(', 'js', { jsx: true }).open).toEqual([{ ch: '(', line: 2 }]);
    // Type parameters are not elements.
    expect(scanBrackets('const id = <T,>(x: T) => { return [x', 'js', { jsx: true }).open.map((o) => o.ch)).toEqual(['{', '[']);
  });

  it('says which lines start inside a string or template literal', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source as the scanner input: the template literal is the point
    expect(scanBrackets('const t = `a\n...\n${x}\nb`;\nf();\n', 'js').quoted).toEqual([2, 3, 4]);
    expect(scanBrackets("def f():\n    '''Doc.\n\n    ...\n    '''\n    ...\n", 'python').quoted).toEqual([3, 4, 5]);
    expect(scanBrackets('s := `a\nb`\n/* c\nd */', 'go').quoted).toEqual([2]);
  });

  it('checks only languages whose brackets are regular enough', () => {
    expect(bracketsCheckable('js')).toBe(true);
    expect(bracketsCheckable('php')).toBe(false);
    expect(bracketsCheckable('markdown')).toBe(false);
  });
});

/** The pattern the scanner replaced, over the same 400-character window: the reference. */
function regexEndByPattern(src: string, i: number): number {
  const m = /^\/(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n[])+\/[a-z]*/.exec(src.slice(i, i + 400));
  return m ? i + m[0].length : -1;
}

describe('regexLiterals', () => {
  it('finds where a literal ends, flags included', () => {
    const src = 'x = /a[/]\\/b/gi.test(s)';
    expect(regexLiterals(src)(4)).toBe(src.indexOf('.test'));
    expect(regexLiterals('//comment')(0)).toBe(-1);
    expect(regexLiterals('/a\nb/')(0)).toBe(-1);
    expect(regexLiterals('/[a\n]/')(0)).toBe(-1);
    expect(regexLiterals(`/${'a'.repeat(398)}/`)(0)).toBe(400);
    expect(regexLiterals(`/${'a'.repeat(399)}/`)(0)).toBe(-1); // past the 400-character window
    expect(regexLiterals(`/${'a'.repeat(397)}/g`)(0)).toBe(400);
  });

  const chars = fc.constantFrom('/', '/', '[', ']', '\\', '\n', '\r', '\u2028', 'a', 'g', '(', ' ');

  it('agrees with the pattern it replaced from every slash, in any order of questions', () => {
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 60 }), fc.nat(), (cs, seed) => {
        const src = cs.join('');
        const slashes = [...src].flatMap((c, i) => (c === '/' ? [i] : []));
        // Questions in a shuffled order: answers must not depend on what was scanned before.
        const order = slashes.map((s, k) => [s, (k * 7919 + seed) % 104729] as const).sort((a, b) => a[1] - b[1]);
        const end = regexLiterals(src);
        for (const [i] of order) expect(end(i)).toBe(regexEndByPattern(src, i));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees near the window edge', () => {
    for (let n = 390; n < 410; n++) {
      for (const body of ['a', '[/]', '\\/', '[\\]]']) {
        const src = `x = /${body.repeat(n).slice(0, n)}/g(`;
        expect(regexLiterals(src)(4)).toBe(regexEndByPattern(src, 4));
      }
    }
  });
});
