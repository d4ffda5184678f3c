// The dashboard page shell; dashboard.js fetches the server-rendered charts for the chosen range.
import type { PageAssets } from './chat.html.ts';

export const dashboardHtml = (a: PageAssets): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<base href="${a.base}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Rebound dashboard</title>
<link rel="stylesheet" href="${a.css}">
<link rel="icon" type="image/svg+xml" href="${a.icon}">
<script type="module" src="${a.js}"></script>
</head>
<body>
<a class="skip-link" href="dashboard#view">Skip to charts</a>
<header class="topbar">
  <h1>Rebound · hallucination dashboard</h1>
  <nav aria-label="Main"><a href="./">Chat</a></nav>
</header>
<div class="dash">
  <form class="controls" id="controls">
    <label>Time range
      <select id="range" name="range">
        <option value="1h">Last hour</option>
        <option value="24h" selected>Last 24 hours</option>
        <option value="7d">Last 7 days</option>
        <option value="30d">Last 30 days</option>
        <option value="90d">Last 90 days</option>
      </select>
    </label>
    <label>Group by
      <select id="bucket" name="bucket">
        <option value="auto" selected>Automatic</option>
        <option value="hour">Hour</option>
        <option value="day">Day</option>
      </select>
    </label>
    <label>Calls from
      <select id="source" name="source">
        <option value="all" selected>Everywhere</option>
        <option value="loop">The agent loop</option>
        <option value="gateway">Apps behind the gateway</option>
      </select>
    </label>
    <button type="submit" class="primary" id="refresh">Refresh</button>
  </form>
  <p id="status" class="status" role="status" aria-live="polite"></p>
  <main id="view" tabindex="-1" aria-busy="true"></main>
</div>
</body>
</html>
`;
