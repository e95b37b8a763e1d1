/**
 * @module channels/discord/message
 * The Discord layout of a tollgate card: a short `content` line, one embed with the request, and button components
 * while it is pending. The words come from `cardText()` (src/channel/card.ts); this file only lays them out. Every string
 * from a request is attacker-controlled: Discord markdown is escaped, `@everyone`/`@here` are broken with a zero-width
 * space, and `allowed_mentions: {parse: []}` makes sure nothing pings even if an escape were missed.
 */
import {
  ButtonStyle,
  ComponentType,
  TextInputStyle,
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIEmbed,
  type APIModalInteractionResponseCallbackData,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord-api-types/v10';
import { cardText, type CardText } from '../../src/channel/card.js';
import { summaryLines } from '../../src/channel/card-summary.js';
import type { GrantButton } from '../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';

/** A message body for `POST /channels/{id}/messages`, `PATCH …/messages/{id}` and an UPDATE_MESSAGE answer. */
export type DiscordMessage = Required<
  Pick<RESTPostAPIChannelMessageJSONBody, 'content' | 'embeds' | 'components' | 'allowed_mentions'>
>;

/**
 * What a `custom_id` stands for: an option of the request (by index), a standing grant the rule offers (by index),
 * the "deny with a reason" button, or the reason dialog it opens.
 */
export type ButtonAction = { kind: 'option' | 'grant'; index: number } | { kind: 'reason' | 'modal'; index: 0 };

const KIND_LETTER = { option: 'o', grant: 'g', reason: 'r', modal: 'm' } as const;
const LETTER_KIND = { o: 'option', g: 'grant', r: 'reason', m: 'modal' } as const;

/** The `custom_id` of the reason input in the dialog. */
export const REASON_INPUT = 'reason';
/** Longest reason the API accepts. */
export const MAX_REASON_CHARS = 2000;

/** What a button's `custom_id` carries: the request, its nonce, and the action. */
export interface ButtonRef {
  requestId: string;
  nonce: string;
  action: ButtonAction;
}

/** Discord's limit on a `custom_id`. */
export const MAX_CUSTOM_ID = 100;

/** Encodes a `custom_id`: `tg:o0:<request id>:<nonce>` (option 0), `tg:g1:…` (grant 1), `tg:r0:…`, `tg:m0:…`. */
export function customId(request: Pick<ConfirmationRequest, 'id' | 'nonce'>, action: ButtonAction): string {
  return `tg:${KIND_LETTER[action.kind]}${action.index}:${request.id}:${request.nonce}`;
}

/** Decodes a `custom_id`; null when it is not one of ours. */
export function parseCustomId(value: unknown): ButtonRef | null {
  if (typeof value !== 'string' || value.length > MAX_CUSTOM_ID) return null;
  const match = /^tg:(?:([og])(\d{1,2})|([rm])0):([\w-]{1,60}):([\w-]{1,60})$/.exec(value);
  if (!match) return null;
  const action: ButtonAction = match[1]
    ? { kind: LETTER_KIND[match[1] as 'o' | 'g'], index: Number(match[2]) }
    : { kind: LETTER_KIND[match[3] as 'r' | 'm'], index: 0 };
  return { requestId: match[4]!, nonce: match[5]!, action };
}

/** Breaks `@everyone` and `@here` (a zero-width space after the `@`), which Discord would otherwise treat as pings. */
export function neutraliseMentions(text: string): string {
  return text.replace(/@(everyone|here)/gi, '@\u200b$1');
}

/**
 * Escapes Discord markdown so text shows as written: every markdown character gets a backslash (`<` too, so
 * `<@123>` user, `<#…>` channel and `<t:…>` tokens stay literal), and mentions are neutralised.
 */
export function escapeMarkdown(text: string): string {
  return neutraliseMentions(text.replace(/[\\*_~`|>#[\]()<-]/g, '\\$&'));
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const TONE_COLOUR: Record<CardText['tone'], number> = { waiting: 0xf1c40f, good: 0x2ecc71, bad: 0xe74c3c };
const TONE_EMOJI: Record<CardText['tone'], string> = { waiting: '⏳', good: '✅', bad: '⛔' };

const RISK_EMOJI = { high: '🔴', medium: '🟠', low: '🟢' } as const;

/** Breaks three backticks (which would close a code block early) and mentions, for text inside a code block. */
const codeText = (text: string): string => neutraliseMentions(text).replace(/```/g, '`\u200b``');

/**
 * The card for `request` in its current state: buttons while pending, the outcome and no buttons after. With a call
 * summary: its risk and what it does as two fields, the first diff lines in the description, and the raw arguments
 * shorter (the title links to the request's page, which has them whole).
 */
export function cardMessage(
  request: ConfirmationRequest,
  options: { maxArgsChars?: number; grants?: readonly GrantButton[]; publicUrl?: string | null } = {},
): DiscordMessage {
  const text = cardText(request, {
    maxArgsChars: options.maxArgsChars ?? 1500,
    publicUrl: options.publicUrl,
    summaryLimits: { maxItems: 6, maxDiffLines: 10, maxLineChars: 120 },
  });
  const view = text.summary;
  const reads = !!view?.readsCall;
  // Inside a code block markdown is inert; only three backticks could close it early, so break those up.
  const args = codeText(text.argsPreview);
  const expires = Math.floor(Date.parse(text.expiresAt) / 1000);
  const fields: NonNullable<APIEmbed['fields']> = [
    { name: 'Tool', value: cut(escapeMarkdown(text.toolName), 256), inline: true },
  ];
  if (text.requester)
    fields.push({ name: 'Requested by', value: cut(escapeMarkdown(text.requester), 256), inline: true });
  // Discord's timestamp token shows the time in the reader's zone; the ISO time stays in the footer for copying.
  fields.push({ name: 'Expires', value: `<t:${expires}:f> (<t:${expires}:R>)`, inline: true });
  if (view) {
    const reasons = view.reasons.length ? `: ${escapeMarkdown(view.reasons.join('; '))}` : '';
    fields.push({
      name: 'Risk',
      value: cut(`${RISK_EMOJI[view.risk]} **${view.riskLabel}**${reasons}`, reads ? 500 : 300),
    });
    const lines = summaryLines(view).slice(1).map(escapeMarkdown);
    if (lines.length) fields.push({ name: 'What it does', value: cut(lines.join('\n'), reads ? 900 : 300) });
  }
  fields.push({ name: 'Approvers', value: cut(escapeMarkdown(text.approvers), 512) });
  fields.push({ name: 'Status', value: cut(`${TONE_EMOJI[text.tone]} ${escapeMarkdown(text.status)}`, 512) });
  const diff = view?.diffLines.length
    ? `\n\n\`\`\`diff\n${cut(codeText([...view.diffLines, ...(view.diffMore ? ['…'] : [])].join('\n')), 700)}\n\`\`\``
    : '';
  // Sized so the whole embed stays under Discord's 6000-character total whatever the request holds: at most ~5,870
  // characters with a summary that reads the call (shorter prompt and arguments), ~5,650 with one that does not.
  const embed: APIEmbed = {
    title: cut(escapeMarkdown(text.title), 256),
    ...(text.link ? { url: text.link } : {}),
    description: `${cut(escapeMarkdown(text.prompt), reads ? 1000 : 1500)}${diff}\n\n**Arguments**\n\`\`\`json\n${cut(args, reads ? 800 : view ? 1600 : 1900)}\n\`\`\``,
    color: TONE_COLOUR[text.tone],
    fields,
    footer: { text: `Expires ${text.expiresAt}` },
  };
  return {
    content: cut(`${TONE_EMOJI[text.tone]} **${escapeMarkdown(text.title)}** — ${escapeMarkdown(text.status)}`, 2000),
    embeds: [embed],
    components: text.actionable ? buttonRows(request, options.grants ?? []) : [],
    allowed_mentions: { parse: [] },
  };
}

/**
 * Option buttons (approve green, deny red, other options grey), "deny with reason", then grant buttons; five to a row,
 * at most five rows.
 */
function buttonRows(
  request: ConfirmationRequest,
  grants: readonly GrantButton[],
): APIActionRowComponent<APIButtonComponent>[] {
  const style = (index: number) =>
    index === 0 ? ButtonStyle.Success : index === 1 ? ButtonStyle.Danger : ButtonStyle.Secondary;
  const buttons: APIButtonComponent[] = request.options.map((label, index) => ({
    type: ComponentType.Button,
    style: style(index),
    label: cut(label, 80),
    custom_id: customId(request, { kind: 'option', index }),
  }));
  buttons.push({
    type: ComponentType.Button,
    style: ButtonStyle.Secondary,
    label: cut(`${request.options[1] ?? 'Deny'} with reason…`, 80),
    custom_id: customId(request, { kind: 'reason', index: 0 }),
  });
  grants.forEach((g, index) =>
    buttons.push({
      type: ComponentType.Button,
      style: ButtonStyle.Primary,
      label: cut(g.label, 80),
      custom_id: customId(request, { kind: 'grant', index }),
    }),
  );
  const rows: APIActionRowComponent<APIButtonComponent>[] = [];
  // Discord takes 25 buttons at most; the options come first, so approve and deny are never the ones left out.
  for (let i = 0; i < Math.min(buttons.length, 25); i += 5)
    rows.push({ type: ComponentType.ActionRow, components: buttons.slice(i, i + 5) });
  return rows;
}

/** The "deny with a reason" dialog (a modal interaction response's data); its submission carries id and nonce back. */
export function reasonModal(
  request: Pick<ConfirmationRequest, 'id' | 'nonce' | 'options'>,
): APIModalInteractionResponseCallbackData {
  return {
    custom_id: customId(request, { kind: 'modal', index: 0 }),
    title: cut(`${request.options[1] ?? 'Deny'} with a reason`, 45),
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.TextInput,
            custom_id: REASON_INPUT,
            style: TextInputStyle.Paragraph,
            label: 'Reason (the agent sees it)',
            max_length: MAX_REASON_CHARS,
            required: true,
          },
        ],
      },
    ],
  };
}
