/**
 * @module channels/slack/blocks
 * Block Kit layout of a tollgate card and of the "deny with a reason" modal. The words come from `cardText()`
 * (src/channel/card.ts); this file only lays them out. Every string that comes from a request is attacker-controlled: it is
 * put in `plain_text` where Slack allows, and escaped (`&`, `<`, `>`) in `mrkdwn`, so nobody can ping `@channel`
 * or forge a link through a tool argument.
 */
import type { types } from '@slack/bolt';
import { cardText, type CardText } from '../../src/channel/card.js';
import { summaryLines } from '../../src/channel/card-summary.js';
import type { GrantButton } from '../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';

/** `action_id` of option buttons: `tollgate_option_0` approves, `tollgate_option_1` denies, later ones approve. */
export const OPTION_ACTION = /^tollgate_option_(\d{1,2})$/;
/** `action_id` of standing-grant buttons ("Approve for 1 hour"): `tollgate_grant_<i>`, the i-th grant the request's rule offers. */
export const GRANT_ACTION = /^tollgate_grant_(\d{1,2})$/;
/** `action_id` of the "Deny with reason" button. */
export const DENY_WITH_REASON_ACTION = 'tollgate_deny_reason';
/** `callback_id` of the reason modal. */
export const REASON_MODAL = 'tollgate_reason_modal';
/** Block and action ids of the reason input in the modal. */
export const REASON_INPUT = { block: 'reason', action: 'reason' } as const;
/** Longest reason the API accepts. */
export const MAX_REASON_CHARS = 2000;

/** A chat message: the notification text and the blocks. */
export interface SlackMessage {
  text: string;
  blocks: types.KnownBlock[];
}

/** What a button carries: the request id and its nonce, nothing else. */
export interface ButtonRef {
  requestId: string;
  nonce: string;
}

/** The modal's `private_metadata`: the button's request id and nonce, and where to tell the approver if it fails. */
export interface ReasonModalMetadata extends ButtonRef {
  channelId?: string;
}

/** Encodes a button value: `<request id>:<nonce>`. */
export function buttonValue(request: Pick<ConfirmationRequest, 'id' | 'nonce'>): string {
  return `${request.id}:${request.nonce}`;
}

/** Decodes a button value; null when it is not one of ours. */
export function parseButtonValue(value: string | undefined): ButtonRef | null {
  const match = /^([\w-]{1,100}):([\w-]{1,200})$/.exec(value ?? '');
  return match ? { requestId: match[1]!, nonce: match[2]! } : null;
}

/** Decodes the modal's `private_metadata`; null when it is not ours. */
export function parseModalMetadata(raw: string | undefined): ReasonModalMetadata | null {
  try {
    const data = JSON.parse(raw ?? '') as Record<string, unknown>;
    const ref = parseButtonValue(`${String(data.request_id)}:${String(data.nonce)}`);
    if (!ref) return null;
    return typeof data.channel_id === 'string' ? { ...ref, channelId: data.channel_id } : ref;
  } catch {
    return null;
  }
}

/** Escapes text for `mrkdwn` (Slack's three control characters). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function plain(text: string, max = 3000): types.PlainTextElement {
  return { type: 'plain_text', text: cut(text, max), emoji: false };
}

function field(label: string, value: string): types.MrkdwnElement {
  return { type: 'mrkdwn', text: cut(`*${label}*\n${escapeMrkdwn(value)}`, 2000) };
}

/** Slack's date token: shown in the reader's time zone, with the ISO time as fallback. */
function slackDate(iso: string): string {
  const epoch = Math.floor(Date.parse(iso) / 1000);
  return `<!date^${epoch}^{date_short_pretty} {time}|${iso}>`;
}

const TONE_EMOJI: Record<CardText['tone'], string> = { waiting: '⏳', good: '✅', bad: '⛔' };

