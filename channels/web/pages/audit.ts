/**
 * @module channels/web/pages/audit
 * The audit page: every request, newest first, filtered by status, tool, agent, approver and time range, paged with
 * the store's cursor, and exportable as CSV with the same filters.
 */
import { outcomeText } from '../../../src/channel/card.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { REQUEST_STATUSES } from '../../../src/requests/types.js';
import { filterQueryString, type AuditFilters } from '../audit-filters.js';
import { html, type SafeHtml } from '../html.js';
import { formatTime, statusBadge } from './format.js';
import { layout, type Viewer } from './layout.js';

/** Options of {@link auditPage}. */
export interface AuditPageOptions {
  viewer: Viewer;
  filters: AuditFilters;
  items: ConfirmationRequest[];
  nextCursor: string | null;
  /** The audit chain's newest event, when the gateway keeps a chain. */
  chainHead?: { event_id: number; hash: string; at: string } | null;
}

/** Renders the audit page. */
export function auditPage(options: AuditPageOptions): SafeHtml {
  const { form, errors } = options.filters;
  const input = (name: keyof typeof form, label: string, placeholder: string) =>
    html`<label>${label} <input name="${name}" value="${form[name]}" placeholder="${placeholder}"></label>`;
  const rows = options.items.map(
    (r) => html`<tr>
      <td data-label="Filed"><time datetime="${r.createdAt.toISOString()}">${formatTime(r.createdAt)}</time></td>
      <td data-label="Tool"><a href="/ui/requests/${r.id}"><code>${r.toolName}</code></a></td>
      <td data-label="Agent">${r.agentId ?? ''}</td>
      <td data-label="Status">${statusBadge(r)}</td>
      <td data-label="Decided by">${r.respondedBy ?? ''}${r.respondedByPerson && r.respondedByPerson !== r.respondedBy ? html` <span class="muted">(${r.respondedByPerson})</span>` : ''}${r.onBehalfOf ? html` <span class="muted">for ${r.onBehalfOf}</span>` : ''}</td>
      <td data-label="Outcome" class="outcome">${r.status === 'pending' ? '' : outcomeText(r)}</td>
    </tr>`,
  );
  const head = options.chainHead;
  const chain = head
    ? html`<p class="muted" id="audit-chain">Audit trail: hash-chained up to event #${String(head.event_id)} (<code>${head.hash.slice(0, 16)}…</code>, <time datetime="${head.at}">${formatTime(new Date(head.at))}</time>). <a href="/ui/audit/verify">Verify the chain now</a></p>`
    : '';
  const body = html`<h1>Audit</h1>
${chain}
<form method="get" action="/ui/audit" class="filters card">
  <label>Status <select name="status">
    <option value="">any</option>
    ${REQUEST_STATUSES.map((s) => html`<option value="${s}" ${form.status === s ? html`selected` : ''}>${s}</option>`)}
  </select></label>
  ${input('tool', 'Tool', 'pay_invoice')}
  ${input('agent', 'Agent', 'ops-bot')}
  ${input('approver', 'Approver', 'web:alice')}
  ${input('person', 'Person', 'alice')}
  ${input('group', 'Group', 'finance-leads')}
  <label>Since (UTC) <input name="since" type="datetime-local" value="${form.since}"></label>
  <label>Until (UTC) <input name="until" type="datetime-local" value="${form.until}"></label>
  <div class="buttons">
    <button type="submit" class="primary">Filter</button>
    <a href="/ui/audit">Clear</a>
    <a class="button" id="export-csv" href="/ui/audit/export${filterQueryString(form, { format: 'csv' })}">Export CSV</a>
  </div>
</form>
${errors.length ? html`<ul class="notice bad" role="alert">${errors.map((e) => html`<li>${e.message}</li>`)}</ul>` : ''}
<div class="table-wrap">
<table class="audit records">
  <thead><tr><th>Filed</th><th>Tool</th><th>Agent</th><th>Status</th><th>Decided by</th><th>Outcome</th></tr></thead>
  <tbody>${rows.length ? rows : html`<tr><td colspan="6" class="muted">No requests match.</td></tr>`}</tbody>
</table>
</div>
<nav class="pager">
  ${options.filters.cursor ? html`<a href="/ui/audit${filterQueryString(form)}">← First page</a>` : ''}
  ${options.nextCursor ? html`<a rel="next" id="next-page" href="/ui/audit${filterQueryString(form, { cursor: options.nextCursor })}">Next page →</a>` : ''}
</nav>`;
  return layout({ title: 'Audit', viewer: options.viewer, current: 'audit' }, body);
}
