/**
 * @module channels/feishu/card-json
 * Turns the worded card ({@link localizedCardText}) into Feishu card JSON 2.0. Every text the runtime or its tool
 * arguments control is shown as `plain_text`, never markdown (`lark_md`/`markdown`), so a tool name, approver name,
 * reason or argument cannot `@all` a group (`<at id=all>`), fake a link (`[text](url)`) or style text. The same holds
 * for reminders: a `text` message parses `<at user_id="all">` and links, so a reminder is a plain-text card too.
 * Buttons are named (clicks on unnamed 2.0 buttons fail silently) and carry only the request id and nonce; the
 * decision is the button's name. Both sit in a form with the reason input, so a reason reaches the runtime.
 */
import { summaryLines } from '../../src/channel/card-summary.js';
import type { ConfirmationRequest, RequestStatus } from '../../src/requests/types.js';
import { cardLabels, localizedCardText } from './i18n.js';
import type { GrantButton } from '../../src/channel/channel.js';
import type { FeishuLanguage } from './options.js';

/** A card JSON 2.0 document (the subset tollgate writes). */
export interface FeishuCard {
  schema: '2.0';
  config: { update_multi: true; summary?: { content: string } };
  header: { title: { tag: 'plain_text'; content: string }; template: string };
  body: { elements: Record<string, unknown>[] };
}

/** The object a button's callback carries back. */
export interface ButtonValue {
  request_id: string;
  nonce: string;
}

/** Button names: the decision a tap means. */
export const BUTTON_NAMES = { approve: 'tollgate_approve', deny: 'tollgate_deny' } as const;

/** The form input whose text becomes the decision's reason. */
export const REASON_INPUT = 'reason';

/** Longest reason accepted from the card. */
export const MAX_REASON_CHARS = 500;

const HEADER_TEMPLATE: Record<RequestStatus, string> = {
  pending: 'orange',
  approved: 'green',
  denied: 'red',
  expired: 'grey',
  cancelled: 'grey',
};

/** Rendering options. */
export interface CardRenderOptions {
  language: FeishuLanguage;
  maxArgsChars?: number;
  /** Standing grants the request's policy rule offers: extra approve buttons named `tollgate_grant_<i>`. */
  grants?: readonly GrantButton[];
  /** The gateway's public URL: the card names the request's page (the whole diff, the raw arguments). */
  publicUrl?: string | null;
}

/** Name of the i-th grant button. */
export const GRANT_BUTTON = /^tollgate_grant_(\d{1,2})$/;

/**
 * The card of `request` in its current state: header colour by state, prompt, tool, arguments, requester, expiry,
 * approvers and status; while pending, a reason input and the two buttons.
 */
export function approvalCard(request: ConfirmationRequest, options: CardRenderOptions): FeishuCard {
  const text = localizedCardText(request, options.language, {
    maxArgsChars: options.maxArgsChars,
    publicUrl: options.publicUrl,
  });
  const { labels } = text;
  const view = text.summary;
  // The call summary in the card's language (the card model words it), and the first diff lines.
  const summary = view
    ? [
        plain(summaryLines(view).join('\n')),
        ...(view.diffLines.length ? [plain([...view.diffLines, ...(view.diffMore ? ['…'] : [])].join('\n'))] : []),
        ...(text.link ? [plain(text.link)] : []),
      ]
    : [];
  const elements: Record<string, unknown>[] = [
    plain(text.prompt),
    ...summary,
    plain(`${labels.tool}: ${text.toolName}`),
    ...(text.requester ? [plain(`${labels.requester}: ${text.requester}`)] : []),
    plain(`${labels.arguments}:\n${text.argsPreview}`),
    plain(`${labels.expires}: ${text.expiresAt}`),
    plain(`${labels.approvers}: ${text.approvers}`),
    { tag: 'hr' },
    plain(`${labels.status}: ${text.status}`),
  ];
  if (text.actionable) {
    const value: ButtonValue = { request_id: request.id, nonce: request.nonce };
    elements.push({
      tag: 'form',
      name: 'tollgate_decision',
      elements: [
        {
          tag: 'input',
          name: REASON_INPUT,
          required: false,
          max_length: MAX_REASON_CHARS,
          placeholder: { tag: 'plain_text', content: labels.reasonPlaceholder },
        },
        {
          tag: 'column_set',
          flex_mode: 'none',
          horizontal_spacing: '8px',
          columns: [
            column(button(BUTTON_NAMES.approve, text.buttons.approve, 'primary', value)),
            column(button(BUTTON_NAMES.deny, text.buttons.deny, 'danger', value)),
            ...(options.grants ?? []).map((g, i) => column(button(`tollgate_grant_${i}`, g.label, 'primary', value))),
          ],
        },
      ],
    });
  }
  return {
    schema: '2.0',
    config: { update_multi: true, summary: { content: text.title } },
    header: { title: { tag: 'plain_text', content: text.title }, template: HEADER_TEMPLATE[request.status] },
    body: { elements },
  };
}

/** The card shown when a tap names a request that does not exist (never answer a tap with a bare `{}`). */
export function notFoundCard(language: FeishuLanguage): FeishuCard {
  const labels = cardLabels(language);
  return {
    schema: '2.0',
    config: { update_multi: true },
    header: { title: { tag: 'plain_text', content: labels.notFoundTitle }, template: 'grey' },
    body: { elements: [plain(labels.notFoundBody)] },
  };
}

/**
 * A reminder reply: `text` (from `reminderText`, which carries the tool name and approvers) as a plain-text card,
 * never a `text` message, whose content Feishu scans for `<at>` mentions and links.
 */
export function reminderCard(text: string): FeishuCard {
  return {
    schema: '2.0',
    config: { update_multi: true, summary: { content: text.slice(0, 100) } },
    header: { title: { tag: 'plain_text', content: text.slice(0, 100) }, template: 'orange' },
    body: { elements: [plain(text)] },
  };
}

function plain(content: string): Record<string, unknown> {
  return { tag: 'div', text: { tag: 'plain_text', content } };
}

function column(element: Record<string, unknown>): Record<string, unknown> {
  return { tag: 'column', width: 'auto', elements: [element] };
}

function button(
  name: string,
  caption: string,
  type: 'primary' | 'danger',
  value: ButtonValue,
): Record<string, unknown> {
  return {
    tag: 'button',
    name,
    text: { tag: 'plain_text', content: caption },
    type,
    form_action_type: 'submit',
    behaviors: [{ type: 'callback', value }],
  };
}
