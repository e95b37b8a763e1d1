/**
 * @module channels/web/pages/inbox
 * The inbox: every pending request, newest first. The page script re-renders the list from the server whenever the
 * change feed says a request was filed or decided, so it stays current without a reload. Decisions are made on
 * each request's own page: buttons in a list that reflows live would invite approving the wrong row.
 */
import { cardText } from '../../../src/card.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { html, type SafeHtml } from '../html.js';
import { expiryBoth, formatTime } from './format.js';
import { layout, type Viewer } from './layout.js';

/** Renders the inbox. `more` is true when there are more pending requests than shown. */
export function inboxPage(viewer: Viewer, pending: ConfirmationRequest[], now: number, more: boolean, nudged: ReadonlyMap<string, 'reminded' | 'escalated'> = new Map()): SafeHtml {
  const items = pending.map((request) => {
    // The inbox shows no arguments: skip the card's preview of them, which costs their full size.
    const text = cardText({ ...request, toolArgs: {} });
    // A policy reminder or escalation singles the request out: it has waited longer than its rule allows.
    const nudge = nudged.get(request.id);
    return html`<li class="card item${nudge ? ' nudged' : ''}" data-request-id="${request.id}">
      <a class="title" href="/ui/requests/${request.id}">${text.title}</a>
      ${nudge ? html`<p class="notice bad nudge">${nudge === 'escalated' ? 'Escalated: still waiting after its reminder' : 'Reminder: still waiting for a decision'}</p>` : ''}
      <p class="prompt">${text.prompt}</p>
      <p class="meta">
        <span>tool <code>${text.toolName}</code></span>
        ${text.requester ? html`<span>${text.requester}</span>` : ''}
        <span>filed ${formatTime(request.createdAt)}</span>
        <span>${expiryBoth(request, now)}</span>
      </p>
      ${request.requiredApprovals > 1 ? html`<p class="meta">${text.status}</p>` : ''}
      ${viewer.mayDecide(request)
        ? html`<a class="button" href="/ui/requests/${request.id}">Review</a>`
        : html`<p class="meta not-approver">You are not an approver of this request (approvers: ${text.approvers}). <a href="/ui/requests/${request.id}">View</a></p>`}
    </li>`;
  });
  const body = html`<h1>Inbox</h1>
<div id="inbox" data-live-region>
  <p class="muted" id="inbox-count">${pending.length === 0 ? 'Nothing is waiting for a decision.' : `${pending.length}${more ? '+' : ''} waiting for a decision.`}</p>
  <ul class="items">${items}</ul>
  ${more ? html`<p class="muted">Older pending requests are in the <a href="/ui/audit?status=pending">audit view</a>.</p>` : ''}
</div>`;
  return layout({ title: 'Inbox', viewer, current: 'inbox', live: { url: '/ui' } }, body);
}
