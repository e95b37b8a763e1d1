/**
 * @module channels/web/pages/suggestions
 * The suggested rules page (`/ui/insights/suggestions`): each call people always approved, as the `allow` rule that
 * would have spared them, with its evidence and the nearest denied call it does not cover. Read-only: a rule goes into
 * the policy file, or becomes a standing grant through the API (`POST /v1/insights/suggestions/:id/apply`, admin),
 * since the web inbox has no notion of an administrator.
 */
import type { SuggestionJson } from '../../../src/insights/suggestions.js';
import { html, type SafeHtml } from '../html.js';
import { layout, type Viewer } from './layout.js';

/** Options of {@link suggestionsPage}. */
export interface SuggestionsPageOptions {
  viewer: Viewer;
  form: { since: string; until: string; min: string };
  suggestions: SuggestionJson[] | null;
  error?: string;
}

function item(s: SuggestionJson): SafeHtml {
  const denied = s.nearest_denied;
  return html`<li class="card suggestion" id="suggestion-${s.id}">
  <h2>${s.summary}</h2>
  <p class="meta"><span>would have approved <strong>${String(s.would_auto_approve)}</strong> requests at once</span><span>${String(s.approver_minutes_saved)} approver minutes saved</span><span>approved by ${s.approvers.join(', ')}</span></p>
  <pre class="args">${s.rule}</pre>
  <p class="muted">${denied ? html`Nearest denied call it does not cover: <a href="/ui/requests/${denied.id}"><code>${denied.tool_name}</code></a> denied by ${denied.responded_by_person ?? 'nobody'}${denied.reason ? html` (“${denied.reason}”)` : ''}.` : 'No call of this tool was denied in the window.'}
  ${s.grantable ? html`Can become a standing grant: <code>POST /v1/insights/suggestions/${s.id}/apply</code>.` : 'Matches by leading words: put it in the policy file.'}</p>
</li>`;
}

/** Renders the suggested rules page. */
export function suggestionsPage(options: SuggestionsPageOptions): SafeHtml {
  const { form } = options;
  const list = options.suggestions;
  const body = html`<h1>Suggested rules</h1>
<p class="muted">Calls people approved at least ${form.min || '10'} times in the window with no denial, no edited arguments and no expiry, each as the policy rule that would have allowed them at once. Nothing is applied by itself. <a href="/ui/insights">Back to insights</a></p>
<form method="get" action="/ui/insights/suggestions" class="filters card">
  <label>Since <input name="since" type="date" value="${form.since}"></label>
  <label>Until <input name="until" type="date" value="${form.until}"></label>
  <label>At least <input name="min" type="number" min="1" value="${form.min || '10'}"></label>
  <div class="buttons"><button type="submit" class="primary">Show</button></div>
</form>
${options.error ? html`<p class="notice bad" role="alert">${options.error}</p>` : ''}
${list ? (list.length ? html`<ol class="suggestions">${list.map(item)}</ol>` : html`<p class="muted" id="no-suggestions">No call qualifies in this window.</p>`) : ''}`;
  return layout({ title: 'Suggested rules', viewer: options.viewer, current: 'insights' }, body);
}