/** The card for `request` in its current state: buttons while pending, the outcome and no buttons after. */
export function cardMessage(
  request: ConfirmationRequest,
  options: { maxArgsChars?: number; grants?: readonly GrantButton[]; publicUrl?: string | null } = {},
): SlackMessage {
  const text = cardText(request, { maxArgsChars: options.maxArgsChars ?? 2000, publicUrl: options.publicUrl });
  // Code blocks end at the next three backticks: keep the arguments from closing theirs.
  const args = escapeMrkdwn(text.argsPreview).replace(/```/g, '`\u200b``');
  const fields: types.MrkdwnElement[] = [field('Tool', text.toolName)];
  if (text.requester) fields.push(field('Requested by', text.requester));
  fields.push({ type: 'mrkdwn', text: `*Expires*\n${slackDate(text.expiresAt)}` });
  fields.push(field('Approvers', text.approvers));

  const blocks: types.KnownBlock[] = [
    { type: 'header', text: plain(text.title, 150) },
    { type: 'section', text: plain(text.prompt) },
    ...summaryBlocks(text),
    { type: 'section', fields },
    // Cut inside the code block, so the block still closes when huge arguments fill the section.
    { type: 'section', text: { type: 'mrkdwn', text: `*Arguments*\n\`\`\`${cut(args, 2950)}\`\`\`` } },
  ];
  if (text.actionable) {
    blocks.push({ type: 'context', elements: [plain(`${TONE_EMOJI.waiting} ${text.status}`)] });
    blocks.push({ type: 'actions', block_id: 'tollgate_actions', elements: buttons(request, options.grants ?? []) });
  } else {
    blocks.push({ type: 'section', text: plain(`${TONE_EMOJI[text.tone]} ${text.status}`) });
  }
  // The top-level text (notifications, screen readers) is mrkdwn too: tool names, approvers and reasons get escaped.
  return { text: cut(escapeMrkdwn(`${text.title} — ${text.status}`), 3000), blocks };
}

const RISK_EMOJI = { high: '🔴', medium: '🟠', low: '🟢' } as const;

/**
 * The call summary: the risk and its reasons, what the call does (a line per file, program or statement), the first
 * diff lines in a code block, and the link to the request's page, where the whole diff and the raw arguments are.
 */
function summaryBlocks(text: CardText): types.KnownBlock[] {
  const view = text.summary;
  if (!view) return [];
  const risk = `${RISK_EMOJI[view.risk]} *${view.riskLabel}*${view.reasons.length ? `: ${escapeMrkdwn(view.reasons.join('; '))}` : ''}`;
  const lines = [risk, ...summaryLines(view).slice(1).map(escapeMrkdwn)];
  const blocks: types.KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: cut(lines.join('\n'), 3000) } }];
  if (view.diffLines.length) {
    const diff = escapeMrkdwn([...view.diffLines, ...(view.diffMore ? ['…'] : [])].join('\n')).replace(
      /```/g,
      '`\u200b``',
    );
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `\`\`\`${cut(diff, 2900)}\`\`\`` } });
  }
  if (text.link)
    blocks.push({
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: `<${text.link}|Open the request page> for the whole diff and the raw arguments` },
      ],
    });
  return blocks;
}

function buttons(request: ConfirmationRequest, grants: readonly GrantButton[]): types.Button[] {
  const value = buttonValue(request);
  const options: types.Button[] = request.options.map((label, index) => ({
    type: 'button',
    action_id: `tollgate_option_${index}`,
    text: plain(label, 75),
    value,
    ...(index === 0 ? { style: 'primary' as const } : index === 1 ? { style: 'danger' as const } : {}),
  }));
  // Grant buttons approve and also give a standing grant; the label is looked up again on the tap, by index.
  grants.forEach((g, i) =>
    options.push({ type: 'button', action_id: `tollgate_grant_${i}`, text: plain(g.label, 75), value }),
  );
  options.push({
    type: 'button',
    action_id: DENY_WITH_REASON_ACTION,
    text: plain(`${request.options[1] ?? 'Deny'} with reason…`, 75),
    value,
  });
  return options;
}

/** The "deny with a reason" modal for `request`; its submission carries the button's id and nonce back. */
export function reasonModal(request: ConfirmationRequest, ref: ReasonModalMetadata): types.ModalView {
  const text = cardText(request);
  return {
    type: 'modal',
    callback_id: REASON_MODAL,
    private_metadata: JSON.stringify({
      request_id: ref.requestId,
      nonce: ref.nonce,
      ...(ref.channelId ? { channel_id: ref.channelId } : {}),
    }),
    title: plain('Deny with a reason', 24),
    submit: plain(cut(request.options[1] ?? 'Deny', 24), 24),
    close: plain('Cancel', 24),
    blocks: [
      { type: 'section', text: plain(`${text.title}\n${text.prompt}`) },
      {
        type: 'input',
        block_id: REASON_INPUT.block,
        label: plain('Reason (the agent sees it)', 2000),
        element: {
          type: 'plain_text_input',
          action_id: REASON_INPUT.action,
          multiline: true,
          max_length: MAX_REASON_CHARS,
        },
      },
    ],
  };
}
