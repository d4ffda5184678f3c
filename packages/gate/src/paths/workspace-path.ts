// One reading of a path a model wrote (`./src//a.ts`, `src\a.ts`, `/src/a.ts`, `src/x/../a.ts`), for
// both sides of a call: the gate, which checks that the path exists, and the workspace tools, which
// open it. Two readings would let the gate accept a path that the tool then resolves to another file
// (or refuses); with one, a path the gate accepts is the file the tool touches.
//
// A path is relative to the workspace root, `/`-separated, without `.` segments or `..` (resolved);
// an absolute path (`/x`, `C:\x`, `~/x`, `file:///x`) and a `..` that leaves the workspace are
// refused, with the relative reading the model most likely meant. Linear in the path: a plain path is
// one scan, and segments are only split out when a `.` or `..` segment or a doubled slash needs them.

import { echo } from '../message.ts';

export type WorkspacePath = {
  /** `a/b/c`; `''` for the root. For a refused path, the relative path it most likely meant. */
  path: string;
  /** Written with a trailing slash: the writer meant a folder. */
  dir: boolean;
  /** Why the path is refused, as a sentence for the model; absent when it is usable. */
  refusal?: string;
};

const ABSOLUTE = /^(?:\/|[A-Za-z]:\/|~|[a-z]+:\/\/)/i;
const ROOT_PREFIX = /^(?:[a-z]+:\/\/|[A-Za-z]:\/|~\/?)/i;
/** A segment that needs the slow reading: empty (a doubled or leading/trailing slash), `.` or `..`. */
const IRREGULAR = /(?:^|\/)\.{0,2}(?:\/|$)/;

export function readWorkspacePath(input: string): WorkspacePath {
  const slashed = input.trim().replaceAll('\\', '/');
  const dir = slashed.endsWith('/');
  let rest = slashed;
  let absolute = false;
  if (ABSOLUTE.test(slashed)) {
    absolute = true;
    rest = slashed.replace(ROOT_PREFIX, '');
  }
  const resolved = IRREGULAR.test(rest) ? resolveSegments(rest) : { path: rest, escapes: false };
  const { path } = resolved;
  if (absolute) {
    return {
      path,
      dir,
      refusal: `Absolute path "${echo(input)}" refused: paths are relative to the workspace root. ${path ? `Use "${echo(path)}".` : 'Omit the path to mean the root.'}`,
    };
  }
  if (resolved.escapes) {
    return { path, dir, refusal: `Path "${echo(input)}" escapes the workspace ("..") and is refused. Use a path inside the workspace, e.g. "src/index.ts".` };
  }
  return { path, dir };
}

/** Segments without empty and `.` ones, `..` resolved; `escapes` when a `..` had nothing left to remove. */
function resolveSegments(s: string): { path: string; escapes: boolean } {
  const parts: string[] = [];
  let escapes = false;
  for (let start = 0; start <= s.length; ) {
    let end = s.indexOf('/', start);
    if (end < 0) end = s.length;
    const segment = s.slice(start, end);
    start = end + 1;
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) escapes = true;
      else parts.pop();
      continue;
    }
    parts.push(segment);
  }
  return { path: parts.join('/'), escapes };
}
