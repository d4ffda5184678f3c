// rebound-gate's public surface, pinned by its CHANGELOG (issue 30): the names each public entry point
// exports (values and types, read from the sources by test/support/export-names.ts) must be exactly what
// packages/gate/CHANGELOG.md adds up to (the first version's Public surface, then each later section's
// Added and Removed, oldest first). An export added or removed without a CHANGELOG line fails here, and
// so does a public subpath the CHANGELOG does not know. The runtime import of each entry point checks the
// reader: every value it exports is among the names read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositorySubpaths, subpaths } from '../../packages/gate/build.ts';
import { exportNames } from '../support/export-names.ts';

const dir = join(import.meta.dirname, '..', '..', 'packages', 'gate');
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string; exports: Record<string, unknown> };
const changelog = readFileSync(join(dir, 'CHANGELOG.md'), 'utf8');

type Surface = Map<string, Set<string>>;

interface Section {
  heading: string;
  /** Subsection (Public surface, Added, Removed) → entry point specifier → names. */
  lists: Array<{ kind: 'surface' | 'added' | 'removed'; specifier: string; names: string[] }>;
}

const KINDS = { 'Public surface': 'surface', Added: 'added', Removed: 'removed' } as const;

/** The CHANGELOG's `## ` sections, newest first as written, with their bullets' entry points and names. */
function readChangelog(text: string): Section[] {
  const sections: Section[] = [];
  let kind: Section['lists'][number]['kind'] | null = null;
  let bullet: string | null = null;
  const flush = () => {
    if (bullet === null || kind === null) return;
    const m = /^- `([^`]+)`:(.*)$/.exec(bullet);
    if (!m) throw new Error(`CHANGELOG: a bullet under ${kind} names its entry point first, as "- \`rebound-gate/host\`: \`name\`": ${bullet}`);
    const names = [...m[2]!.split(' — ')[0]!.matchAll(/`([^`]+)`/g)].map((n) => n[1]!);
    sections.at(-1)!.lists.push({ kind, specifier: m[1]!, names });
    bullet = null;
  };
  for (const line of text.split('\n')) {
    if (/^```/.test(line)) kind = null; // the format's example in the preamble
    if (line.startsWith('## ')) {
      flush();
      sections.push({ heading: line.slice(3).trim(), lists: [] });
      kind = null;
    } else if (line.startsWith('### ') && sections.length > 0) {
      flush();
      kind = KINDS[line.slice(4).trim() as keyof typeof KINDS] ?? null;
    } else if (kind !== null && line.startsWith('- ')) {
      flush();
      bullet = line;
    } else if (bullet !== null && /^\s+\S/.test(line)) {
      bullet += ` ${line.trim()}`;
    } else {
      flush();
    }
  }
  flush();
  return sections;
}

/** The surface the sections add up to: the oldest one's Public surface, then Added and Removed, oldest first. */
function addUp(sections: Section[]): Surface {
  const surface: Surface = new Map();
  const [first, ...later] = [...sections].reverse();
  if (!first?.lists.some((l) => l.kind === 'surface')) throw new Error('CHANGELOG: the oldest section lists the whole Public surface');
  for (const section of [first, ...later]) {
    for (const { kind, specifier, names } of section.lists) {
      const set = surface.get(specifier) ?? new Set<string>();
      surface.set(specifier, set);
      for (const name of names) {
        if (kind === 'removed') {
          if (!set.delete(name)) throw new Error(`CHANGELOG ${section.heading}: removes ${specifier}'s ${name}, which it does not export`);
        } else {
          if (set.has(name)) throw new Error(`CHANGELOG ${section.heading}: adds ${specifier}'s ${name}, which it exports already`);
          set.add(name);
        }
      }
    }
  }
  return surface;
}

const sorted = (s: Iterable<string>) => [...s].sort();
const specifierOf = (subpath: string) => `${pkg.name}${subpath.slice(1)}`;

