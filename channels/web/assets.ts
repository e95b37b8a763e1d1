/**
 * @module channels/web/assets
 * The web pages' only script and stylesheet, served from `/ui/assets`. No front-end toolchain: the script is plain
 * ES5-style JavaScript that (1) keeps expiry countdowns ticking and (2) listens to `/ui/stream` and re-renders the
 * page's live regions from the server's own HTML when a request changes. Pages work fully without it.
 */

/** The page script. Its text is served as is; it inserts only markup the server rendered (and escaped). */
export const APP_JS = `(function () {
  'use strict';
  var body = document.body;
  function two(n) { return (n < 10 ? '0' : '') + n; }
  function duration(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm ' + two(s % 60) + 's';
    if (s < 86400) return Math.floor(s / 3600) + 'h ' + two(Math.floor((s % 3600) / 60)) + 'm';
    return Math.floor(s / 86400) + 'd ' + Math.floor((s % 86400) / 3600) + 'h';
  }
  function tick() {
    var clocks = document.querySelectorAll('[data-expires]');
    for (var i = 0; i < clocks.length; i++) {
      var left = Date.parse(clocks[i].getAttribute('data-expires')) - Date.now();
      clocks[i].textContent = left > 0 ? 'expires in ' + duration(left) : 'expiring now';
    }
  }
  tick();
  setInterval(tick, 1000);

  var liveUrl = body.getAttribute('data-live-url');
  if (!liveUrl || !window.EventSource || !window.fetch || !window.DOMParser) return;
  var requestId = body.getAttribute('data-live-request') || null;
  var busy = false, again = false, leaving = false;
  // Once a form is on its way, the page is about to be replaced: refreshing now could race the navigation.
  document.addEventListener('submit', function () { leaving = true; });
  // Back from the history cache: the page may be stale, and no form is on its way any more.
  window.addEventListener('pageshow', function (event) { if (event.persisted) { leaving = false; refresh(); } });

  // Re-reads the page's canonical URL and swaps in its live regions. Forms are swapped only once the request is
  // final, so a half-typed reason survives a partial approval by someone else.
  function refresh() {
    if (leaving) return;
    if (busy) { again = true; return; }
    busy = true;
    fetch(liveUrl, { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (res) {
        // Signed out meanwhile: show the sign-in page rather than stale content.
        if (res.redirected && !leaving) { leaving = true; location.assign(res.url); return null; }
        return res.ok ? res.text() : null;
      })
      .then(function (text) {
        if (text === null || leaving) return;
        var doc = new DOMParser().parseFromString(text, 'text/html');
        var regions = document.querySelectorAll('[data-live-region]');
        for (var i = 0; i < regions.length; i++) {
          var old = regions[i], fresh = doc.getElementById(old.id);
          if (!fresh) continue;
          if (old.hasAttribute('data-live-final') && fresh.children.length > 0) continue;
          old.parentNode.replaceChild(document.importNode(fresh, true), old);
        }
        // The tab title carries the count waiting for me: keep it as current as the list.
        if (doc.title) document.title = doc.title;
        tick();
        body.setAttribute('data-refreshed', String(Date.now()));
      })
      .catch(function () {})
      .then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  var opened = false;
  var source = new EventSource('/ui/stream');
  body.setAttribute('data-stream', 'connecting');
  source.addEventListener('open', function () {
    body.setAttribute('data-stream', 'open');
    // After a reconnect, catch up on whatever changed while the stream was down.
    if (opened) refresh();
    opened = true;
  });
  source.addEventListener('error', function () { body.setAttribute('data-stream', 'reconnecting'); });
  source.addEventListener('change', function (event) {
    var change;
    try { change = JSON.parse(event.data); } catch (e) { return; }
    if (requestId === null || change.id === requestId) refresh();
  });
})();
`;

