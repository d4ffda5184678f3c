// Checks UI message stream chunks the way the clients do: the installed `ai` package's own
// uiMessageChunkSchema (ai 7, which lets unknown fields through), and the field lists of ai 5, whose
// schema was strict (one field it does not know fails the whole stream), with the approval chunks ai 6 added. Used by the mapper's unit
// test and the useChat suites, which expect zero errors.
import { readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';

/** The fields ai 5 accepts on each chunk type Rebound writes (besides `type`); `data` stands for every data-* type. */
const STRICT_FIELDS: Record<string, string[]> = {
  start: ['messageId', 'messageMetadata'],
  finish: ['messageMetadata'],
  abort: [],
  'message-metadata': ['messageMetadata'],
  'start-step': [],
  'finish-step': [],
  'text-start': ['id', 'providerMetadata'],
  'text-delta': ['id', 'delta', 'providerMetadata'],
  'text-end': ['id', 'providerMetadata'],
  error: ['errorText'],
  'tool-input-start': ['toolCallId', 'toolName', 'providerExecuted', 'dynamic'],
  'tool-input-available': ['toolCallId', 'toolName', 'input', 'providerExecuted', 'providerMetadata', 'dynamic'],
  'tool-input-error': ['toolCallId', 'toolName', 'input', 'providerExecuted', 'providerMetadata', 'dynamic', 'errorText'],
  'tool-output-available': ['toolCallId', 'output', 'providerExecuted', 'dynamic', 'preliminary'],
  'tool-output-error': ['toolCallId', 'errorText', 'providerExecuted', 'dynamic'],
  data: ['id', 'data', 'transient'],
  // ai 6's, for a turn that waits for a person (docs/use-chat.md § Approval: approval needs ai ≥ 6).
  'tool-approval-request': ['approvalId', 'toolCallId', 'signature'],
  'tool-approval-response': ['approvalId', 'approved', 'reason'],
  'tool-output-denied': ['toolCallId'],
};

/** What is wrong with one chunk for the clients (empty: nothing). */
export async function chunkErrors(chunk: unknown): Promise<string[]> {
  const errors: string[] = [];
  const result = await uiMessageChunkSchema().validate!(chunk);
  if (!result.success) errors.push(`ai's schema refuses ${JSON.stringify(chunk)}: ${result.error.message}`);
  const { type, ...fields } = chunk as { type: string };
  const allowed = STRICT_FIELDS[type.startsWith('data-') ? 'data' : type];
  if (!allowed) errors.push(`chunk type ${type} is not one Rebound may write`);
  else for (const key of Object.keys(fields)) if (!allowed.includes(key)) errors.push(`${type}: field ${key} is unknown to ai 5's strict schema`);
  return errors;
}

/** Every error of every chunk. */
export async function allChunkErrors(chunks: unknown[]): Promise<string[]> {
  return (await Promise.all(chunks.map(chunkErrors))).flat();
}

/** The chunks of a UI message stream body (`data:` lines up to `data: [DONE]`), and whether [DONE] ended it. */
export function parseUiStream(body: string): { chunks: UIMessageChunk[]; done: boolean; comments: string[] } {
  const chunks: UIMessageChunk[] = [];
  const comments: string[] = [];
  let done = false;
  for (const block of body.split('\n\n')) {
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line === 'data: [DONE]') done = true;
      else if (line.startsWith('data: ')) chunks.push(JSON.parse(line.slice(6)) as UIMessageChunk);
      else if (line !== '') throw new Error(`unexpected line in a UI message stream: ${JSON.stringify(line)}`);
    }
  }
  return { chunks, done, comments };
}

/** The assistant message the chunks assemble into, with ai's readUIMessageStream (the last state it yields). */
export async function assemble(chunks: UIMessageChunk[] | ReadableStream<UIMessageChunk>): Promise<{ message: UIMessage | undefined; errors: unknown[] }> {
  const stream =
    chunks instanceof ReadableStream
      ? chunks
      : new ReadableStream<UIMessageChunk>({
          start(controller) {
            for (const c of chunks) controller.enqueue(c);
            controller.close();
          },
        });
  const errors: unknown[] = [];
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, onError: (e) => errors.push(e) })) message = m;
  return { message, errors };
}
