/**
 * @module channels/email/mail
 * What a mail says, in plain text and HTML, worded by the one card model (`src/channel/card.ts`): the approval mail with its
 * Approve and Deny links, the reminder, and the short notice once a request is final. Every value is escaped in the
 * HTML part (tool arguments and prompts are attacker-controlled); links appear only while the request is pending.
 */
import { cardText, reminderText, type CardText } from '../../src/channel/card.js';
import { summaryLines } from '../../src/channel/card-summary.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { html, type SafeHtml } from '../web/html.js';

/** A mail's content, before addressing. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/** The links of one recipient's mail. */
export interface MailLinks {
  approve: string;
  deny: string;
  /** The address the links are bound to. */
  recipient: string;
}

/** Options of {@link approvalMail}. */
export interface MailOptions {
  maxArgsChars?: number;
  /** The gateway's public URL: the mail links to the request's page (the whole diff, the raw arguments). */
  publicUrl?: string | null;
  /** A reminder of a request still pending: the subject and first line say so. */
  reminder?: boolean;
}

const TONE_COLOUR: Record<CardText['tone'], string> = { waiting: '#b7791f', good: '#2f855a', bad: '#c53030' };

/** Subjects are one line: a tool name with a newline in it must not add headers or lines. */
function oneLine(text: string, max = 200): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function facts(text: CardText): [string, string][] {
  const rows: [string, string][] = [['Tool', text.toolName]];
  if (text.requester) rows.push(['Requested by', text.requester]);
  rows.push(['Approvers', text.approvers], ['Expires', text.expiresAt], ['Status', text.status]);
  return rows;
}

const RISK_COLOUR = { high: '#c53030', medium: '#b7791f', low: '#2f855a' } as const;
const DIFF_STYLE: Record<string, string> = {
  '+': 'background:#e6ffec',
  '-': 'background:#ffebe9',
  '@': 'color:#6a737d',
};

/** The call summary in HTML: inline styles only (mail clients drop style sheets), the diff's lines tinted. */
function summaryHtml(text: CardText): SafeHtml | string {
  const view = text.summary;
  if (!view) return '';
  const diff = [...view.diffLines, ...(view.diffMore ? ['…'] : [])];
  return html`<div style="border-left:4px solid ${RISK_COLOUR[view.risk]};padding:4px 12px;margin:12px 0">
<p style="margin:0 0 4px"><strong style="color:${RISK_COLOUR[view.risk]}">${view.riskLabel}</strong>${view.reasons.length ? html`: ${view.reasons.join('; ')}` : ''}</p>
${view.headline ? html`<p style="margin:4px 0"><strong>${view.headline}</strong></p>` : ''}
${view.items.length ? html`<ul style="margin:4px 0;padding-left:20px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px">${view.items.map((i) => html`<li>${i}</li>`)}${view.moreItems ? html`<li>${view.moreLine}</li>` : ''}</ul>` : ''}
${diff.length ? html`<pre style="border:1px solid #e2e8f0;padding:8px;font-size:12px;white-space:pre-wrap;word-break:break-word">${diff.map((l) => html`<span style="display:block;${DIFF_STYLE[l[0] ?? ''] ?? ''}">${l}</span>`)}</pre>` : ''}
${text.link ? html`<p style="margin:4px 0"><a href="${text.link}">Open the request page</a> for the whole diff and the raw arguments.</p>` : ''}
</div>`;
}

/** The call summary as text lines, with the diff's first lines and the page's link. */
function summaryText(text: CardText): string {
  const view = text.summary;
  if (!view) return '';
  const diff = [...view.diffLines, ...(view.diffMore ? ['…'] : [])];
  const link = text.link ? [`Whole diff and raw arguments: ${text.link}`] : [];
  return `${[...summaryLines(view), ...(diff.length ? ['', ...diff] : []), ...link].join('\n')}\n\n`;
}

function page(text: CardText, lead: string, body: SafeHtml | string): string {
  return html`<!doctype html>
<html><head><meta charset="utf-8"><title>${text.title}</title></head>
<body style="font-family:system-ui,-apple-system,Segoe UI,sans-serif;color:#1a202c;max-width:640px;margin:0 auto;padding:16px">
<h2 style="margin:0 0 8px;color:${TONE_COLOUR[text.tone]}">${text.title}</h2>
<p>${lead}</p>
${summaryHtml(text)}
<table style="border-collapse:collapse">${facts(text).map(([k, v]) => html`<tr><th style="text-align:left;padding:2px 12px 2px 0;vertical-align:top">${k}</th><td>${v}</td></tr>`)}</table>
<p style="margin:12px 0 4px"><strong>Arguments</strong></p>
<pre style="background:#f7fafc;border:1px solid #e2e8f0;padding:8px;white-space:pre-wrap;word-break:break-word">${text.argsPreview}</pre>
${body}
</body></html>`.value;
}

function plainFacts(text: CardText): string {
  return facts(text)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/**
 * The approval mail of one recipient: the request and one-click Approve / Deny links (each opens a confirmation page).
 * @example approvalMail(request, { approve, deny, recipient: 'ann@example.com' }).subject // 'Approval needed: pay_invoice'
 */
export function approvalMail(request: ConfirmationRequest, links: MailLinks, options: MailOptions = {}): MailContent {
  const text = cardText(request, { maxArgsChars: options.maxArgsChars ?? 1500, publicUrl: options.publicUrl });
  const [approveLabel, denyLabel] = [request.options[0] ?? 'Approve', request.options[1] ?? 'Deny'];
  const lead = options.reminder ? `${reminderText(request)}\n\n${text.prompt}` : text.prompt;
  const note = `Each link opens a page that asks you to confirm: nothing is decided until you press its button. The links are for ${links.recipient} only, work once, and stop working when the request expires.`;
  const button = (href: string, label: string, colour: string) =>
    html`<a href="${href}" style="display:inline-block;padding:10px 18px;margin-right:8px;border-radius:6px;background:${colour};color:#fff;text-decoration:none;font-weight:600">${label}</a>`;
  return {
    subject: oneLine(options.reminder ? `Reminder: ${text.title}` : text.title),
    text: `${lead}\n\n${summaryText(text)}${plainFacts(text)}\n\nArguments:\n${text.argsPreview}\n\n${approveLabel}: ${links.approve}\n${denyLabel}: ${links.deny}\n\n${note}\n`,
    html: page(
      text,
      lead,
      html`<p style="margin:16px 0">${button(links.approve, approveLabel, '#2f855a')}${button(links.deny, denyLabel, '#c53030')}</p>
<p style="color:#4a5568;font-size:13px">${note}</p>`,
    ),
  };
}

/** The short mail once a request is final: who decided it (or that it expired), and that the links no longer work. */
export function finalMail(request: ConfirmationRequest, options: Pick<MailOptions, 'maxArgsChars'> = {}): MailContent {
  const text = cardText(request, { maxArgsChars: options.maxArgsChars ?? 1500 });
  const note = 'This request is final; the links in the earlier mail no longer decide anything.';
  return {
    subject: oneLine(text.title),
    text: `${text.status}.\n\n${plainFacts(text)}\n\nArguments:\n${text.argsPreview}\n\n${note}\n`,
    html: page(text, text.status, html`<p style="color:#4a5568;font-size:13px">${note}</p>`),
  };
}
