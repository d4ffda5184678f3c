import { describe, expect, it } from 'vitest';
import { decodeEntities, markdownTree, safeUrl, settled, type MdNode } from './markdown.js';

/** The tree as compact HTML-ish text, to read the assertions at a glance (not how the page builds it). */
function show(nodes: MdNode[]): string {
  return nodes
    .map((n) => {
      if (typeof n === 'string') return n;
      if (n.code) return `<code-block ${n.code.lang}>${n.code.text}</code-block>`;
      const attrs = Object.entries(n.attrs ?? {})
        .map(([k, v]) => ` ${k}="${v}"`)
        .join('');
      return `<${n.tag}${attrs}>${show(n.children)}</${n.tag}>`;
    })
    .join('');
}
const md = (text: string, streaming = false) => show(markdownTree(text, { streaming }));

describe('markdownTree', () => {
  it('paragraphs, line breaks, emphasis, strikethrough and inline code', () => {
    expect(md('One **two** _three_ ~~four~~ `five<b>`\nnext line\n\nNew paragraph')).toBe(
      '<p>One <strong>two</strong> <em>three</em> <del>four</del> <code>five<b></code><br></br>next line</p><p>New paragraph</p>',
    );
  });

  it('a fenced block keeps its language and its text exactly, and an unclosed one runs to the end', () => {
    expect(md('```TypeScript\nconst a = 1 < 2;\n```')).toBe('<code-block typescript>const a = 1 < 2;</code-block>');
    expect(md('```py\nprint(1)\n')).toBe('<code-block py>print(1)</code-block>');
  });

  it('GFM tables with alignment, task lists, headings from h3, and numbered lists that start elsewhere', () => {
    expect(md('| a | b |\n|---|:-:|\n| 1 | 2 |')).toBe(
      '<div class="table-wrap"><table><thead><tr><th>a</th><th class="align-center">b</th></tr></thead><tbody><tr><td>1</td><td class="align-center">2</td></tr></tbody></table></div>',
    );
    expect(md('- [ ] todo\n- [x] done')).toBe(
      '<ul><li class="task"><input type="checkbox" disabled=""></input> todo</li><li class="task"><input type="checkbox" disabled="" checked=""></input> done</li></ul>',
    );
    expect(md('# Title\n## Sub')).toBe('<h3>Title</h3><h4>Sub</h4>');
    expect(md('3. c\n4. d')).toBe('<ol start="3"><li>c</li><li>d</li></ol>');
  });

  it('raw HTML is text, block or inline', () => {
    expect(md('<div onclick="x()">hi</div>')).toBe('<p class="raw-html"><div onclick="x()">hi</div></p>');
    expect(md('a <img src=x onerror=alert(1)> b <script>alert(1)</script>')).toBe('<p>a <img src=x onerror=alert(1)> b <script>alert(1)</script></p>');
  });

  it('links open only http(s) and mailto, in a new tab without opener or referrer; others are inert text', () => {
    expect(md('[x](https://example.com/a?b=1)')).toBe('<p><a href="https://example.com/a?b=1" rel="noopener noreferrer nofollow" target="_blank">x</a></p>');
    for (const href of [
      'javascript:alert(1)',
      '&#106;avascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'java&#9;script:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'src/app.ts',
    ]) {
      const out = md(`[x](${href})`);
      expect(out, href).not.toContain('<a ');
      expect(out, href).toContain('class="link-inert"');
    }
  });

  it('an image is never an image: its alt text and address are shown', () => {
    expect(md('![pixel](https://tracker.example/p.png?u=1)')).toBe(
      '<p><span class="md-image" title="images in messages are not loaded">[image: pixel] <a href="https://tracker.example/p.png?u=1" rel="noopener noreferrer nofollow" target="_blank">https://tracker.example/p.png?u=1</a></span></p>',
    );
    expect(md('![x](javascript:alert(1))')).not.toContain('<a ');
  });

  it('decodes character references in text, not in code', () => {
    expect(md('&lt;b&gt; &amp; &copy; &#x6A; &bogus; `&amp;`')).toBe('<p><b> & © j &bogus; <code>&amp;</code></p>');
  });

  it('the same text gives the same tree however it was split into deltas (text joins)', () => {
    expect(markdownTree('a *b* c')).toEqual(markdownTree('a *b* c'));
    expect(JSON.stringify(markdownTree('plain words here'))).toBe('[{"tag":"p","children":["plain words here"]}]');
  });
});

describe('settled (streaming)', () => {
  it('holds back a line that may still become a fence, a heading underline or a table', () => {
    expect(settled('Text\n``')).toBe('Text');
    expect(settled('Text\n```pyth')).toBe('Text');
    expect(settled('Some text\n-')).toBe('Some text');
    expect(settled('Intro\n\n| a | b |\n')).toBe('Intro\n');
    expect(settled('Intro\n\n| a | b |\n|--')).toBe('Intro\n');
  });

  it('lets through what cannot change: an open fence’s code, table rows once the delimiter is there, ordinary words', () => {
    expect(settled('```ts\nconst a = 1;\n| not a table')).toBe('```ts\nconst a = 1;\n| not a table');
    expect(settled('```ts\nconst a = 1;\n``')).toBe('```ts\nconst a = 1;');
    expect(settled('| a | b |\n|---|---|\n| 1 | 2')).toBe('| a | b |\n|---|---|\n| 1 | 2');
    expect(settled('Hello wor')).toBe('Hello wor');
  });

  it('an unfinished table renders nothing of its syntax mid-stream, then the table', () => {
    expect(md('Intro\n\n| a | b |\n', true)).toBe('<p>Intro</p>');
    expect(md('Intro\n\n| a | b |\n|---|---|\n| 1 |', true)).toContain('<table>');
  });
});

describe('helpers', () => {
  it('safeUrl keeps http(s) and mailto, normalised', () => {
    expect(safeUrl('HTTPS://Example.com')).toBe('https://example.com/');
    expect(safeUrl('mailto:a@b.c')).toBe('mailto:a@b.c');
    expect(safeUrl(' \u0001javascript:alert(1)')).toBeNull();
    expect(safeUrl('//evil.example/x')).toBeNull();
  });

  it('decodeEntities maps invalid code points to U+FFFD', () => {
    expect(decodeEntities('&#0; &#xD800; &#1114112;')).toBe('\ufffd \ufffd \ufffd');
  });
});
