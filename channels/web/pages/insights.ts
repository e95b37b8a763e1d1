/**
 * @module channels/web/pages/insights
 * The insights page (`/ui/insights`): requests per day by outcome and time to decision as charts (uPlot, drawn by
 * `/ui/assets/insights.js` from the figures in each chart's `data-chart` attribute, with the same figures in a table
 * beneath for readers without script), and the top tools, agents and approvers. Every count links to the audit page
 * filtered to the requests it counts.
 */
import type { InsightsJson, InsightsRowJson } from '../../../src/insights/report.js';
import { html, type SafeHtml } from '../html.js';
import { formatDuration } from './format.js';
import { layout, type Viewer } from './layout.js';

/** Options of {@link insightsPage}. */
export interface InsightsPageOptions {
  viewer: Viewer;
  /** The form's values as typed (`YYYY-MM-DD`). */
  form: { since: string; until: string };
  /** The reports by tool, agent, person and day (null when the window was refused). */
  reports: { tool: InsightsJson; agent: InsightsJson; person: InsightsJson; day: InsightsJson } | null;
  error?: string;
}

/** The scripts and styles only this page loads. */
export const INSIGHTS_ASSETS = { scripts: ['uplot.js', 'insights.js'], styles: ['uplot.css', 'insights.css'] };

const percent = (share: number | null) => (share === null ? '–' : `${Math.round(share * 100)}%`);
const duration = (ms: number | null) =>
  ms === null ? '–' : ms < 1000 ? `${ms} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms);
/** A time as the audit page's fields read it (UTC, no zone, to the millisecond). */
const local = (at: number) => new Date(at).toISOString().slice(0, 23);
/** The audit page's bounds for `[since, until)`: its `until` is inclusive, so it ends a millisecond before. */
const auditWindow = (since: string, until: string) => ({
  since: local(Date.parse(since)),
  until: local(Date.parse(until) - 1),
});

/** A link to the audit page for the window, `filters` and (optionally) one status. */
function auditLink(
  report: InsightsJson,
  filters: Record<string, string>,
  status: string | undefined,
  text: string | number,
): SafeHtml {
  const query = new URLSearchParams({
    ...filters,
    ...(status ? { status } : {}),
    ...auditWindow(report.since, report.until),
  });
  return html`<a href="/ui/audit?${query.toString()}">${String(text)}</a>`;
}

/** One top-N table: each key and count links to its requests on the audit page. */
function table(
  report: InsightsJson,
  title: string,
  header: string,
  filter: string | null,
  noKey: string,
  fast: boolean,
): SafeHtml {
  const row = (r: InsightsRowJson) => {
    const filters = filter && r.key !== null ? { [filter]: r.key } : null;
    const link = (status: string | undefined, n: number) =>
      filters ? auditLink(report, filters, status, n) : String(n);
    return html`<tr>
      <td>${filters ? auditLink(report, filters, undefined, r.key!) : html`<span class="muted">${r.key ?? noKey}</span>`}</td>
      <td class="num">${link(undefined, r.requests)}</td>
      <td class="num">${link('approved', r.approved)}</td>
      <td class="num">${link('denied', r.denied)}</td>
      <td class="num">${link('expired', r.expired)}</td>
      <td class="num">${percent(r.approval_rate)}</td>
      <td class="num">${percent(r.edited_rate)}</td>
      <td class="num">${duration(r.decision_ms.p50)}</td>
      <td class="num">${duration(r.decision_ms.p90)}</td>
      ${fast ? html`<td class="num">${percent(r.fast_approvals)}</td>` : ''}
    </tr>`;
  };
  const rows = report.rows.slice(0, 10);
  return html`<section class="insights-table">
<h2>${title}</h2>
<div class="table-wrap">
<table class="audit" id="top-${report.by}">
  <thead><tr><th>${header}</th><th class="num">Requests</th><th class="num">Approved</th><th class="num">Denied</th><th class="num">Expired</th><th class="num">Approval rate</th><th class="num">Edited</th><th class="num">p50</th><th class="num">p90</th>${fast ? html`<th class="num" title="Approvals made within 3 s of the card reaching the approver">Within 3 s</th>` : ''}</tr></thead>
  <tbody>${rows.length ? rows.map(row) : html`<tr><td colspan="${fast ? '10' : '9'}" class="muted">No requests in this window.</td></tr>`}</tbody>
