// Splits a server-sent-events byte stream into events, one batch per network read. The openai
// SDK's own splitter copies the rest of its buffer for every event it finds, which is quadratic
// in the events per read and dominated the loop's CPU when a model streams fast; this one scans
// each read once. Batches let the caller merge the deltas that arrived together.
export interface SseMessage {
  event: string | null;
  data: string;
}

export async function* sseBatches(body: ReadableStream<Uint8Array>): AsyncIterable<SseMessage[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | null = null;
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (done) buffer += '\n\n'; // a last event without its blank line still counts
      const batch: SseMessage[] = [];
      let start = 0;
      let nl: number;
      while ((nl = buffer.indexOf('\n', start)) !== -1) {
        const end = nl > start && buffer.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        const line = buffer.slice(start, end);
        start = nl + 1;
        if (line === '') {
          if (data.length) batch.push({ event, data: data.join('\n') });
          event = null;
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
        } else if (line.startsWith('event:')) {
          event = line.slice(line.charCodeAt(6) === 32 ? 7 : 6);
        } // comments (":") and id:/retry: carry nothing a completion needs
      }
      buffer = buffer.slice(start);
      if (batch.length) yield batch;
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
