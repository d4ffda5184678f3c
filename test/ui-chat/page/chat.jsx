// A minimal useChat app, as a team would write one against Rebound (docs/use-chat.md):
// the AI SDK's own useChat and DefaultChatTransport, a bearer token in the transport's headers,
// resume: true, tool parts and the data-rebound-verdict parts drawn, Stop through the stop endpoint;
// approval with addToolApprovalResponse and sendAutomaticallyWhen (ai >= 6).
// Bundled with esbuild when the browser suite runs (browser.test.ts); nothing here ships with the app.
// Plain JSX (no types) so that the project's typecheck, which has no React types, leaves it alone.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(location.search);
const token = params.get('token') ?? '';
const chatId = params.get('chat') ?? 'browser-chat';
/** Where Rebound runs: another origin, allowed by its CORS_ORIGINS. */
const rebound = params.get('api') ?? '';
const auth = { Authorization: `Bearer ${token}` };

const transport = new DefaultChatTransport({ api: `${rebound}/v1/ui/chat`, headers: () => auth });

/** Stops the turn on the server (useChat's stop() would only stop reading it): its id is in the message metadata. */
async function stopTurn(messages) {
  const turnId = messages.findLast((m) => m.role === 'assistant')?.metadata?.turnId;
  if (turnId) await fetch(`${rebound}/v1/turns/${turnId}/stop`, { method: 'POST', headers: auth });
}

function Part({ part, respond }) {
  if (part.type === 'text') return <p className="text">{part.text}</p>;
  if (part.type === 'dynamic-tool') {
    return (
      <div className="tool" data-tool={part.toolName} data-state={part.state} data-call={part.toolCallId}>
        <code>{part.toolName}</code> <span className="input">{JSON.stringify(part.input)}</span>
        {part.state === 'output-error' && <span className="error">{part.errorText}</span>}
        {part.state === 'approval-requested' && (
          <>
            <button type="button" className="approve" onClick={() => respond({ id: part.approval.id, approved: true })}>
              Approve
            </button>
            <button type="button" className="deny" onClick={() => respond({ id: part.approval.id, approved: false, reason: 'not now' })}>
              Deny
            </button>
          </>
        )}
      </div>
    );
  }
  if (part.type === 'data-rebound-verdict') {
    const { verdict, category, repairs, suggestions } = part.data;
    return (
      <div className="verdict" data-verdict={verdict} data-category={category} data-call={part.data.toolCallId}>
        {verdict} ({category}){repairs.length > 0 && <span className="repairs"> repaired: {repairs.map((r) => `${r.kind} ${r.path}`).join(', ')}</span>}
        {suggestions?.length > 0 && <span className="suggestions"> try: {suggestions.join(', ')}</span>}
      </div>
    );
  }
  return null;
}

function App() {
  const [notices, setNotices] = useState([]);
  const { messages, sendMessage, status, error, addToolApprovalResponse } = useChat({
    id: chatId,
    transport,
    resume: true,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onData: (part) => {
      if (part.type === 'data-rebound-forced-summary') setNotices((n) => [...n, `forced summary: ${part.data.reason}`]);
    },
  });
  const [input, setInput] = useState('');
  const busy = status === 'submitted' || status === 'streaming';
  return (
    <main>
      <div id="status" data-status={status}>
        {status}
      </div>
      {error && <div id="error">{error.message}</div>}
      {notices.map((n, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: append-only list: an index always names the same item
        <div className="notice" key={i}>
          {n}
        </div>
      ))}
      {messages.map((m) => (
        <div key={m.id} className={`msg ${m.role}`} data-id={m.id} data-reason={m.metadata?.reason ?? ''}>
          {m.parts.map((part, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts are only appended: an index always names the same part
            <Part part={part} key={i} respond={addToolApprovalResponse} />
          ))}
        </div>
      ))}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!input.trim()) return;
          sendMessage({ text: input });
          setInput('');
        }}
      >
        <input id="message" value={input} onChange={(e) => setInput(e.target.value)} />
        <button id="send" type="submit" disabled={busy}>
          Send
        </button>
        <button id="stop" type="button" disabled={!busy} onClick={() => stopTurn(messages)}>
          Stop
        </button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
