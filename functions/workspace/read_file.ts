import * as z from 'zod';
import { defineTool } from '../../src/tools/define.ts';
import { normalisePath } from './paths.ts';
import { byteLength, bytesToBase64, fileBytes, fileText, splitLines } from './text.ts';
import { requireFile } from './tree.ts';

/** Defaults that keep one read within a reasonable share of the context window. */
export const DEFAULT_LIMIT = 2000;
// Below the loop's 40 000-character cap on a tool result, leaving room for numbering and JSON escapes.
export const DEFAULT_MAX_SIZE = 30_000;

export const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file. Returns numbered lines ("12\\tcode") and total_lines; page with offset/limit. encoding "base64" returns the raw bytes.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  schema: z.object({
    path: z.string().describe('File path relative to the workspace root.'),
    offset: z.number().int().min(0).optional().describe('First line to return, 1-based (default 1).'),
    limit: z.number().int().min(1).optional().describe(`Maximum number of lines (default ${DEFAULT_LIMIT}).`),
    max_size: z.number().int().min(1).optional().describe(`Maximum bytes of content to return (default ${DEFAULT_MAX_SIZE}).`),
    encoding: z.enum(['utf-8', 'base64']).optional().describe('"utf-8" (default): numbered text lines. "base64": raw bytes.'),
  }),
  pathParams: ['path'],
  async run(args, { workspace }) {
    const path = normalisePath(args.path);
    const file = await requireFile(workspace, path);
    const maxSize = args.max_size ?? DEFAULT_MAX_SIZE;

    if (args.encoding === 'base64') {
      if ((args.offset ?? 0) > 1 || args.limit !== undefined) {
        throw new Error('offset and limit count lines and do not apply to encoding "base64". Omit them, and use max_size to cap the bytes.');
      }
      const bytes = fileBytes(file);
      const shown = bytes.subarray(0, maxSize);
      const result: Record<string, unknown> = { path, encoding: 'base64', size: bytes.length, content: bytesToBase64(shown) };
      if (shown.length < bytes.length) {
        result.truncated = true;
        result.note = `Showing the first ${shown.length} of ${bytes.length} bytes. Raise max_size to get more.`;
      }
      return result;
    }

    const text = fileText(file);
    if (text === null) {
      throw new Error(`"${path}" is a binary file (${fileBytes(file).length} bytes), not UTF-8 text. Read it with encoding "base64".`);
    }
    const lines = splitLines(text);
    const total = lines.length;
    const from = Math.max(1, args.offset ?? 1);
    if (total === 0) return { path, total_lines: 0, content: '', note: 'The file is empty.' };
    if (from > total) {
      throw new Error(`offset ${from} is past the end: "${path}" has ${total} lines. Use an offset between 1 and ${total}.`);
    }
    const last = Math.min(total, from - 1 + (args.limit ?? DEFAULT_LIMIT));

    const out: string[] = [];
    let bytes = 0;
    let cutLine = false;
    for (let n = from; n <= last; n++) {
      const line = lines[n - 1] ?? '';
      // Newlines between lines count; numbering does not.
      const size = byteLength(line) + (out.length > 0 ? 1 : 0);
      if (bytes + size > maxSize) {
        // A single line larger than max_size is still shown in part, or the read could never progress.
        if (out.length === 0) {
          out.push(`${n}\t${line.slice(0, maxSize)}`);
          cutLine = true;
        }
        break;
      }
      bytes += size;
      out.push(`${n}\t${line}`);
    }
    const to = from + out.length - 1;
    const result: Record<string, unknown> = { path, total_lines: total, from_line: from, to_line: to, content: out.join('\n') };
    if (to < total || cutLine) {
      const bySize = to < last || cutLine;
      result.truncated = true;
      result.next_offset = to + 1 <= total ? to + 1 : undefined;
      result.note = (
        (cutLine ? `Line ${to} is longer than max_size and was cut. ` : '') +
        (to < total ? `Showing lines ${from}-${to} of ${total}${bySize ? ' (max_size reached)' : ''}. Continue with offset ${to + 1}.` : '')
      ).trim();
    }
    return result;
  },
});
