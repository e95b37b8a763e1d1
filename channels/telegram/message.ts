/**
 * @module channels/telegram/message
 * The Telegram layout of a tollgate card: one HTML-formatted message with an inline keyboard while it is pending.
 * The words come from `cardText()` (src/channel/card.ts); this file only lays them out. Every string from a request is
 * attacker-controlled: it is escaped for Telegram's HTML parse mode (`<`, `>`, `&`), so a tool name, argument or
 * prompt can neither add markup (links, bold) nor break the message (Telegram refuses HTML it cannot parse).
 */
import { cardText, type CardText } from '../../src/channel/card.js';
import { summaryLines } from '../../src/channel/card-summary.js';
import type { GrantButton } from '../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';

/** One inline keyboard button: its label and the `callback_data` Telegram hands back on a tap. */
export interface InlineButton {
  text: string;
  callback_data: string;
}

/** What `sendMessage` and `editMessageText` get besides the chat and message ids. */
export interface TelegramMessage {
  text: string;
  parse_mode: 'HTML';
  /** Present while the card is pending; absent once final, which removes the keyboard on edit. */
  reply_markup?: { inline_keyboard: InlineButton[][] };
  link_preview_options: { is_disabled: true };
}

/** What a button stands for: an option of the request (by index) or a standing grant its rule offers (by index). */
export interface ButtonRef {
  requestId: string;
  nonce: string;
  action: { kind: 'option' | 'grant'; index: number };
}

/** Telegram's limit on `callback_data`, in bytes. */
export const MAX_CALLBACK_DATA = 64;

const UUID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;

/**
 * Encodes `callback_data`: `o0:<request id>:<nonce>` (option 0), `g1:…` (grant 1). A UUID request id loses its dashes,
 * so id (32) and nonce (24) fit Telegram's 64 bytes with room for the action; nothing is kept on our side, so a
 * button still works after a restart or on another replica.
 */
export function callbackData(request: Pick<ConfirmationRequest, 'id' | 'nonce'>, action: ButtonRef['action']): string {
  const id = UUID.test(request.id) ? request.id.replace(/-/g, '') : request.id;
  return `${action.kind === 'option' ? 'o' : 'g'}${action.index}:${id}:${request.nonce}`;
}

/** Decodes `callback_data`; null when it is not one of ours. */
export function parseCallbackData(value: unknown): ButtonRef | null {
  if (typeof value !== 'string' || Buffer.byteLength(value) > MAX_CALLBACK_DATA) return null;
  const match = /^([og])(\d{1,2}):([\w-]{1,40}):([\w-]{1,40})$/.exec(value);
  if (!match) return null;
  const compact = /^[0-9a-f]{32}$/.exec(match[3]!)?.[0];
  const requestId = compact
    ? `${compact.slice(0, 8)}-${compact.slice(8, 12)}-${compact.slice(12, 16)}-${compact.slice(16, 20)}-${compact.slice(20)}`
    : match[3]!;
  return {
    requestId,
    nonce: match[4]!,
    action: { kind: match[1] === 'o' ? 'option' : 'grant', index: Number(match[2]) },
  };
}

/** Escapes text for Telegram's HTML parse mode: the three characters it requires escaped, and nothing else. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Cuts raw text (before escaping, so an entity is never split) to `max` characters. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const TONE_EMOJI: Record<CardText['tone'], string> = { waiting: '⏳', good: '✅', bad: '⛔' };

const RISK_EMOJI = { high: '🔴', medium: '🟠', low: '🟢' } as const;

/** Text Telegram shows at most; the arguments get what the rest leaves of it. */
const MAX_VISIBLE = 4000;

/**
 * The card for `request` in its current state: keyboard while pending, the outcome and no keyboard after.
 * Each part is cut before escaping, so what the reader sees is counted exactly (Telegram's 4096 characters are of
 * the text after entities are parsed): title 250, prompt 900, the call summary ~1,200 (risk 400, items, diff
 * lines), requester 200, approvers 300, status 400, and the arguments whatever is left, at most 1,800.
 */