describe("rebound-gate's public surface", () => {
  const recorded = addUp(readChangelog(changelog));

  it('each public entry point exports exactly the names the CHANGELOG adds up to', () => {
    const exported = new Map(subpaths(pkg).map((e) => [specifierOf(e.subpath), exportNames(join(dir, e.source))]));
    expect(sorted(exported.keys()), 'the public entry points (package.json exports) against the CHANGELOG').toEqual(sorted(recorded.keys()));
    for (const [specifier, names] of exported) {
      const pinned = sorted(recorded.get(specifier) ?? []);
      const added = names.filter((n) => !pinned.includes(n));
      const removed = pinned.filter((n) => !names.includes(n));
      expect({ specifier, added, removed }, `${specifier}: an export added or removed needs its line in packages/gate/CHANGELOG.md`).toEqual({
        specifier,
        added: [],
        removed: [],
      });
    }
  });

  it('the names read from the sources hold every value the entry points export at run time', async () => {
    for (const e of subpaths(pkg)) {
      const values = Object.keys(await import(specifierOf(e.subpath)));
      expect(values.length, e.subpath).toBeGreaterThan(0);
      expect(
        values.filter((v) => !exportNames(join(dir, e.source)).includes(v)),
        e.subpath,
      ).toEqual([]);
    }
  });

  it('rebound-gate/host is the adapter kit; the server-only helpers are in the repository-only ./internal, and only there', async () => {
    const host = Object.keys(await import('rebound-gate/host'));
    expect(host).toEqual(
      expect.arrayContaining(['HeldAnswer', 'TextHold', 'splitCalls', 'sameCall', 'callsFinish', 'gatedTextCalls', 'extractTextCalls', 'blockedToolResult']),
    );
    expect(repositorySubpaths(pkg)).toEqual(['./internal']);
    const internal = sorted(Object.keys(await import('rebound-gate/internal')));
    expect(internal).toEqual(
      sorted([
        'bound',
        'echo',
        'MAX_NAME',
        'jsonText',
        'keptUpTo',
        'pushTextRun',
        'isPlainObject',
        'deepEqual',
        'validate',
        'schemaExample',
        'checkContent',
        'readWorkspacePath',
      ]),
    );
    for (const e of subpaths(pkg))
      expect(
        exportNames(join(dir, e.source)).filter((n) => internal.includes(n)),
        e.subpath,
      ).toEqual([]);
  });

  it("the newest released section is package.json's version", () => {
    const released = readChangelog(changelog).filter((s) => !/^Unreleased\b/.test(s.heading));
    expect(released[0]?.heading.split(' ')[0]).toBe(pkg.version);
  });

  it('adding up: Added and Removed apply oldest first; a removal of a name never exported, or an unknown bullet, is an error', () => {
    const text = [
      '## Unreleased',
      '### Removed',
      '- `p/host`: `b` — gone',
      '## 0.2.0',
      '### Added',
      '- `p/host`: `c`,',
      '  `D` — new',
      '- `p/new`: `e`',
      '## 0.1.0',
      '### Public surface',
      '- `p`: `a`',
      '- `p/host`: `b`',
    ].join('\n');
    expect(Object.fromEntries([...addUp(readChangelog(text))].map(([k, v]) => [k, sorted(v)]))).toEqual({ p: ['a'], 'p/host': ['D', 'c'], 'p/new': ['e'] });
    expect(() => addUp(readChangelog('## 0.2.0\n### Removed\n- `p`: `z`\n## 0.1.0\n### Public surface\n- `p`: `a`\n'))).toThrow(/removes p's z/);
    expect(() => readChangelog('## 0.1.0\n### Added\n- someName\n')).toThrow(/names its entry point first/);
    expect(() => addUp(readChangelog('## 0.1.0\n### Added\n- `p`: `a`\n'))).toThrow(/oldest section lists the whole Public surface/);
  });
});
