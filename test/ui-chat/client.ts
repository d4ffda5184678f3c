// The useChat suites' client: the `ai` package's own DefaultChatTransport (what useChat uses) sending
// to the app, every chunk it yields checked against the clients' schemas, and readUIMessageStream
// assembling the assistant message, as useChat would.
import { AbstractChat, type ChatInit, type ChatState, DefaultChatTransport, type UIMessage, type UIMessageChunk } from 'ai';
import { allChunkErrors, assemble } from '../support/ui-chunks.ts';

export interface UiReply {
  message: UIMessage;
  chunks: UIMessageChunk[];
  /** Schema errors (ai's, and ai 5's strict fields) and errors readUIMessageStream reported: none expected. */
  errors: string[];
  /** The HTTP response the transport got. */
  response: Response;
}

export function userMessage(text: string, id = crypto.randomUUID()): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

export function transport(baseUrl: string, headers: Record<string, string> = {}, seen: Response[] = []) {
  return new DefaultChatTransport({
    api: `${baseUrl}/v1/ui/chat`,
    headers,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      seen.push(response);
      return response;
    },
  });
}

/** Reads a chunk stream to its end: its chunks, their errors, and the message they assemble into. */
export async function readReply(stream: ReadableStream<UIMessageChunk>, response: Response): Promise<UiReply> {
  const [forCheck, forAssembly] = stream.tee();
  const collected = (async () => {
    const chunks: UIMessageChunk[] = [];
    const reader = forCheck.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    return chunks;
  })();
  const { message, errors } = await assemble(forAssembly);
  const chunks = await collected;
  if (!message) throw new Error(`the stream assembled no message (${chunks.length} chunks)`);
  return { message, chunks, errors: [...(await allChunkErrors(chunks)), ...errors.map(String)], response };
}

export interface SendOptions {
  chatId: string;
  messages: UIMessage[];
  trigger?: 'submit-message' | 'regenerate-message';
  messageId?: string;
  headers?: Record<string, string>;
}

/** Sends as useChat does (POST /v1/ui/chat through DefaultChatTransport) and reads the reply to its end. */
export async function send(baseUrl: string, options: SendOptions): Promise<UiReply> {
  const seen: Response[] = [];
  const stream = await transport(baseUrl, options.headers, seen).sendMessages({
    chatId: options.chatId,
    messages: options.messages,
    trigger: options.trigger ?? 'submit-message',
    messageId: options.messageId,
    abortSignal: undefined,
  });
  return readReply(stream, seen[0]!);
}

/** The parts of a message as plain records, for assertions. */
export function partsOf(message: UIMessage): Array<Record<string, any>> {
  return message.parts as Array<Record<string, any>>;
}

export const toolParts = (message: UIMessage) => partsOf(message).filter((p) => p.type === 'dynamic-tool');
export const verdicts = (message: UIMessage) =>
  partsOf(message)
    .filter((p) => p.type === 'data-rebound-verdict')
    .map((p) => p.data);
export const textOf = (message: UIMessage) =>
  partsOf(message)
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('');

/**
 * useChat without React: the `ai` package's own AbstractChat (what @ai-sdk/react's Chat extends) over a
 * plain state, with the transport above. Its addToolApprovalResponse and sendAutomaticallyWhen are
 * the AI SDK's own, so a test sees exactly the continuation a useChat app posts.
 */
export class NodeChat extends AbstractChat<UIMessage> {
  constructor(init: { id: string; baseUrl: string; headers?: Record<string, string>; sendAutomaticallyWhen?: ChatInit<UIMessage>['sendAutomaticallyWhen'] }) {
    const state: ChatState<UIMessage> = {
      status: 'ready',
      error: undefined,
      messages: [],
      pushMessage: (m) => {
        state.messages = [...state.messages, m];
      },
      popMessage: () => {
        state.messages = state.messages.slice(0, -1);
      },
      replaceMessage: (i, m) => {
        state.messages = state.messages.map((old, j) => (j === i ? m : old));
      },
      snapshot: (thing) => structuredClone(thing),
    };
    super({ id: init.id, transport: transport(init.baseUrl, init.headers), state, sendAutomaticallyWhen: init.sendAutomaticallyWhen });
  }

  /** Resolves once the chat is idle again (every request it sent, automatic ones included, has ended). */
  async settled(timeoutMs = 20_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.status === 'submitted' || this.status === 'streaming' || this.isRequestPending()) {
      if (Date.now() > until) throw new Error(`the chat is still ${this.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private isRequestPending(): boolean {
    return (this as unknown as { activeResponse?: unknown }).activeResponse != null;
  }
}
