/**
 * @module channels/web/pages/timeline
 * A request's audit events as sentences ("Filed; policy rule default asked for a decision", "Shown in the web inbox",
 * "Approved by web:alice through web"), instead of their raw detail (`policy: {"rule":"default",…}`, `attempt: 0`).
 * Event detail is partly attacker-controlled (reasons, errors): it only ever reaches the page as escaped text, cut
 * short, with secret-looking values masked. An event this file has no words for keeps the generic `key: value` form.
 */
import { boundedJson, maskSecretsShown } from '../../../src/utils/json-view.js';
import type { ConfirmationEvent } from '../../../src/requests/types.js';
import { html, type SafeHtml } from '../html.js';
import { formatTime } from './format.js';

const MAX = 300;

function text(value: unknown, key = ''): string {
  if (value === null || value === undefined) return '';
  const shown =
    typeof value === 'string'
      ? String(maskSecretsShown(value, key))
      : boundedJson(value, { maxDepth: 3, maxChars: MAX, indent: 0, maskLines: true }, key).text;
  return shown.length > MAX ? `${shown.slice(0, MAX - 1)}…` : shown;
}

const list = (value: unknown) => (Array.isArray(value) ? value.map((v) => text(v)).join(', ') : text(value));
const by = (e: ConfirmationEvent) =>
  (e.actor ? ` by ${e.actor}` : '') +
  (e.channel && !e.actor?.startsWith(`${e.channel}:`) ? ` through ${e.channel}` : '');
const quoted = (value: unknown, key: string) => (value ? `: “${text(value, key)}”` : '');
const retry = (d: Record<string, unknown>) =>
  d.will_retry === true ? '; will try again' : d.will_retry === false ? '; gave up' : '';
const attempt = (d: Record<string, unknown>) =>
  typeof d.attempt === 'number' && d.attempt > 1 ? ` (attempt ${d.attempt})` : '';

/** The sentence for one event; null when there are no words for it (the generic form is used). */
export function eventSentence(e: ConfirmationEvent): string | null {
  const d = e.detail;
  switch (e.type) {
    case 'created': {
      const policy = d.policy as { rule?: unknown; decision?: unknown } | undefined;
      const rule = policy?.rule
        ? `; policy rule ${text(policy.rule)} ${policy.decision === 'ask' || !policy.decision ? 'asked for a decision' : `said ${text(policy.decision)}`}`
        : '';
      return `Filed${e.actor ? ` by ${e.actor}` : ''}${rule}`;
    }
    case 'delivered':
      return e.channel === 'web'
        ? 'Shown in the web inbox'
        : `Sent to ${e.channel ?? 'a channel'}${d.target ? ` (${text(d.target)})` : ''}${attempt(d)}`;
    case 'delivery_failed':
      return `Could not be sent to ${e.channel ?? 'a channel'}${attempt(d)}${quoted(d.error, 'error')}${retry(d)}`;
    case 'update_failed':
      return `The card on ${e.channel ?? 'a channel'} could not be updated${quoted(d.error, 'error')}${retry(d)}`;
    case 'reminded':
      return `Reminder sent: still waiting${Array.isArray(d.approvers) && d.approvers.length ? ` for ${list(d.approvers)}` : ''}`;
    case 'escalated':
      return `Escalated${Array.isArray(d.added_approvers) && d.added_approvers.length ? `: ${list(d.added_approvers)} may now decide too` : ''}`;
    case 'decision_rejected':
      return `A decision${by(e)} was refused${quoted(d.message, 'message')}`;
    case 'approved':
    case 'denied':
      return `${e.type === 'approved' ? 'Approved' : 'Denied'}${by(e)}${quoted(d.reason, 'reason')}`;
    case 'expired':
      return `Expired: nobody decided in time${d.option ? ` (${text(d.option)} by default)` : ''}`;
    case 'cancelled':
      return `Cancelled${by(e)}${quoted(d.reason, 'reason')}`;
    case 'callback_sent':
      return `The agent’s callback answered${d.status ? ` HTTP ${text(d.status)}` : ''}`;
    case 'callback_failed':
      return `The agent’s callback failed${d.status ? ` (HTTP ${text(d.status)})` : ''}${quoted(d.error, 'error')}${retry(d)}`;
    case 'executed':
    case 'post_call':
      return `The runtime reported that the tool ran${by(e)}`;
    case 'execution_failed':
      return `The runtime reported that the tool failed${by(e)}${quoted(d.detail, 'detail')}`;
    case 'grant_created':
      return `Standing grant ${d.label ? `“${text(d.label)}” ` : ''}given${by(e)}${d.expires_at ? `, until ${text(d.expires_at)}` : ''}`;
    case 'grant_revoked':
      return `Standing grant ${d.label ? `“${text(d.label)}” ` : ''}revoked${by(e)}`;
    default:
      return null;
  }
}

/** The generic form: `key: value` pairs, empty ones left out. */
function genericDetail(e: ConfirmationEvent): string {
  return Object.entries(e.detail)
    .filter(([, v]) => v !== null && v !== '' && v !== undefined)
    .slice(0, 20)
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${text(v, k)}`)
    .join(' · ');
}

/** One timeline entry: the time, the event's kind, and its sentence. */
export function timelineEntry(event: ConfirmationEvent): SafeHtml {
  const sentence = eventSentence(event);
  const detail = sentence === null ? genericDetail(event) : '';
  return html`<li class="event ${event.type}">
    <time datetime="${event.at.toISOString()}">${formatTime(event.at)}</time>
    <strong class="kind">${event.type.replace(/_/g, ' ')}</strong>
    ${sentence !== null ? html`<span class="sentence">${sentence}.</span>` : html`${event.actor ? html`<span>by ${event.actor}</span>` : ''}${event.channel ? html`<span class="muted">via ${event.channel}</span>` : ''}`}
    ${detail ? html`<code class="detail">${detail}</code>` : ''}
  </li>`;
}
