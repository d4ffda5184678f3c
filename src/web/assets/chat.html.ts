// The chat page shell. Everything dynamic is filled in by chat.js (src/web/client/) with text nodes.
export interface PageAssets {
  css: string;
  js: string;
  icon: string;
  /** Where the app is mounted, with a trailing slash: every URL in the pages is relative to it. */
  base: string;
  /** Code language → the URL of its grammar module, which the chat page loads when a code block needs it. */
  languages: Record<string, string>;
}

/** Text for an HTML attribute value in double quotes. */
const attr = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export const chatHtml = (a: PageAssets): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<base href="${a.base}">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<title>Rebound chat</title>
<link rel="stylesheet" href="${a.css}">
<link rel="icon" type="image/svg+xml" href="${a.icon}">
<script type="module" src="${a.js}"></script>
</head>
<body class="chat" data-languages="${attr(JSON.stringify(a.languages))}">
<a class="skip-link" href="./#message">Skip to message box</a>
<header class="topbar">
  <h1>Rebound</h1>
  <span id="model" class="model-name"></span>
  <span id="demo" class="badge demo" hidden title="Answers come from the built-in scripted demo model, not a real LLM">demo model</span>
  <nav aria-label="Main">
    <span id="conn" class="conn" data-state="idle" role="status" aria-live="polite">idle</span>
    <button type="button" id="new-session">New session</button>
    <a href="dashboard">Dashboard</a>
  </nav>
</header>
<main id="main">
  <div id="transcript" class="transcript" role="log" aria-label="Conversation" aria-live="polite" aria-relevant="additions text">
    <p class="empty-hint" id="empty-hint">Ask the agent something. In demo mode try “fix the bug in the parser”.</p>
  </div>
</main>
<footer class="composer">
  <form id="composer" autocomplete="off">
    <label for="message" class="visually-hidden">Message</label>
    <textarea id="message" name="message" rows="1" placeholder="Message the agent…" aria-describedby="composer-hint" required></textarea>
    <button type="submit" id="send" class="primary">Send</button>
    <button type="button" id="stop" class="danger" disabled>Stop</button>
  </form>
  <p class="hint" id="composer-hint">Enter sends · Shift+Enter adds a line</p>
</footer>
</body>
</html>
`;
