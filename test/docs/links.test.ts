// The documentation holds together (issue 30): every relative link and `#heading` in the README, CONTRIBUTING.md,
// docs/ and the packages' READMEs resolves, by GitHub's rules (a heading's anchor is its text lowercased,
// punctuation dropped, spaces as hyphens, -1, -2 … for repeats); the README stays one or two screens; and no
// code comment names "README §" as a concept's home, since the concepts live in docs/ now (docs/README.md).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type Token, type Tokens, marked } from 'marked';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const README_MAX_LINES = 250;
const STALE_CITATION = `README ${'§'}`; // spelt in two parts so that this file does not cite it

/** The Markdown files whose links are checked, relative to the repository root. */
function docFiles(): string[] {
  const inDir = (dir: string) =>
    existsSync(join(ROOT, dir))
      ? readdirSync(join(ROOT, dir))
          .filter((name) => name.endsWith('.md'))
          .map((name) => `${dir}/${name}`)
      : [];
  const packages = readdirSync(join(ROOT, 'packages')).flatMap((name) => inDir(`packages/${name}`));
  return ['README.md', 'CONTRIBUTING.md', 'functions/README.md', ...inDir('docs'), ...packages].filter((file) => existsSync(join(ROOT, file)));
}

/** A heading's text as GitHub renders it: inline code's text kept, HTML tags dropped, link and emphasis text kept. */
function plainText(tokens: Token[]): string {
  return tokens
    .map((token) => {
      if (token.type === 'html') return '';
      if ('tokens' in token && token.tokens?.length) return plainText(token.tokens);
      return 'text' in token ? String(token.text) : '';
    })
    .join('');
}

/** GitHub's anchor for a heading (github-slugger): lowercase, keep letters, digits, `_`, `-` and spaces, spaces → `-`. */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

interface Parsed {
  anchors: Set<string>;
  links: string[];
  /** The headings' texts, as rendered. */
  headings: string[];
}