export function cardMessage(
  request: ConfirmationRequest,
  options: { maxArgsChars?: number; grants?: readonly GrantButton[]; publicUrl?: string | null } = {},
): TelegramMessage {
  const text = cardText(request, {
    maxArgsChars: options.maxArgsChars ?? 1500,
    publicUrl: options.publicUrl,
    summaryLimits: { maxItems: 6, maxDiffLines: 10, maxLineChars: 100 },
  });
  // Each line as [visible characters, HTML]: the HTML adds tags and entities the 4096 do not count.
  const lines: [number, string][] = [];
  const add = (raw: string, wrap = (h: string) => h) => lines.push([raw.length, wrap(escapeHtml(raw))]);
  const title = cut(text.title, 250);
  add(`${TONE_EMOJI[text.tone]} ${title}`, () => `${TONE_EMOJI[text.tone]} <b>${escapeHtml(title)}</b>`);
  add('');
  add(cut(text.prompt, 900));
  add('');
  const view = text.summary;
  if (view) {
    const reasons = cut(view.reasons.join('; '), 400);
    add(`${RISK_EMOJI[view.risk]} ${view.riskLabel}${reasons ? `: ${reasons}` : ''}`, (h) =>
      h.replace(escapeHtml(view.riskLabel), `<b>${escapeHtml(view.riskLabel)}</b>`),
    );
    if (view.headline) add(view.headline, (h) => `<b>${h}</b>`);
    summaryLines(view)
      .slice(view.headline ? 2 : 1)
      .forEach((item) => add(item));
    if (view.diffLines.length) {
      const diff = [...view.diffLines, ...(view.diffMore ? ['…'] : [])].join('\n');
      add(diff, (h) => `<pre><code class="language-diff">${h}</code></pre>`);
    }
    if (text.link) add('Open the request page', (h) => `<a href="${escapeHtml(text.link!)}">${h}</a>`);
    add('');
  }
  const tail: string[] = [];
  if (text.requester) tail.push(`<b>Requested by</b> ${escapeHtml(cut(text.requester, 200))}`);
  tail.push(`<b>Approvers</b> ${escapeHtml(cut(text.approvers, 300))}`);
  tail.push(`<b>Expires</b> ${escapeHtml(text.expiresAt)}`);
  tail.push('', `<i>${escapeHtml(cut(text.status, 400))}</i>`);
  const used =
    lines.reduce((n, [length]) => n + length + 1, 0) +
    tail.reduce((n, line) => n + line.replace(/<[^>]+>/g, '').replace(/&\w+;/g, '.').length + 1, 0);
  const args = cut(text.argsPreview, Math.max(200, Math.min(1800, MAX_VISIBLE - used - 20)));
  // An edit, a command or SQL is read by the summary above: its raw arguments fold into an expandable quote.
  const argsHtml = view?.readsCall
    ? `<b>Arguments</b>\n<blockquote expandable>${escapeHtml(args)}</blockquote>`
    : `<pre><code class="language-json">${escapeHtml(args)}</code></pre>`;
  const message: TelegramMessage = {
    text: [...lines.map(([, h]) => h), argsHtml, ...tail].join('\n'),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  };
  if (text.actionable) message.reply_markup = { inline_keyboard: keyboard(request, options.grants ?? []) };
  return message;
}

/**
 * The inline keyboard: the options on one row (approve first, deny second, any further option after them), then one
 * row per grant button. Labels are plain text on Telegram (no parse mode), so they need no escaping.
 */
function keyboard(request: ConfirmationRequest, grants: readonly GrantButton[]): InlineButton[][] {
  const marks = ['✅ ', '❌ '];
  // Telegram allows 8 buttons a row and 100 in all; the options come first so approve and deny are never left out.
  const options = request.options.slice(0, 8).map((label, index) => ({
    text: cut(`${marks[index] ?? ''}${label}`, 64),
    callback_data: callbackData(request, { kind: 'option', index }),
  }));
  const rows = [options];
  grants
    .slice(0, 20)
    .forEach((grant, index) =>
      rows.push([{ text: cut(grant.label, 64), callback_data: callbackData(request, { kind: 'grant', index }) }]),
    );
  return rows;
}
