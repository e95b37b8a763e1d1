/**
 * @module channels/web/pages/grants
 * Standing grants in force ("approve for an hour"), with who gave them, for what, until when, how often they were
 * used, and a Revoke button each. Revoking only ever makes tollgate stricter, so every signed-in user may; the
 * revocation is recorded on the request that gave the grant.
 */
import type { Grant } from '../../../src/policy/grants.js';
import { html, type SafeHtml } from '../html.js';
import { formatTime } from './format.js';
import { layout, type Viewer } from './layout.js';

/** Renders the grants page; `notice` is a fixed text after a revocation. */
export function grantsPage(viewer: Viewer, grants: Grant[], notice?: 'revoked' | 'gone'): SafeHtml {
  const rows = grants.map(
    (g) => html`<tr data-grant-id="${g.id}">
      <td>${g.label}</td>
      <td><code>${g.rule}</code></td>
      <td>${Object.entries(g.scope).map(([k, v]) => html`<div><code>${k}</code> = <code>${JSON.stringify(v)}</code></div>`)}</td>
      <td>${g.createdBy}<br><a href="/ui/requests/${g.requestId}">${formatTime(g.createdAt)}</a></td>
      <td>${formatTime(g.expiresAt)}</td>
      <td>${String(g.uses)}</td>
      <td><form method="post" action="/ui/grants/${g.id}/revoke" class="inline">
        <input type="hidden" name="_csrf" value="${viewer.csrf}">
        <button type="submit" class="danger">Revoke</button>
      </form></td>
    </tr>`,
  );
  const message =
    notice === 'revoked'
      ? 'Revoked. Later requests are asked again.'
      : notice === 'gone'
        ? 'That grant had already ended. Nothing changed.'
        : null;
  const body = html`<h1>Standing grants</h1>
${message ? html`<p class="notice good" role="status">${message}</p>` : ''}
${
  grants.length === 0
    ? html`<p class="muted" id="no-grants">No standing grant is in force.</p>`
    : html`<table class="audit" id="grants">
  <thead><tr><th>Grant</th><th>Rule</th><th>For</th><th>Given</th><th>Until</th><th>Uses</th><th></th></tr></thead>
  <tbody>${rows}</tbody>
</table>`
}`;
  return layout({ title: 'Standing grants', viewer, current: 'grants' }, body);
}
