/**
 * @module channels/web/pages/format
 * Small pieces the pages share: the card's words, times, status badges, expiry countdowns.
 */
import { agentPrompt, cardText, type CardText, type CardTextOptions } from '../../../src/channel/card.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { utcText } from '../../../src/utils/utc-time.js';
import { html, type SafeHtml } from '../html.js';

/**
 * The card's words for a page. The card's own preview pretty-prints every argument before cutting, and the pages
 * write their own bounded view instead, so the card model gets no arguments; but a coding agent's sentence names the
 * command or path it reads from them ("Codex wants to run `terraform apply`"), so that sentence gets the real ones.
 */
export function pageCardText(request: ConfirmationRequest, options: CardTextOptions = {}): CardText {
  const text = cardText({ ...request, toolArgs: {} }, options);
  if (request.prompt !== null || !request.agentKind) return text;
  return { ...text, prompt: agentPrompt(request) };
}

/** `2025-06-01 14:03:22 UTC`: unambiguous for auditors in any time zone. */
export function formatTime(date: Date | null): string {
  if (!date) return '';
  return utcText(date);
}

/** `4m 05s`, `2h 10m`, `3d 4h`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

/** A coloured status word. */
export function statusBadge(request: ConfirmationRequest): SafeHtml {
  const tone = request.status === 'pending' ? 'waiting' : request.allowed ? 'good' : 'bad';
  return html`<span class="badge ${tone}">${request.status}</span>`;
}

/** The expiry as a relative countdown and, beside it, the absolute UTC time (a relative time alone means nothing in a screenshot or a printout). */
export function expiryBoth(request: ConfirmationRequest, now: number): SafeHtml {
  if (request.status !== 'pending') return countdown(request, now);
  return html`${countdown(request, now)} <span class="muted expires-at">(${formatTime(request.expiresAt)})</span>`;
}

/** The time left before expiry; the page script keeps it ticking, and without script it still reads right at load. */
export function countdown(request: ConfirmationRequest, now: number): SafeHtml {
  const left = request.expiresAt.getTime() - now;
  const iso = request.expiresAt.toISOString();
  if (request.status !== 'pending') return html`<time datetime="${iso}">${formatTime(request.expiresAt)}</time>`;
  return html`<time datetime="${iso}" data-expires="${iso}" title="${formatTime(request.expiresAt)}">${left > 0 ? `expires in ${formatDuration(left)}` : 'expiring now'}</time>`;
}
