// One stylesheet for both pages. Colours are CSS variables so the SVG charts (which use classes, not
// fills) follow the light and dark themes; every text colour pair is at least 4.5:1.
export const stylesCss = `
:root {
  --bg: #f6f7f9; --panel: #ffffff; --text: #16191f; --muted: #4f5661; --border: #d5d9e0;
  --accent: #1d5bbf; --accent-text: #ffffff; --focus: #f0a500;
  --good: #17692f; --warn: #8a5300; --bad: #b0261c; --info: #1d5bbf;
  --good-bg: #e6f4ea; --warn-bg: #fdf1dc; --bad-bg: #fbe7e5; --info-bg: #e6eefb;
  --s0: #1d5bbf; --s1: #c2410c; --s2: #15803d; --s3: #7c3aed; --s4: #be185d; --s5: #0e7490;
  --grid: #e3e6eb;
  --code-bg: #f3f4f7; --hl-kwd: #b3125a; --hl-str: #0b6a3a; --hl-cmnt: #5f6773; --hl-num: #9a4a00; --hl-func: #6a35c2; --hl-type: #0b58a8;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #111418; --panel: #1a1f26; --text: #e8eaee; --muted: #a8b0bc; --border: #333b46;
    --accent: #6ea1ff; --accent-text: #0b1020; --focus: #ffc44d;
    --good: #6fd58f; --warn: #f3b54a; --bad: #ff8a80; --info: #8fb6ff;
    --good-bg: #16301f; --warn-bg: #33270f; --bad-bg: #3a1a18; --info-bg: #172640;
    --s0: #6ea1ff; --s1: #fb923c; --s2: #4ade80; --s3: #c4a1ff; --s4: #f472b6; --s5: #22d3ee;
    --grid: #29303a;
    --code-bg: #14181e; --hl-kwd: #ff7ab2; --hl-str: #8fe0a6; --hl-cmnt: #9aa3af; --hl-num: #ffb86b; --hl-func: #c7a6ff; --hl-type: #8cc4ff;
  }
}
* { box-sizing: border-box; }
html, body { height: 100%; }
body { margin: 0; background: var(--bg); color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.skip-link { position: absolute; left: -999px; top: 0; background: var(--panel); padding: .5rem 1rem; z-index: 10; }
.skip-link:focus { left: .5rem; }
.muted { color: var(--muted); fill: var(--muted); }
button, .button { font: inherit; border-radius: 8px; border: 1px solid var(--border); background: var(--panel);
  color: var(--text); padding: .45rem .9rem; cursor: pointer; min-height: 44px; }
button.primary { background: var(--accent); color: var(--accent-text); border-color: var(--accent); font-weight: 600; }
button:disabled { opacity: .5; cursor: not-allowed; }
button.danger:not(:disabled) { border-color: var(--bad); color: var(--bad); }

.topbar { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .6rem 1rem;
  background: var(--panel); border-bottom: 1px solid var(--border); }
.topbar h1 { font-size: 1.15rem; margin: 0; }
.topbar nav { margin-left: auto; display: flex; gap: .75rem; align-items: center; }
[hidden] { display: none !important; } /* a class's display must not show what the page hid */
.badge { display: inline-block; font-size: .8rem; font-weight: 600; padding: .1rem .5rem; border-radius: 999px;
  border: 1px solid currentColor; white-space: nowrap; }
.badge.demo { color: var(--warn); background: var(--warn-bg); }
.model-name { font-size: .85rem; color: var(--muted); }
.conn { display: inline-flex; align-items: center; gap: .35rem; font-size: .85rem; color: var(--muted); }
.conn::before { content: ""; width: .6rem; height: .6rem; border-radius: 50%; background: var(--muted); }
.conn[data-state="live"]::before { background: var(--good); }
.conn[data-state="connecting"]::before, .conn[data-state="quiet"]::before, .conn[data-state="reconnecting"]::before { background: var(--warn); }
.conn[data-state="reconnecting"]::before { animation: conn-pulse 1.2s ease-in-out infinite; }
@keyframes conn-pulse { 50% { opacity: .35; } }
@media (prefers-reduced-motion: reduce) { .conn[data-state="reconnecting"]::before { animation: none; } }
.conn[data-state="lost"]::before { background: var(--bad); }

/* Chat */
.chat { display: flex; flex-direction: column; height: 100%; }
.chat main { flex: 1; overflow-y: auto; }
.transcript { max-width: 860px; margin: 0 auto; padding: 1rem; display: flex; flex-direction: column; gap: .75rem; }
.empty-hint { color: var(--muted); text-align: center; margin-top: 3rem; }
.msg { padding: .6rem .85rem; border-radius: 12px; max-width: 100%; overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; background: var(--info-bg); white-space: pre-wrap; max-width: 85%; }
.msg.assistant { background: var(--panel); border: 1px solid var(--border); }
.msg .who { font-size: .75rem; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
/* An answer is Markdown (src/web/client/markdown.js): blocks, inline code, code with highlighting, tables. */
.answer { overflow-wrap: anywhere; }
.answer:empty::after { content: "…"; color: var(--muted); }
.answer.live > p:last-child::after, .answer.live > :is(ul, ol):last-child > li:last-child::after {
  content: "▍"; color: var(--muted); animation: blink 1s steps(1) infinite; }
@keyframes blink { 50% { opacity: 0; } }
@media (prefers-reduced-motion: reduce) { .answer.live > p:last-child::after, .answer.live > :is(ul, ol):last-child > li:last-child::after { animation: none; } }
.answer > :first-child { margin-top: .25rem; }
.answer > :last-child { margin-bottom: .25rem; }
.answer p, .answer ul, .answer ol, .answer blockquote, .answer .table-wrap, .answer figure.code { margin: .5rem 0; }
.answer :is(h3, h4, h5, h6) { margin: .9rem 0 .4rem; line-height: 1.3; }
.answer h3 { font-size: 1.2rem; } .answer h4 { font-size: 1.08rem; } .answer h5, .answer h6 { font-size: 1rem; }
.answer ul, .answer ol { padding-left: 1.5rem; }
.answer li > :is(p, ul, ol) { margin: .2rem 0; }
.answer li.task { list-style: none; margin-left: -1.3rem; }
.answer li.task > input { margin: 0 .35rem 0 0; vertical-align: middle; }
.answer blockquote { border-left: 3px solid var(--border); padding: 0 .8rem; color: var(--muted); }
.answer hr { border: 0; border-top: 1px solid var(--border); margin: .9rem 0; }
.answer .raw-html { white-space: pre-wrap; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .88rem; color: var(--muted); }
.answer a { text-decoration: underline; text-underline-offset: 2px; }
.answer .link-inert { text-decoration: underline dotted; cursor: help; }
.answer .md-image { color: var(--muted); font-size: .92rem; }
.answer :not(pre) > code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .88em;
  background: var(--code-bg); border: 1px solid var(--border); border-radius: 5px; padding: .05em .3em; }
.answer .table-wrap { overflow-x: auto; }
.answer table { border-collapse: collapse; font-size: .92rem; }
.answer th, .answer td { border: 1px solid var(--border); padding: .3rem .6rem; text-align: left; vertical-align: top; }
.answer th { background: var(--bg); font-weight: 600; }
.answer .align-center { text-align: center; } .answer .align-right { text-align: right; }
figure.code { border: 1px solid var(--border); border-radius: 8px; overflow: hidden; background: var(--code-bg); }
.code-bar { display: flex; align-items: center; justify-content: space-between; gap: .5rem; padding: .15rem .3rem .15rem .7rem;
  border-bottom: 1px solid var(--border); font-size: .78rem; color: var(--muted); }
.code-bar .copy { min-height: 32px; padding: .1rem .6rem; font-size: .78rem; }
figure.code pre { margin: 0; padding: .6rem .8rem; overflow-x: auto; font-size: .85rem; line-height: 1.45;
  font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; tab-size: 4; }
.tok-kwd, .tok-deleted, .tok-err { color: var(--hl-kwd); }
.tok-str, .tok-insert { color: var(--hl-str); }
.tok-cmnt { color: var(--hl-cmnt); font-style: italic; }
.tok-num, .tok-bool, .tok-class { color: var(--hl-num); }
.tok-func, .tok-section { color: var(--hl-func); }
.tok-type, .tok-oper, .tok-var, .tok-esc { color: var(--hl-type); }
/* A file a tool changed: its unified diff. */
.tool .diff { margin-top: .4rem; border: 1px solid var(--border); border-radius: 6px; background: var(--panel); }
.tool .diff > summary { padding: .2rem .5rem; color: var(--text); font-size: .85rem; }
.diff-path { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
.diff-change { color: var(--muted); }
.diff-added { color: var(--good); font-weight: 600; } .diff-removed { color: var(--bad); font-weight: 600; }
.tool pre.diff-lines { margin: 0; padding: .3rem 0; max-height: 24rem; white-space: pre; overflow: auto; border-top: 1px solid var(--border); }
.diff-lines > span { display: block; padding: 0 .6rem; min-width: max-content; }
.diff-add { background: var(--good-bg); } .diff-del { background: var(--bad-bg); }
.diff-hunk { color: var(--info); background: var(--info-bg); }
.diff-note { margin: 0; padding: .2rem .6rem; font-size: .8rem; color: var(--muted); }
.tool { border: 1px solid var(--border); border-left-width: 4px; border-radius: 8px; padding: .45rem .7rem; margin: .5rem 0;
  font-size: .92rem; background: var(--bg); }
.tool[data-verdict="pass"] { border-left-color: var(--good); }
.tool[data-verdict="repaired"] { border-left-color: var(--warn); }
.tool[data-verdict="blocked"], .tool[data-ok="false"] { border-left-color: var(--bad); }
.tool-head { display: flex; flex-wrap: wrap; gap: .4rem; align-items: baseline; }
.tool-name { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-weight: 600; }
.verdict { font-size: .78rem; font-weight: 700; padding: 0 .45rem; border-radius: 999px; }
.verdict.pending { color: var(--muted); border: 1px dashed var(--border); }
.verdict.pass { color: var(--good); background: var(--good-bg); }
.verdict.repaired { color: var(--warn); background: var(--warn-bg); }
.verdict.blocked, .verdict.failed { color: var(--bad); background: var(--bad-bg); }
.tool .category, .tool .duration { font-size: .8rem; color: var(--muted); }
.tool[data-approval="requested"] { border-left-color: var(--info); }
.verdict.awaiting { color: var(--info); background: var(--info-bg); }
.approval { margin-top: .5rem; padding: .5rem .6rem; border: 1px solid var(--info); border-radius: 8px; background: var(--info-bg); }
.approval-title { margin: 0 0 .3rem; font-weight: 600; }
.approval-reason { display: flex; gap: .4rem; align-items: center; margin: .45rem 0; }
.approval-reason input { flex: 1; min-width: 0; }
.approval-actions { display: flex; gap: .5rem; }
.approval-status, .approval-expiry { margin: .35rem 0 0; font-size: .85rem; }
.approval-badge { font-size: .78rem; font-weight: 700; padding: 0 .45rem; border-radius: 999px; }
.approval-badge.approved { color: var(--good); background: var(--good-bg); }
.approval-badge.denied { color: var(--bad); background: var(--bad-bg); }
.approval-badge.expired { color: var(--warn); background: var(--warn-bg); }
.verdict.denied { color: var(--bad); background: var(--bad-bg); }
.verdict.expired { color: var(--warn); background: var(--warn-bg); }
.tool .decision-reason { margin: .35rem 0 0; white-space: pre-wrap; }
.tool pre { margin: .3rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .82rem;
  font-family: ui-monospace, Menlo, Consolas, monospace; max-height: 14rem; overflow: auto; }
.tool .reason { margin: .35rem 0 0; color: var(--bad); white-space: pre-wrap; }
.tool ul { margin: .25rem 0 0; padding-left: 1.2rem; }
.tool .suggestions code, .tool .repairs code { font-family: ui-monospace, Menlo, Consolas, monospace; }
.tool summary { cursor: pointer; color: var(--muted); font-size: .82rem; }
.notice { border-radius: 8px; padding: .45rem .7rem; margin: .5rem 0; font-size: .92rem; }
.notice.summary { background: var(--info-bg); color: var(--text); border: 1px solid var(--info); }
.notice.error { background: var(--bad-bg); color: var(--text); border: 1px solid var(--bad); }
.notice.stopped { background: var(--warn-bg); color: var(--text); border: 1px solid var(--warn); }
.turn-end { font-size: .78rem; color: var(--muted); margin-top: .3rem; }
.composer { border-top: 1px solid var(--border); background: var(--panel); padding: .6rem 1rem calc(.6rem + env(safe-area-inset-bottom)); }
.composer form { max-width: 860px; margin: 0 auto; display: flex; gap: .5rem; align-items: flex-end; }
.composer textarea { flex: 1; font: inherit; color: var(--text); background: var(--bg); border: 1px solid var(--border);
  border-radius: 8px; padding: .55rem .7rem; resize: none; min-height: 44px; max-height: 40vh; }
.composer .hint { max-width: 860px; margin: .25rem auto 0; font-size: .78rem; color: var(--muted); }
@media (max-width: 560px) {
  .topbar { padding: .5rem .75rem; }
  .topbar nav { margin-left: 0; width: 100%; justify-content: space-between; }
  .topbar h1 { font-size: 1.05rem; }
  .model-name { font-size: .78rem; }
  .transcript { padding: .75rem; }
  .msg.user { max-width: 92%; }
  .composer { padding-left: .5rem; padding-right: .5rem; }
  .composer button { padding: .45rem .6rem; }
}

/* Dashboard */
.dash { max-width: 1200px; margin: 0 auto; padding: 1rem; }
.controls { display: flex; flex-wrap: wrap; gap: .75rem; align-items: flex-end; margin-bottom: 1rem; }
.controls label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); gap: .2rem; }
.controls select, .controls input { font: inherit; color: var(--text); background: var(--panel); border: 1px solid var(--border);
  border-radius: 8px; padding: .4rem .5rem; min-height: 44px; }
.status { min-height: 1.5rem; color: var(--muted); }
.status.error { color: var(--bad); }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: .75rem; margin-bottom: 1rem; }
.tile { background: var(--panel); border: 1px solid var(--border); border-radius: 12px; padding: .7rem .9rem; }
.tile-value { font-size: 1.6rem; font-weight: 700; }
.tile-label { font-weight: 600; }
.tile-detail { font-size: .85rem; color: var(--muted); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 480px), 1fr)); gap: 1rem; }
.card { margin: 0; background: var(--panel); border: 1px solid var(--border); border-radius: 12px; padding: .9rem 1rem; min-width: 0; }
.card#rates { grid-column: 1 / -1; }
.card h2 { font-size: 1.05rem; margin: 0; }
.card figcaption p { margin: .15rem 0 .6rem; font-size: .85rem; }
.chart { width: 100%; height: auto; display: block; font-size: 13px; fill: var(--text); }
.narrow-only { display: none; }
@media (max-width: 560px) { .wide-only { display: none; } .narrow-only { display: block; } }
.chart .volume { fill: var(--muted); opacity: .45; }
.chart text { fill: var(--text); }
.chart text.axis, .chart text.muted { fill: var(--muted); }
.chart .grid { stroke: var(--grid); stroke-width: 1; }
.chart .line { fill: none; stroke-width: 2.5; stroke-linejoin: round; stroke-linecap: round; }
.chart .point { stroke: var(--panel); stroke-width: 1.5; }
${[0, 1, 2, 3, 4, 5].map((i) => `.chart .line.s${i} { stroke: var(--s${i}); } .chart .point.s${i}, .chart .swatch.s${i}, .chart text.last.s${i} { fill: var(--s${i}); }`).join('\n')}
.chart text.last { font-weight: 700; paint-order: stroke; stroke: var(--panel); stroke-width: 3px; }
.chart .track { fill: var(--grid); stroke: var(--grid); }
.chart .bar { fill: var(--s0); }
.chart .bar.accent { fill: var(--s3); } .chart .bar.bad { fill: var(--bad); } .chart .bar.warn { fill: var(--warn); } .chart .bar.good { fill: var(--good); }
.chart .bar-value { font-weight: 600; }
.meters { display: grid; grid-template-columns: repeat(2, 1fr); gap: .75rem .5rem; text-align: center; }
.meter { width: 110px; height: 110px; margin: 0 auto; }
.meter .track { fill: none; stroke: var(--grid); }
.meter .arc { fill: none; }
.meter .arc.good { stroke: var(--good); } .meter .arc.warn { stroke: var(--warn); } .meter .arc.bad { stroke: var(--bad); }
.meter .meter-value { font-size: 22px; font-weight: 700; }
.meter-label { font-size: .85rem; color: var(--muted); }
`;
