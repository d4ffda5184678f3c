// The names a TypeScript module exports, values and types alike, read from its source: what a user of
// the module can import by name. TypeScript 7's compiler has no JavaScript API to ask, and a runtime
// import sees values only (an interface removed from an entry point breaks its users too), so this reads
// the top-level `export` statements (at the start of a line, as biome formats them) and follows
// `export * from` and `export type * from` into the repository's own modules. A statement it cannot read
// is an error naming it, never a name silently left out.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Comments out, strings and template literals kept (a `//` inside a string is not a comment). */
function withoutComments(code: string): string {
  return code.replace(/('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (_m, str: string | undefined) => str ?? '');
}

const DECLARATION =
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\s*\*?|class|interface|type|enum|const|let|var|namespace)\s+([A-Za-z_$][\w$]*)/;

/** Every name `file` exports, sorted; `export *` re-exports followed into relative modules. */
export function exportNames(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const code = withoutComments(readFileSync(file, 'utf8'));
  const names = new Set<string>();
  // One top-level statement per match: from `export` at a line's start to the `;` or the end of its line.
  for (const m of code.matchAll(/^export\b[\s\S]*?(?:;|(?=\n(?:export\b|[A-Za-z])))/gm)) {
    const statement = m[0].replace(/\s+/g, ' ').trim();
    const star = /^export (?:type )?\* from ['"]([^'"]+)['"]/.exec(statement);
    if (star) {
      if (!star[1]!.startsWith('.')) throw new Error(`${file}: "${statement}" re-exports a package; name what it exports instead`);
      for (const n of exportNames(resolve(dirname(file), star[1]!), seen)) names.add(n);
      continue;
    }
    const namespace = /^export (?:type )?\* as ([A-Za-z_$][\w$]*) from /.exec(statement);
    if (namespace) {
      names.add(namespace[1]!);
      continue;
    }
    const list = /^export (?:type )?\{([^}]*)\}/.exec(statement);
    if (list) {
      for (const item of list[1]!
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const named = /^(?:type )?([A-Za-z_$][\w$]*)(?: as ([A-Za-z_$][\w$]*))?$/.exec(item);
        if (!named) throw new Error(`${file}: cannot read "${item}" in "${statement}"`);
        names.add(named[2] ?? named[1]!);
      }
      continue;
    }
    const declared = DECLARATION.exec(statement);
    if (declared) {
      names.add(/^export (?:declare )?default /.test(statement) ? 'default' : declared[1]!);
      continue;
    }
    if (/^export default /.test(statement)) {
      names.add('default');
      continue;
    }
    throw new Error(`${file}: cannot read the export statement "${statement.slice(0, 120)}"`);
  }
  return [...names].sort();
}
