// The Messages and Responses codecs as one module, which the gateway's routes load with import() on
// the first POST /v1/messages, /v1/messages/count_tokens or /v1/responses (src/http/routes/gateway.ts):
// a Worker that only serves Chat Completions and turns never evaluates them, and they stay out of the
// startup script (scripts/build-worker.ts splits them into a module of their own). Nothing else
// imports the codecs but through here, apart from anthropic-error.ts, which the routes need for every
// error of /v1/messages before this is loaded.
export { type ClientCodec, messagesCodec, type Protocol, responsesCodec } from './protocol.ts';
export { fitsMessagesBody, MESSAGES_COUNTS, MessagesBody, messagesToChat } from './messages-in.ts';
export { anthropicCall } from './anthropic-upstream.ts';
export { responsesCall } from './responses-upstream.ts';
export { fitsResponsesBody, RESPONSES_COUNTS, ResponsesBody, freeformTools, responsesToChat } from './responses-in.ts';
