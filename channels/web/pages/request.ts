/**
 * @module channels/web/pages/request
 * One request: what the agent wants to run, who asks, how long is left, its audit timeline, and the three decision
 * forms (approve, deny with a reason, approve with edited arguments). The forms are plain HTML posts, so they work
 * without JavaScript; each carries the CSRF token, the request's nonce and the hash of the arguments shown, so a
 * decision always applies to exactly what the approver saw.
 */
import { cardText, maskSecrets } from '../../../src/card.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../../../src/requests/types.js';
import { html, type SafeHtml } from '../html.js';
import { countdown, formatTime, statusBadge } from './format.js';
import { layout, type Viewer } from './layout.js';

/** Words for `?notice=` after a decision post: fixed texts, so a crafted link cannot put words on the page. */
export const NOTICES: Record<string, { tone: 'good' | 'bad'; text: string }> = {
  approved: { tone: 'good', text: 'Approved. The agent has its answer.' },
  denied: { tone: 'good', text: 'Denied. The agent has its answer.' },
  recorded: { tone: 'good', text: 'Your approval was recorded; more approvals are needed.' },
  bad_nonce: { tone: 'bad', text: 'This form does not belong to this request any more. Nothing changed.' },
  not_authorized: { tone: 'bad', text: 'You are not an approver of this request. Nothing changed.' },
  self_approval: { tone: 'bad', text: 'You cannot approve your own request. Nothing changed.' },
  already_decided: { tone: 'bad', text: 'This request was already decided. Nothing changed.' },
  duplicate_approval: { tone: 'bad', text: 'Your approval was already recorded.' },
  args_mismatch: { tone: 'bad', text: 'The arguments changed since this page was loaded. Nothing changed.' },
  invalid: { tone: 'bad', text: 'This decision is not valid. Nothing changed.' },
};

/** The arguments editor's state after a rejected edit: the text as typed and what is wrong with it. */
export interface EditState {
  text: string;
  error: string;
}

/** Options of {@link requestPage}. */
export interface RequestPageOptions {
  viewer: Viewer;
  request: ConfirmationRequest;
  events: ConfirmationEvent[];
  now: number;
  notice?: string;
  edit?: EditState;
}

/** Renders a request's page. */
export function requestPage(options: RequestPageOptions): SafeHtml {
  const { request, viewer } = options;
  const text = cardText(request, { maxArgsChars: 20_000 });
  const notice = options.notice ? NOTICES[options.notice] : undefined;
  const row = (label: string, value: unknown) => (value === null || value === undefined || value === '' ? '' : html`<dt>${label}</dt><dd>${value}</dd>`);
  const body = html`<p class="back"><a href="/ui">← Inbox</a></p>
<h1>${text.title}</h1>
${notice ? html`<p class="notice ${notice.tone}" role="status">${notice.text}</p>` : ''}
<div id="live-status" data-live-region>
  <p class="status ${text.tone}">${statusBadge(request)} <span>${text.status}</span></p>
</div>
<section class="card">
  <p class="prompt">${text.prompt}</p>
  <dl class="facts">
    ${row('Tool', html`<code>${text.toolName}</code>`)}
    ${row('Requested by', text.requester)}
    ${row('Session', request.sessionId)}
    ${row('Tool call', request.toolCallId)}
    ${row('Approvers', text.approvers)}
    ${request.requiredApprovals > 1 ? row('Approvals needed', request.requiredApprovals) : ''}
    ${row('Filed', formatTime(request.createdAt))}
    ${row('Expires', countdown(request, options.now))}
    ${row('If nobody answers', request.onTimeout === 'approve' ? 'approved' : 'denied')}
  </dl>
  <h2>Arguments</h2>
  <pre class="args" id="tool-args">${text.argsPreview}</pre>
  ${request.approvedArgs
    ? html`<h2>Approved with edited arguments</h2><pre class="args" id="approved-args">${JSON.stringify(maskSecrets(request.approvedArgs), null, 2)}</pre>`
    : ''}
</section>
<div id="live-actions" data-live-region data-live-final>
${text.actionable ? decisionForms(request, viewer, options.edit) : ''}
</div>
<section class="card" id="timeline" data-live-region>
  <h2>Timeline</h2>
  <ol class="timeline">${options.events.map(timelineEntry)}</ol>
</section>`;
  return layout({ title: text.title, viewer, live: { url: `/ui/requests/${request.id}`, requestId: request.id } }, body);
}

function decisionForms(request: ConfirmationRequest, viewer: Viewer, edit?: EditState): SafeHtml {
  const hidden = html`<input type="hidden" name="_csrf" value="${viewer.csrf}">
      <input type="hidden" name="nonce" value="${request.nonce}">
      <input type="hidden" name="args_sha256" value="${request.argsSha256}">`;
  const action = `/ui/requests/${request.id}/decision`;
  const [approveLabel = 'Approve', denyLabel = 'Deny'] = request.options;
  const editText = edit?.text ?? JSON.stringify(maskSecrets(request.toolArgs), null, 2);
  return html`<section class="card actions">
    <h2>Decide as web:${viewer.user}</h2>
    <div class="buttons">
      <form method="post" action="${action}" class="inline" id="approve-form">
        ${hidden}
        <input type="hidden" name="decision" value="approve">
        <button type="submit" class="primary">${approveLabel}</button>
      </form>
      <form method="post" action="${action}" class="deny" id="deny-form">
        ${hidden}
        <input type="hidden" name="decision" value="deny">
        <label>Reason <input name="reason" maxlength="2000" placeholder="optional: tell the agent why"></label>
        <button type="submit" class="danger">${denyLabel}</button>
      </form>
    </div>
    <details ${edit ? html`open` : ''}>
      <summary>${approveLabel} with edited arguments</summary>
      <form method="post" action="${action}" class="stack" id="edit-form">
        ${hidden}
        <input type="hidden" name="decision" value="approve">
        <input type="hidden" name="edit" value="1">
        ${edit ? html`<p class="notice bad" role="alert" id="edit-error">${edit.error}</p>` : ''}
        <label>Arguments (a JSON object; values shown as •••• keep their original secret)
          <textarea name="approved_args" rows="12" spellcheck="false" required>${editText}</textarea></label>
        <label>Note <input name="reason" maxlength="2000" placeholder="optional: what you changed and why"></label>
        <button type="submit" class="primary">${approveLabel} edited arguments</button>
      </form>
    </details>
  </section>`;
}

function timelineEntry(event: ConfirmationEvent): SafeHtml {
  // Empty values (a web card's blank target and null reference) say nothing to a reader.
  const shown = Object.entries(maskSecrets(event.detail) as Record<string, unknown>).filter(([, v]) => v !== null && v !== '' && v !== undefined);
  const detail = shown.map(([k, v]) => `${k.replace(/_/g, ' ')}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' · ');
  return html`<li class="event ${event.type}">
    <time datetime="${event.at.toISOString()}">${formatTime(event.at)}</time>
    <strong>${event.type.replace(/_/g, ' ')}</strong>
    ${event.actor ? html`<span>by ${event.actor}</span>` : ''}
    ${event.channel ? html`<span class="muted">via ${event.channel}</span>` : ''}
    ${detail ? html`<code class="detail">${detail}</code>` : ''}
  </li>`;
}
