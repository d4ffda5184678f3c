// The dashboard page's script: range controls ↔ URL, then the server-rendered SVG fragment.
// The fragment is built server-side with every label escaped, so inserting it as HTML is safe.
// biome-ignore lint/complexity/noUselessStringRaw: the script is source code: a backslash added to it later must reach the browser as written
export const dashboardJs = String.raw`
const HOURS = { '1h': 1, '24h': 24, '7d': 168, '30d': 720, '90d': 2160 };
const rangeEl = document.getElementById('range');
const bucketEl = document.getElementById('bucket');
const sourceEl = document.getElementById('source');
const statusEl = document.getElementById('status');
const view = document.getElementById('view');
const TOKEN_KEY = 'rebound.token';

const params = new URLSearchParams(location.search);
// Local mode's URL carries the server's local access token (?token=…, printed at start): kept for the
// API calls below and later visits; load() then writes the address without it. Never a JWT (dots): a
// link carrying someone's Supabase token must not sign this page in as them.
if (params.get('token') && !params.get('token').includes('.')) localStorage.setItem(TOKEN_KEY, params.get('token'));
if (HOURS[params.get('range')]) rangeEl.value = params.get('range');
if (['auto', 'hour', 'day'].includes(params.get('bucket'))) bucketEl.value = params.get('bucket');
if (['all', 'loop', 'gateway'].includes(params.get('source'))) sourceEl.value = params.get('source');

let seq = 0;
async function load() {
  const mine = ++seq;
  const hours = HOURS[rangeEl.value] || 24;
  // Round "to" up to the next minute so repeated loads share a range and the newest calls count.
  const to = new Date(Math.ceil((Date.now() + 1) / 60000) * 60000);
  const from = new Date(to.getTime() - hours * 3600000);
  const bucket = bucketEl.value === 'auto' ? (hours <= 48 ? 'hour' : 'day') : bucketEl.value;
  const q = new URLSearchParams({ from: from.toISOString(), to: to.toISOString(), bucket });
  if (sourceEl.value !== 'all') q.set('source', sourceEl.value);
  history.replaceState(null, '', location.pathname + '?' + new URLSearchParams({ range: rangeEl.value, bucket: bucketEl.value, source: sourceEl.value }));
  statusEl.className = 'status';
  statusEl.textContent = 'Loading…';
  view.setAttribute('aria-busy', 'true');
  const token = localStorage.getItem(TOKEN_KEY);
  try {
    const res = await fetch('v1/dashboard/view?' + q, { headers: token ? { Authorization: 'Bearer ' + token } : {} });
    if (mine !== seq) return;
    if (!res.ok) {
      const body = await res.json().catch(() => null);
      const msg = body && (body.error && body.error.message ? body.error.message : body.message || body.error);
      throw new Error(msg || res.status + ' ' + res.statusText);
    }
    view.innerHTML = await res.text();
    statusEl.textContent = 'Updated ' + new Date().toLocaleTimeString() + ' · ' + from.toLocaleString() + ' – ' + to.toLocaleString();
  } catch (e) {
    if (mine !== seq) return;
    statusEl.className = 'status error';
    statusEl.textContent = 'Could not load the dashboard: ' + e.message;
  } finally {
    if (mine === seq) view.setAttribute('aria-busy', 'false');
  }
}

document.getElementById('controls').addEventListener('submit', (e) => { e.preventDefault(); load(); });
rangeEl.addEventListener('change', load);
bucketEl.addEventListener('change', load);
sourceEl.addEventListener('change', load);
load();
`;