/** The anchors a Markdown text offers (headings, repeats numbered as GitHub does, explicit ids) and the links it holds. */
function parse(markdown: string): Parsed {
  const tokens = marked.lexer(markdown);
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const links: string[] = [];
  const headings: string[] = [];
  marked.walkTokens(tokens, (token) => {
    if (token.type === 'heading') {
      headings.push(plainText((token as Tokens.Heading).tokens));
      const base = slug(headings.at(-1)!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    } else if (token.type === 'link' || token.type === 'image') {
      links.push((token as Tokens.Link).href);
    }
    if (token.type === 'html' || token.type === 'paragraph') {
      for (const m of String(token.raw).matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
    }
  });
  return { anchors, links, headings };
}

/** A repository's files as the checker sees them, by path from its root. */
interface Repo {
  /** A file's text; undefined for a folder or nothing. */
  read(path: string): string | undefined;
  isDirectory(path: string): boolean;
}

/** What is wrong with the relative links of `file` (a path from the root), one line each; external links are not fetched. */
function brokenLinks(repo: Repo, file: string): string[] {
  const root = '/';
  const text = repo.read(file);
  if (text === undefined) return [`${file}: not found`];
  const problems: string[] = [];
  for (const href of parse(text).links) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // https:, mailto:
    const [rawPath = '', anchor] = href.split('#', 2) as [string, string | undefined];
    const path = decodeURIComponent(rawPath);
    const target = path === '' ? file : relative(root, resolve(root, dirname(file), path));
    if (target.startsWith('..')) {
      problems.push(`${file}: ${href} leaves the repository`);
      continue;
    }
    const content = repo.read(target);
    if (content === undefined && !repo.isDirectory(target)) {
      problems.push(`${file}: ${href} → ${target} does not exist`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (content === undefined || !target.endsWith('.md')) {
      problems.push(`${file}: ${href} → #${anchor} on something that is not a Markdown file`);
      continue;
    }
    if (!parse(content).anchors.has(decodeURIComponent(anchor))) problems.push(`${file}: ${href} → ${target} has no heading whose anchor is #${anchor}`);
  }
  return problems;
}

const REPO: Repo = {
  read(path) {
    const full = join(ROOT, path);
    return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : undefined;
  },
  isDirectory: (path) => existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isDirectory(),
};
const readRepo = (path: string) => REPO.read(path);

/** Source files (comments and strings) under the code folders, node_modules and build output left out. */
function sourceFiles(dir: string): string[] {
  const full = join(ROOT, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return ['node_modules', 'dist', '.cache'].includes(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|tsx|js|mjs|jsx|sql|toml|json|sh)$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The sections a text cites as "docs/<page>.md § <Section>" (also CONTRIBUTING.md and packages/gate/README.md), "§ A, § B"
 * naming several: each section's name runs to the first comma, semicolon, colon, closing bracket or quote, or full stop.
 */
function citations(text: string): { page: string; section: string }[] {
  return [
    ...text.matchAll(
      /(docs\/[\w-]+\.md|CONTRIBUTING\.md|packages\/gate\/README\.md) § ([^\n]*?)(?=(?:docs\/[\w-]+\.md|CONTRIBUTING\.md|packages\/gate\/README\.md) §|\n|$)/g,
    ),
  ].flatMap((m) =>
    m[2]!
      .split(/[,;] § /)
      .map((part) => ({ page: m[1]!, section: part.split(/[,;:)"`'.]\s|[,;:)"`]|\.$/)[0]!.trim() }))
      .filter((cited) => cited.section !== ''),
  );
}

describe('the documentation', () => {
  it('finds a broken link, a missing file and a missing heading (the checker itself)', () => {
    const files: Record<string, string> = {
      'README.md': '# Top\n\n## Two words — `x_y`\n\n## Two words — `x_y`\n\n[ok](docs/a.md#a-heading) [self](#two-words--x_y-1) [dir](docs)\n',
      'docs/a.md':
        '# A heading\n\n[back](../README.md#top) [gone](missing.md) [no heading](../README.md#nowhere) [web](https://example.com/#x)\n\n```md\n[in code](nothing.md)\n```\n',
    };
    const repo: Repo = { read: (path) => files[path], isDirectory: (path) => Object.keys(files).some((file) => file.startsWith(`${path}/`)) };
    expect(brokenLinks(repo, 'README.md')).toEqual([]);
    expect(brokenLinks(repo, 'docs/a.md')).toEqual([
      'docs/a.md: missing.md → docs/missing.md does not exist',
      'docs/a.md: ../README.md#nowhere → README.md has no heading whose anchor is #nowhere',
    ]);
    expect(slug('The gate on real model failures — `npm run bench:gate`')).toBe('the-gate-on-real-model-failures--npm-run-benchgate');
    expect(slug('CONTRIBUTING.md § Tests')).toBe('contributingmd--tests');
    expect(citations('// (docs/approval.md § Which calls, § Expiry on each runtime; more) and docs/a.md § B: c')).toEqual([
      { page: 'docs/approval.md', section: 'Which calls' },
      { page: 'docs/approval.md', section: 'Expiry on each runtime' },
      { page: 'docs/a.md', section: 'B' },
    ]);
  });

  it('every relative link and #heading in the README, CONTRIBUTING.md, docs/ and the packages resolves', () => {
    const files = docFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/README.md', 'packages/gate/README.md']));
    expect(files.flatMap((file) => brokenLinks(REPO, file))).toEqual([]);
  });

  it('the README fits one or two screens and opens with the two commands', () => {
    const readme = readRepo('README.md')!;
    const lines = readme.split('\n');
    expect(lines.length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(README_MAX_LINES);
    const top = lines.slice(0, 8).join('\n');
    expect(top).toContain('npm install && npm start');
    expect(top).toContain('npm install && npm test');
  });

  it('docs/README.md indexes every page of docs/, and the README links the index', () => {
    const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== 'README.md');
    const indexLinks = new Set(parse(readRepo('docs/README.md')!).links.map((href) => href.split('#')[0]));
    expect(pages.filter((page) => !indexLinks.has(page))).toEqual([]);
    expect(parse(readRepo('README.md')!).links).toContain('docs/README.md');
  });

  it(`no code comment or message cites "${STALE_CITATION}" (concepts are cited as docs/<page>.md § <Section>)`, () => {
    const self = relative(ROOT, import.meta.filename);
    const files = ['src', 'packages', 'functions', 'test', 'bench', 'scripts', 'supabase'].flatMap(sourceFiles).filter((file) => file !== self);
    expect(files.length).toBeGreaterThan(100);
    const citing = files.filter((file) => readFileSync(join(ROOT, file), 'utf8').includes(STALE_CITATION));
    expect(citing).toEqual([]);
  });

  it('every "docs/<page>.md § <Section>" a code comment or message cites is a heading of that page', () => {
    const self = relative(ROOT, import.meta.filename); // its examples cite pages that do not exist
    const files = ['src', 'packages', 'functions', 'test', 'bench', 'scripts', 'supabase'].flatMap(sourceFiles).filter((file) => file !== self);
    const headingsOf = new Map<string, string[] | undefined>();
    const missing = files.flatMap((file) =>
      citations(readFileSync(join(ROOT, file), 'utf8')).flatMap(({ page, section }) => {
        if (!headingsOf.has(page)) headingsOf.set(page, REPO.read(page) === undefined ? undefined : parse(REPO.read(page)!).headings);
        const headings = headingsOf.get(page);
        if (headings === undefined) return [`${file}: ${page} does not exist`];
        // A citation may name a heading in full or its start ("§ Limits" for "Limits"), or go on past it.
        return headings.some((heading) => heading.startsWith(section) || section.startsWith(heading)) ? [] : [`${file}: ${page} has no section "${section}"`];
      }),
    );
    expect(missing).toEqual([]);
  });
});
