/**
 * @module channels/web/pages/request
 * One request: what the agent wants to run, who asks, how long is left, its audit timeline, and the three decision
 * forms (approve, deny with a reason, approve with edited arguments). The forms are plain HTML posts, so they work
 * without JavaScript; each carries the CSRF token, the request's nonce and the hash of the arguments shown, so a
 * decision always applies to exactly what the approver saw.
 */
import { standInsOf } from '../../../src/channel/card.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../../../src/requests/types.js';
import { editorText } from '../decision-form.js';
import { html, type SafeHtml } from '../html.js';
import { executionOf, type ExecutionView } from '../../../src/requests/export-lines.js';
import { boundedJson, type JsonViewLimits } from '../../../src/utils/json-view.js';
import { expiryBoth, formatTime, pageCardText, statusBadge } from './format.js';
import { layout, type Viewer } from './layout.js';
import { timelineEntry } from './timeline.js';
import { markdown } from './markdown.js';
import { DIFF_STYLESHEET } from './summary.js';

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
  groups_stale: {
    tone: 'bad',
    text: 'The groups your sign-in brought from the identity provider are too old to count. Sign in again to refresh them, then decide. Nothing changed.',
  },
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
  /** The call summary's section ({@link summarySection}), rendered ahead because its diff library loads on demand. */
  summary?: SafeHtml | string;
  /** Standing grants the request's policy rule offers, shown as extra approve buttons. */
  grants?: { label: string; ttl_s: number; scope: string[] }[];
}

/** What the page shows of arguments: deep enough for any real call, short enough to render at once. */
const SHOWN: JsonViewLimits = { maxDepth: 16, maxChars: 20_000, indent: 2, maskLines: true };
/**
 * The raw view: compact, no depth limit (the writer does not recurse), cut at this many characters, secrets masked
 * inside strings too (a token in a command line is as secret as an `api_key` value).
 */
export const RAW: JsonViewLimits = {
  maxDepth: Number.POSITIVE_INFINITY,
  maxChars: 100_000,
  indent: 0,
  maskLines: true,
};

/** Arguments, bounded, with the way to the raw view when something was left out. */
function argsBlock(id: string, preId: string, value: unknown): SafeHtml {
  const view = boundedJson(value, SHOWN);
  return html`<pre class="args" id="${preId}">${view.text}</pre>
  ${view.truncated ? html`<p class="notice muted truncated">Too large to show in full: truncated — <a href="/ui/requests/${id}/raw">show raw</a>.</p>` : ''}`;
}

/** Renders a request's page. */
export function requestPage(options: RequestPageOptions): SafeHtml {
  const { request, viewer } = options;
  const text = pageCardText(request, { standIns: standInsOf(request) });
  const notice = options.notice ? NOTICES[options.notice] : undefined;
  const row = (label: string, value: unknown) =>
    value === null || value === undefined || value === '' ? '' : html`<dt>${label}</dt><dd>${value}</dd>`;
  const body = html`<p class="back"><a href="/ui">← Inbox</a></p>
<h1>${text.title}</h1>
${notice ? html`<p class="notice ${notice.tone}" role="status">${notice.text}</p>` : ''}
<div id="live-status" data-live-region>
  <p class="status ${text.tone}">${statusBadge(request)} <span>${text.status}</span></p>
</div>
<section class="card">
  <div class="prompt">${markdown(text.prompt)}</div>
  <dl class="facts">
    ${row('Tool', html`<code>${text.toolName}</code>`)}
    ${row('Requested by', text.requester)}
    ${row('Session', request.sessionId)}
    ${row('Tool call', request.toolCallId)}
    ${row('Approvers', text.approvers)}
    ${request.requiredApprovals > 1 ? row('Approvals needed', request.requiredApprovals) : ''}
    ${row('Filed', formatTime(request.createdAt))}
    ${row('Expires', expiryBoth(request, options.now))}
    ${row('If nobody answers', request.onTimeout === 'approve' ? 'approved' : 'denied')}
  </dl>
</section>
${options.summary ?? ''}
<section class="card">
  <div class="side-by-side" id="proposed-approved-executed">
    <div><h2>Proposed</h2>${argsBlock(request.id, 'tool-args', request.toolArgs)}</div>
    <div id="approved"><h2>Approved</h2>${approvedColumn(request)}</div>
    <div id="executed"><h2>Executed</h2>${executedColumn(request, executionOf(options.events))}</div>
  </div>
</section>
<div id="live-actions" data-live-region data-live-final>
${
  !text.actionable
    ? ''
    : viewer.mayDecide(request)
      ? decisionForms(request, viewer, options.edit, options.grants ?? [])
      : html`<section class="card actions" id="not-approver"><p class="notice bad">You are not an approver of this request: you are signed in as ${viewer.user}, and only ${text.approvers} may decide it.${viewer.identity?.staleGroups.length ? html` The groups your sign-in brought (${viewer.identity.staleGroups.join(', ')}) are too old to count: <a href="/ui/auth/login?next=/ui/requests/${request.id}">sign in again</a> to refresh them.` : ''}</p></section>`
}
</div>
<section class="card" id="timeline" data-live-region>
  <h2>Timeline</h2>
  <ol class="timeline">${options.events.map(timelineEntry)}</ol>
</section>`;
  const diffs = request.summary?.files?.some((f) => f.diff);
  return layout(
    {
      title: text.title,
      viewer,
      live: { url: `/ui/requests/${request.id}`, requestId: request.id },
      ...(diffs ? { assets: { styles: [DIFF_STYLESHEET] } } : {}),
    },
    body,
  );
}