</table>
</div>
</section>`;
}

/** The charts' figures (read by `insights.js`) and the same figures as a table. */
function charts(r: { tool: InsightsJson; day: InsightsJson }): SafeHtml {
  const days = r.tool.series.map((d) => d.day);
  const byDay = new Map(r.day.rows.map((row) => [row.key, row]));
  const daily = {
    kind: 'daily',
    days,
    approved: r.tool.series.map((d) => d.approved),
    denied: r.tool.series.map((d) => d.denied),
    expired: r.tool.series.map((d) => d.expired),
  };
  const decision = {
    kind: 'decision',
    days,
    p50: days.map((d) => byDay.get(d)?.decision_ms.p50 ?? null),
    p90: days.map((d) => byDay.get(d)?.decision_ms.p90 ?? null),
  };
  const perDay = (day: string) =>
    auditWindow(`${day}T00:00:00Z`, new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString());
  return html`<section class="card chart">
  <h2>Requests per day</h2>
  <div class="chart-box" id="chart-daily" data-chart="${JSON.stringify(daily)}"></div>
</section>
<section class="card chart">
  <h2>Time to decision per day <span class="muted">(p50 and p90, from the card reaching the approver)</span></h2>
  <div class="chart-box" id="chart-decision" data-chart="${JSON.stringify(decision)}"></div>
</section>
<details class="card"><summary>The figures by day</summary>
<div class="table-wrap"><table class="audit" id="by-day">
  <thead><tr><th>Day (UTC)</th><th class="num">Requests</th><th class="num">Approved</th><th class="num">Denied</th><th class="num">Expired</th><th class="num">p50</th><th class="num">p90</th></tr></thead>
  <tbody>${r.tool.series.map((d) => {
    const q = (status?: string) =>
      `/ui/audit?${new URLSearchParams({ ...(status ? { status } : {}), ...perDay(d.day) }).toString()}`;
    const row = byDay.get(d.day);
    return html`<tr><td>${d.day}</td><td class="num"><a href="${q()}">${String(d.requests)}</a></td><td class="num"><a href="${q('approved')}">${String(d.approved)}</a></td><td class="num"><a href="${q('denied')}">${String(d.denied)}</a></td><td class="num"><a href="${q('expired')}">${String(d.expired)}</a></td><td class="num">${duration(row?.decision_ms.p50 ?? null)}</td><td class="num">${duration(row?.decision_ms.p90 ?? null)}</td></tr>`;
  })}</tbody>
</table></div>
</details>`;
}

/**
 * The window's totals, one card each. Requests still pending get a card of their own, so the outcomes add up to the
 * requests (a figure that does not add up reads as a bug).
 */
function totalCards(report: InsightsJson): SafeHtml {
  const t = report.totals;
  const pending = Math.max(0, t.requests - t.approved - t.denied - t.expired - t.cancelled);
  const figures = [
    ['requests', t.requests],
    ['approved', t.approved],
    ['denied', t.denied],
    ['expired', t.expired],
    ['cancelled', t.cancelled],
    ['pending', pending],
  ] as const;
  return html`<div class="totals" id="totals">${figures.map(
    ([k, n]) =>
      html`<div class="card total ${k}"><div class="muted">${k}</div><div class="figure">${auditLink(report, {}, k === 'requests' ? undefined : k, n)}</div></div>`,
  )}</div>`;
}

/** Renders the insights page. */
export function insightsPage(options: InsightsPageOptions): SafeHtml {
  const { form, reports } = options;
  const totals = reports ? totalCards(reports.tool) : '';
  const body = html`<h1>Insights</h1>
<p class="muted">How requests were decided: what was asked, how fast people answered, and who approved without reading. Times are UTC; every figure opens the requests it counts. <a href="/ui/insights/suggestions${form.since || form.until ? `?${new URLSearchParams(form).toString()}` : ''}" id="suggestions-link">Suggested rules</a> for the calls people always approve.</p>
<form method="get" action="/ui/insights" class="filters card">
  <label>Since <input name="since" type="date" value="${form.since}"></label>
  <label>Until <input name="until" type="date" value="${form.until}"></label>
  <div class="buttons"><button type="submit" class="primary">Show</button> <a href="/ui/insights">Last 30 days</a></div>
</form>
${options.error ? html`<p class="notice bad" role="alert">${options.error}</p>` : ''}
${totals}
${reports ? html`<p class="muted" id="as-of">Past days as of ${reports.tool.as_of ?? 'now'} (UTC), today live; times to decision within ±${reports.tool.percentile_relative_error * 100} %.</p>` : ''}
${reports ? charts(reports) : ''}
${reports ? table(reports.tool, 'Top tools', 'Tool', 'tool', '(none)', false) : ''}
${reports ? table(reports.agent, 'Top agents', 'Agent', 'agent', '(no agent)', false) : ''}
${reports ? table(reports.person, 'Top approvers', 'Person', 'person', '(nobody: a rule, a grant, the clock or a cancel)', true) : ''}`;
  return layout({ title: 'Insights', viewer: options.viewer, current: 'insights', assets: INSIGHTS_ASSETS }, body);
}
