/**
 * @module channels/web/pages/inbox
 * The inbox: tabs for what waits for me, what I decided, what was filed for me, and every pending request, newest
 * first. Each entry shows the prompt (its markdown rendered safely), the call summary's risk and first lines, and the
 * key arguments where the summary does not read the call, masked and cut as on cards,
 * so most requests can be judged before opening them. The page script re-renders the list (and the count in the tab
 * title) from the server whenever the change feed says a request was filed or decided. Decisions are made on each
 * request's own page: buttons in a list that reflows live would invite approving the wrong row.
 */
import { keyArguments, standInsOf } from '../../../src/channel/card.js';
import { standInText } from '../../../src/people/away.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { html, type SafeHtml } from '../html.js';
import type { InboxView } from '../inbox-views.js';
import { expiryBoth, formatTime, pageCardText, statusBadge } from './format.js';
import { layout, type Viewer } from './layout.js';
import { markdown } from './markdown.js';
import { inboxSummary } from './summary.js';

/** Options of {@link inboxPage}. */
export interface InboxPageOptions {
  viewer: Viewer;
  view: InboxView;
  items: ConfirmationRequest[];
  /** More rows exist than shown. */
  more: boolean;
  now: number;
  /** Requests a policy reminded or escalated. */
  nudged?: ReadonlyMap<string, 'reminded' | 'escalated'>;
  /** How many requests wait for the viewer (shown in the tab title and on its tab); null when unknown. */
  waiting: { count: number; more: boolean } | null;
}

const TABS: Record<InboxView, { label: string; heading: string; empty: string }> = {
  waiting: { label: 'Waiting for me', heading: 'Waiting for you', empty: 'Nothing is waiting for you.' },
  decided: { label: 'I decided', heading: 'You decided', empty: 'You have not decided any request yet.' },
  filed: { label: 'Filed for me', heading: 'Filed for you', empty: 'No request was filed for you.' },
  all: { label: 'All pending', heading: 'All pending', empty: 'Nothing is waiting for a decision.' },
};

function entry(
  viewer: Viewer,
  request: ConfirmationRequest,
  now: number,
  nudge: 'reminded' | 'escalated' | undefined,
): SafeHtml {
  // The inbox shows a few key arguments, not the card's preview of them all.
  const standIns = standInsOf(request);
  const text = pageCardText(request, { standIns });
  const args = keyArguments(request.toolArgs);
  const pending = request.status === 'pending';
  // Who stands in for whom: what makes a request waiting for someone away show up in their delegate's inbox.
  const mine = standIns.filter((s) => s.delegate === viewer.identity?.person);
  return html`<li class="card item${nudge ? ' nudged' : ''}" data-request-id="${request.id}">
      <a class="title" href="/ui/requests/${request.id}">${text.title}</a>
      ${nudge ? html`<p class="notice bad nudge">${nudge === 'escalated' ? 'Escalated: still waiting after its reminder' : 'Reminder: still waiting for a decision'}</p>` : ''}
      <div class="prompt">${markdown(text.prompt)}</div>
      ${inboxSummary(request.summary, args.length ? html`<dl class="facts key-args">${args.map(([name, value]) => html`<dt>${name}</dt><dd><code>${value}</code></dd>`)}</dl>` : '')}
      <p class="meta">
        <span>tool <code>${text.toolName}</code></span>
        ${text.requester ? html`<span>${text.requester}</span>` : ''}
        <span>filed ${formatTime(request.createdAt)}</span>
        ${pending ? html`<span>${expiryBoth(request, now)}</span>` : ''}
      </p>
      ${pending && standIns.length ? html`<p class="meta stand-in">${(mine.length ? mine : standIns).map((s) => standInText(s)).join('; ')}</p>` : ''}
      ${!pending ? html`<p class="meta">${statusBadge(request)} <span>${text.status}</span></p>` : request.requiredApprovals > 1 ? html`<p class="meta">${text.status}</p>` : ''}
      ${
        !pending
          ? ''
          : viewer.mayDecide(request)
            ? html`<a class="button" href="/ui/requests/${request.id}">Review</a>`
            : html`<p class="meta not-approver">You are not an approver of this request (approvers: ${text.approvers}). <a href="/ui/requests/${request.id}">View</a></p>`
      }
    </li>`;
}

function countLine(options: InboxPageOptions): string {
  const n = options.items.length;
  const plus = options.more ? '+' : '';
  switch (options.view) {
    case 'waiting':
      return n === 0 ? TABS.waiting.empty : `${n}${plus} waiting for you.`;
    case 'all':
      return n === 0 ? TABS.all.empty : `${n}${plus} waiting for a decision.`;
    default:
      return n === 0 ? TABS[options.view].empty : `${n}${plus} shown, newest first.`;
  }
}

/** Renders the inbox. */
export function inboxPage(options: InboxPageOptions): SafeHtml {
  const { viewer, view, waiting } = options;
  const nudged = options.nudged ?? new Map<string, 'reminded' | 'escalated'>();
  const waitingText = waiting ? `${waiting.count}${waiting.more ? '+' : ''}` : '';
  const tabs = (Object.keys(TABS) as InboxView[]).map(
    (tab) =>
      html`<a href="/ui?view=${tab}" ${tab === view ? html`aria-current="page"` : ''}>${TABS[tab].label}${tab === 'waiting' && waiting ? html` <span class="count" id="waiting-count">${waitingText}</span>` : ''}</a>`,
  );
  const body = html`<h1>Inbox</h1>
<div id="inbox" data-live-region>
  <nav class="tabs" aria-label="Inbox views">${tabs}</nav>
  <h2>${TABS[view].heading}</h2>
  <p class="muted" id="inbox-count">${countLine(options)}</p>
  <ul class="items">${options.items.map((r) => entry(viewer, r, options.now, nudged.get(r.id)))}</ul>
  ${options.more ? html`<p class="muted">Older requests are in the <a href="/ui/audit${view === 'all' ? '?status=pending' : ''}">audit view</a>.</p>` : ''}
</div>`;
  // The count in the tab title lets a person see from another tab that something waits for them.
  const title = waiting && waiting.count > 0 ? `(${waitingText}) Inbox` : 'Inbox';
  return layout({ title, viewer, current: 'inbox', live: { url: `/ui?view=${view}` } }, body);
}