/** What was approved: the edited arguments, the proposed ones as they were, or why nothing was. */
function approvedColumn(request: ConfirmationRequest): SafeHtml {
  if (request.approvedArgs)
    return html`<p class="muted">With edited arguments:</p>${argsBlock(request.id, 'approved-args', request.approvedArgs)}`;
  if (request.allowed === true)
    return html`<p>As proposed${request.respondedBy ? html`, by ${request.respondedBy}` : ''}.</p>`;
  if (request.status === 'pending') return html`<p class="muted">Not yet: waiting for a decision.</p>`;
  return html`<p>Nothing: ${request.status}.</p>`;
}

/** What the runtime reported after running the tool (its receipt), compared with what was approved. */
function executedColumn(request: ConfirmationRequest, run: ExecutionView | null): SafeHtml {
  if (!run)
    return html`<p class="muted">${request.allowed === true ? 'No receipt reported yet.' : 'Nothing reported.'}</p>`;
  const match =
    run.args_match === null
      ? html`<p class="muted">The runtime did not report which arguments ran.</p>`
      : run.args_match
        ? html`<p class="good">With the approved arguments (SHA-256 matches).</p>`
        : html`<p class="notice bad">With arguments that differ from the approved ones (SHA-256 <code>${run.args_sha256}</code>).</p>`;
  return html`<p class="${run.outcome === 'executed' ? 'good' : 'bad'}">${run.outcome === 'executed' ? 'Ran' : 'Failed'} at ${formatTime(new Date(run.at))}${run.by ? html`, reported by ${run.by}` : ''}.</p>
    ${match}
    ${run.allowed === false ? html`<p class="notice bad">It ran although the request was not approved.</p>` : ''}
    ${run.detail ? html`<pre class="args">${run.detail.slice(0, 4000)}</pre>` : ''}`;
}

function decisionForms(
  request: ConfirmationRequest,
  viewer: Viewer,
  edit: EditState | undefined,
  grants: NonNullable<RequestPageOptions['grants']>,
): SafeHtml {
  const hidden = html`<input type="hidden" name="_csrf" value="${viewer.csrf}">
      <input type="hidden" name="nonce" value="${request.nonce}">
      <input type="hidden" name="args_sha256" value="${request.argsSha256}">`;
  const action = `/ui/requests/${request.id}/decision`;
  const [approveLabel = 'Approve', denyLabel = 'Deny'] = request.options;
  const editable = editorText(request.toolArgs);
  const editText = edit?.text ?? editable.text;
  return html`<section class="card actions">
    <h2>Decide as ${viewer.identity?.account ?? viewer.user}</h2>
    <form method="post" action="${action}" class="decide" id="decision-form">
      ${hidden}
      <label>Reason <textarea name="reason" rows="2" maxlength="2000" placeholder="optional: the agent and the audit trail see it, whichever button you press"></textarea></label>
      <div class="buttons">
        <button type="submit" class="primary" name="decision" value="approve" id="approve-button">${approveLabel}</button>
        ${grants.map(
          (g) =>
            html`<button type="submit" class="primary grant-button" name="grant" value="${g.label}" title="Also approves later requests with the same ${g.scope.join(', ')} for ${Math.round(g.ttl_s / 60)} min">${g.label}</button>`,
        )}
        <button type="submit" class="danger" name="decision" value="deny" id="deny-button">${denyLabel}</button>
      </div>
    </form>
    ${
      editable.truncated && !edit
        ? html`<p class="muted" id="edit-unavailable">These arguments are too large or too deeply nested to edit here.</p>`
        : html`<details ${edit ? html`open` : ''}>
      <summary>${approveLabel} with edited arguments</summary>
      <form method="post" action="${action}" class="stack" id="edit-form">
        ${hidden}
        <input type="hidden" name="decision" value="approve">
        <input type="hidden" name="edit" value="1">
        ${edit ? html`<p class="notice bad" role="alert" id="edit-error">${edit.error}</p>` : ''}
        <label>Arguments (a JSON object; a value left as shown keeps its original, secrets included — replace a value holding •••• whole, or leave it)
          <textarea name="approved_args" rows="12" spellcheck="false" required>${editText}</textarea></label>
        <label>Note <input name="reason" maxlength="2000" placeholder="optional: what you changed and why"></label>
        <button type="submit" class="primary">${approveLabel} edited arguments</button>
      </form>
    </details>`
    }
  </section>`;
}

/** The raw arguments (and edited arguments) as compact JSON, secrets masked, cut at {@link RAW}'s size. */
export function rawArgsPage(viewer: Viewer, request: ConfirmationRequest): SafeHtml {
  const block = (title: string, value: unknown) => {
    const view = boundedJson(value, RAW);
    return html`<h2>${title}</h2><pre class="args raw">${view.text}</pre>
    ${view.truncated ? html`<p class="notice muted">The raw view is cut at ${RAW.maxChars.toLocaleString('en')} characters; the full value is in the database row.</p>` : ''}`;
  };
  const body = html`<p class="back"><a href="/ui/requests/${request.id}">← Request</a></p>
<h1>Raw arguments: ${request.toolName}</h1>
<section class="card">
  ${block('Arguments', request.toolArgs)}
  ${request.approvedArgs ? block('Approved with edited arguments', request.approvedArgs) : ''}
</section>`;
  return layout({ title: `Raw arguments: ${request.toolName}`, viewer }, body);
}