/** The stylesheet: readable on a phone, no external fonts or images. */
export const APP_CSS = `:root { color-scheme: light dark; --bg: #f6f7f9; --fg: #1c2024; --muted: #5d6670; --card: #fff; --line: #dde1e6;
  --accent: #2456c8; --good: #17803d; --bad: #b42318; --wait: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --bg: #111418; --fg: #e6e8eb; --muted: #9aa4ae; --card: #1b1f24; --line: #2e343b;
  --accent: #7aa2ff; --good: #4cc38a; --bad: #ff7b72; --wait: #e3b341; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--fg); }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 1rem 0 0.5rem; }
a { color: var(--accent); }
code, pre, textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem; }
nav.top { display: flex; flex-wrap: wrap; gap: 0.75rem 1rem; align-items: center; padding: 0.6rem 1rem; background: var(--card); border-bottom: 1px solid var(--line); }
nav.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
nav.top a[aria-current] { font-weight: 600; text-decoration: none; }
nav.top .who { margin-left: auto; color: var(--muted); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1rem; margin: 0 0 1rem; }
.narrow { max-width: 26rem; margin: 2rem auto; }
.muted { color: var(--muted); }
.items { list-style: none; margin: 0; padding: 0; }
.item .title { font-weight: 600; font-size: 1.1rem; overflow-wrap: anywhere; }
.prompt { margin: 0.4rem 0; overflow-wrap: anywhere; }
.prompt p { margin: 0.2rem 0; }
nav.tabs { display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; margin: 0 0 0.5rem; border-bottom: 1px solid var(--line); padding-bottom: 0.4rem; }
nav.tabs a[aria-current] { font-weight: 600; text-decoration: none; color: var(--fg); }
nav.tabs .count { display: inline-block; min-width: 1.4rem; padding: 0 0.4rem; border-radius: 999px; background: var(--wait); color: #fff; font-size: 0.8rem; text-align: center; }
dl.key-args { margin: 0.3rem 0; font-size: 0.92rem; }
dl.key-args code { white-space: pre-wrap; }
.meta { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; color: var(--muted); font-size: 0.9rem; margin: 0.4rem 0; }
.badge { display: inline-block; padding: 0.05rem 0.55rem; border-radius: 999px; font-size: 0.85rem; font-weight: 600; color: #fff; }
.badge.waiting { background: var(--wait); } .badge.good { background: var(--good); } .badge.bad { background: var(--bad); }
.status { font-size: 1.05rem; }
.notice { padding: 0.6rem 0.8rem; border-radius: 8px; border: 1px solid var(--line); background: var(--card); }
.notice.good { border-color: var(--good); } .notice.bad { border-color: var(--bad); color: var(--bad); }
ul.notice { padding-left: 2rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; margin: 0.5rem 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.side-by-side { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: 0 1rem; }
.side-by-side > div { min-width: 0; }
.risk { display: inline-block; padding: 0.05rem 0.55rem; border-radius: 999px; font-size: 0.85rem; font-weight: 700; color: #fff; }
.risk.high { background: var(--bad); } .risk.medium { background: var(--wait); } .risk.low { background: var(--good); }
.summary.risk-high { border-left: 4px solid var(--bad); } .summary.risk-medium { border-left: 4px solid var(--wait); } .summary.risk-low { border-left: 4px solid var(--good); }
.summary .risk-line, .summary .headline { margin: 0.25rem 0; } .summary ul { margin: 0.25rem 0; padding-left: 1.25rem; }
.summary-items code { white-space: pre-wrap; overflow-wrap: anywhere; }
pre.args { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 28rem; }
button, .button { display: inline-block; font: inherit; padding: 0.55rem 1rem; border-radius: 8px; border: 1px solid var(--line); background: var(--card); color: var(--fg); cursor: pointer; text-decoration: none; min-height: 2.75rem; }
button.primary, .button.primary { background: var(--good); border-color: var(--good); color: #fff; }
button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
button.link { border: 0; background: none; color: var(--accent); padding: 0; min-height: 0; text-decoration: underline; }
form.inline { display: inline; margin: 0; }
.buttons { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: flex-end; }
form.decide .buttons { margin-top: 0.75rem; }
form.decide textarea { min-height: 3.2rem; font-family: inherit; }
label { display: block; font-size: 0.9rem; color: var(--muted); }
input, select, textarea { display: block; width: 100%; font: inherit; padding: 0.5rem; margin-top: 0.2rem; border-radius: 8px; border: 1px solid var(--line); background: var(--bg); color: var(--fg); }
textarea { min-height: 12rem; }
.stack > * { margin: 0 0 0.75rem; }
details { margin-top: 1rem; } summary { cursor: pointer; color: var(--accent); }
ol.timeline { list-style: none; padding: 0; margin: 0; }
ol.timeline li { padding: 0.4rem 0; border-top: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: 0.2rem 0.75rem; }
ol.timeline time { color: var(--muted); font-size: 0.9rem; }
ol.timeline .detail { flex-basis: 100%; color: var(--muted); overflow-wrap: anywhere; }
.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: 0.75rem; }
.filters .buttons { grid-column: 1 / -1; align-items: center; }
.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 10px; }
table.audit { width: 100%; border-collapse: collapse; font-size: 0.92rem; }
table.audit th, table.audit td { text-align: left; padding: 0.5rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
table.audit td.outcome { min-width: 14rem; overflow-wrap: anywhere; }
table.audit time, .badge { white-space: nowrap; }
/* On a phone the audit rows become cards, each cell labelled: a six-column table would scroll sideways unseen. */
@media (max-width: 40rem) {
  table.records thead { display: none; }
  table.records, table.records tbody, table.records tr, table.records td { display: block; width: 100%; }
  table.records tr { padding: 0.5rem 0.75rem; border-bottom: 1px solid var(--line); }
  table.records td { padding: 0.1rem 0; border: 0; display: grid; grid-template-columns: 6.5rem 1fr; gap: 0.5rem; }
  table.records td::before { content: attr(data-label); color: var(--muted); }
  table.records td > .badge { justify-self: start; }
  table.records td:empty { display: none; }
  table.records td.outcome { min-width: 0; }
  table.records td[colspan] { display: block; }
  table.records td[colspan]::before { content: none; }
}
.pager { display: flex; gap: 1rem; justify-content: space-between; margin: 1rem 0; }
.back { margin: 0; }
`;
