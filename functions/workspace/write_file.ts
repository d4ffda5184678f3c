import * as z from 'zod';
import { defineTool } from '../../src/tools/define.ts';
import { withDiffs } from '../../src/tools/diffs.ts';
import type { WorkspaceFile } from '../../src/store/types.ts';
import { fileDiff } from './diff.ts';
import { normalisePath, parentOf } from './paths.ts';
import { base64ToBytes, bytesToBase64, convertLineEnds, fileBytes, splitLines } from './text.ts';
import { isFolder } from './tree.ts';

export const writeFile = defineTool({
  name: 'write_file',
  description:
    'Create or replace a file with the complete content (never a placeholder). append: true adds to the end; overwrite: false refuses to replace an existing file.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  schema: z.object({
    path: z.string().describe('File path relative to the workspace root; missing folders are created.'),
    content: z.string().describe('The full file content (base64 when encoding is "base64").'),
    append: z.boolean().optional().describe('Add content to the end of the file instead of replacing it.'),
    overwrite: z.boolean().optional().describe('false: fail if the file already exists (default true).'),
    line_end: z.enum(['lf', 'crlf']).optional().describe('Convert line endings of content to "\\n" or "\\r\\n".'),
    encoding: z.enum(['utf-8', 'base64']).optional().describe('Encoding of content (default "utf-8").'),
  }),
  codeParams: ['content'],
  async run(args, { workspace }) {
    const path = normalisePath(args.path);
    const files = await workspace.list();
    if (isFolder(files, path)) {
      throw new Error(`"${path}" is a folder. Write to a file inside it, e.g. "${path}/index.ts".`);
    }
    for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) {
      if (files.some((f) => f.path === dir)) {
        throw new Error(`Cannot create "${path}": "${dir}" is a file, not a folder. Choose another path or delete "${dir}" first.`);
      }
    }
    const binary = args.encoding === 'base64';
    if (binary && args.line_end) {
      throw new Error('line_end applies to text and cannot be used with encoding "base64". Omit line_end.');
    }

    const existing = await workspace.read(path);
    if (existing && args.overwrite === false && !args.append) {
      throw new Error(`"${path}" already exists. Pass overwrite: true to replace it, append: true to add to its end, or use patch_file to change part of it.`);
    }

    let content: string;
    let encoding: WorkspaceFile['encoding'];
    if (binary) {
      const added = base64ToBytes(args.content);
      const bytes = args.append && existing ? concat(fileBytes(existing), added) : added;
      content = bytesToBase64(bytes);
      encoding = 'base64';
    } else {
      // Appending to a CRLF file without saying line_end keeps the file's own convention.
      const lineEnd = args.line_end ?? (args.append && existing?.encoding === 'utf-8' && existing.content.includes('\r\n') ? 'crlf' : undefined);
      const text = lineEnd ? convertLineEnds(args.content, lineEnd) : args.content;
      if (args.append && existing?.encoding === 'base64') {
        content = bytesToBase64(concat(fileBytes(existing), new TextEncoder().encode(text)));
        encoding = 'base64';
      } else {
        content = args.append && existing ? existing.content + text : text;
        encoding = 'utf-8';
      }
    }

    await workspace.write(path, content, encoding);
    const action = !existing ? 'created' : args.append ? 'appended' : 'overwritten';
    const result: Record<string, unknown> = { path, action, size: fileBytes({ content, encoding }).length, encoding };
    if (encoding === 'utf-8') result.total_lines = splitLines(content).length;
    return withDiffs(result, [fileDiff(path, existing, { content, encoding })]);
  },
});

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
