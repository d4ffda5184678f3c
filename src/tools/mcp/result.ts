// What an MCP CallToolResult becomes for the model. `isError` is a failure (the loop turns it into an
// error result the model can act on); otherwise `structuredContent` when the server sent it, else the
// text content. Images, audio and resources are summarised in one line each, never inlined: a base64
// blob is useless to the model and costly in its context.
import { isPlainObject } from 'rebound-gate/internal';

/** The parts of a CallToolResult read here (the SDK's type, loosely: servers send what they send). */
export interface CallResultLike {
  isError?: boolean;
  structuredContent?: unknown;
  content?: unknown[];
  /** Protocol 2024-10-07 servers answer `{toolResult}` instead. */
  toolResult?: unknown;
}

export type MappedResult = { ok: true; value: unknown } | { ok: false; error: string };

export const MAX_ERROR_CHARS = 2_000;

export function mapCallResult(result: CallResultLike): MappedResult {
  const blocks = Array.isArray(result.content) ? result.content : [];
  if (result.isError) {
    const text = blocks.map(describeBlock).filter(Boolean).join('\n').trim();
    const error = text === '' ? 'the tool reported an error without a message' : text;
    return { ok: false, error: error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS)}…` : error };
  }
  if (isPlainObject(result.structuredContent)) return { ok: true, value: result.structuredContent };
  if (blocks.length === 0 && result.toolResult !== undefined) return { ok: true, value: result.toolResult };
  if (blocks.length === 1 && isPlainObject(blocks[0]) && blocks[0].type === 'text') return { ok: true, value: String(blocks[0].text ?? '') };
  const text = blocks.map(describeBlock).join('\n');
  return { ok: true, value: text === '' ? '(the tool returned no content)' : text };
}

function describeBlock(block: unknown): string {
  if (!isPlainObject(block)) return '';
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${mime(block.mimeType)}, ${size(base64Bytes(block.data))}, not shown]`;
    case 'resource': {
      const r = isPlainObject(block.resource) ? block.resource : {};
      const body = typeof r.text === 'string' ? `${r.text.length} characters of text` : size(base64Bytes(r.blob));
      return `[resource ${str(r.uri)}: ${mime(r.mimeType)}, ${body}, not shown]`;
    }
    case 'resource_link':
      return `[resource link ${str(block.uri)}${typeof block.name === 'string' ? ` "${block.name}"` : ''}: ${mime(block.mimeType)}]`;
    default:
      return `[${str(block.type)} content, not shown]`;
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : 'unknown');
const mime = (v: unknown) => (typeof v === 'string' ? v : 'unknown type');

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`;
}
