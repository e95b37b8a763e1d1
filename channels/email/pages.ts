/**
 * @module channels/email/pages
 * The pages an approval link opens: the confirmation form (the only way a link decides: a mail scanner that fetches
 * the link sees this page and changes nothing), the verdict after the form is posted, and plain-words pages for links
 * that are used, expired, forged or not for this request. Everything on them goes through the escaping `html`
 * template; they load nothing but their own inline style.
 */
import { cardText } from '../../src/channel/card.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { html, type SafeHtml } from '../web/html.js';

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;color:#1a202c;max-width:640px;margin:0 auto;padding:24px}
pre{background:#f7fafc;border:1px solid #e2e8f0;padding:8px;white-space:pre-wrap;word-break:break-word}
th{text-align:left;padding:2px 12px 2px 0;vertical-align:top}textarea{width:100%;box-sizing:border-box}
button{padding:10px 18px;border:0;border-radius:6px;color:#fff;font-weight:600;font-size:15px;cursor:pointer}
.approve{background:#2f855a}.deny{background:#c53030}.muted{color:#4a5568;font-size:13px}`;

/** The page frame. */
function frame(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="data:,"><title>${title} · tollgate</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

function summary(request: ConfirmationRequest): SafeHtml {
  const text = cardText(request);
  const rows: [string, string][] = [['Tool', text.toolName]];
  if (text.requester) rows.push(['Requested by', text.requester]);
  rows.push(['Expires', text.expiresAt], ['Status', text.status]);
  return html`<p>${text.prompt}</p>
<table>${rows.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</table>
<p><strong>Arguments</strong></p><pre>${text.argsPreview}</pre>`;
}

/** What the confirmation form needs. */
export interface ConfirmForm {
  action: 'approve' | 'deny';
  /** The label of the option (`Approve`, or the request's own first/second option). */
  label: string;
  csrf: string;
  recipient: string;
  /** Whether the recipient is among the request's approvers; when not, the page says the gateway will refuse. */
  listed: boolean;
}

/** The confirmation page of a valid link: the request, and one button that posts the decision to the same address. */
export function confirmPage(request: ConfirmationRequest, form: ConfirmForm): SafeHtml {
  const reason =
    form.action === 'deny'
      ? html`<p><label for="reason">Reason (optional; the agent sees it)</label><br><textarea id="reason" name="reason" rows="3" maxlength="2000"></textarea></p>`
      : '';
  return frame(
    `${form.label}: ${request.toolName}`,
    html`<h1>${form.label} ${request.toolName}?</h1>
${summary(request)}
<form method="post">
<input type="hidden" name="_csrf" value="${form.csrf}">
${reason}
<button type="submit" class="${form.action}">${form.label}</button>
</form>
<p class="muted">You are deciding as ${form.recipient}. Nothing has been decided yet: only this button decides.</p>
${form.listed ? '' : html`<p><strong>${form.recipient} is not one of this request's approvers: the gateway will refuse this decision.</strong></p>`}`,
  );
}

/** The page after the form was posted and the gateway took the decision. */
export function verdictPage(request: ConfirmationRequest, final: boolean): SafeHtml {
  const heading = final ? cardText(request).title : 'Your approval is recorded';
  const lead = final ? 'Your decision is recorded. Thank you.' : 'The request waits for more approvers.';
  return frame(heading, html`<h1>${heading}</h1><p>${lead}</p>${summary(request)}`);
}

/** A page that only says something (a refused link or form), with the request's state when there is one. */
export function messagePage(title: string, text: string, request?: ConfirmationRequest | null): SafeHtml {
  return frame(title, html`<h1>${title}</h1><p>${text}</p>${request ? summary(request) : ''}`);
}
