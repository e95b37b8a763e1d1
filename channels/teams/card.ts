/**
 * @module channels/teams/card
 * The Adaptive Card layout of a tollgate card (schema 1.4, Universal Actions). The words come from `cardText()`
 * (src/channel/card.ts); this file only lays them out. Every string from a request is attacker-controlled: TextBlock markdown
 * is escaped and `{{…}}` (the DATE/TIME functions of TextBlocks) is broken up, so text shows as written.
 */
import { cardText, type CardText } from '../../src/channel/card.js';
import type { GrantButton } from '../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';

/** An Adaptive Card as JSON. */
export type AdaptiveCard = Record<string, unknown> & {
  type: 'AdaptiveCard';
  body: Record<string, unknown>[];
  actions: Record<string, unknown>[];
};

/** The content type of an Adaptive Card attachment and of an invoke response that refreshes one. */
export const ADAPTIVE_CARD = 'application/vnd.microsoft.card.adaptive';

/** The verb of every tollgate button. */
export const TOLLGATE_VERB = 'tollgate.decide';

/** What an `Action.Execute` of ours carries in `data`. */
export interface ActionData {
  requestId: string;
  nonce: string;
  /** `option` (index into the request's options) or `grant` (index into the offered grants). */
  kind: 'option' | 'grant';
  index: number;
}

/** Reads `value.action.data` of an `adaptiveCard/action` invoke; null when it is not one of ours. */
export function parseActionData(verb: unknown, data: unknown): ActionData | null {
  if (verb !== TOLLGATE_VERB || typeof data !== 'object' || data === null) return null;
  const d = data as Record<string, unknown>;
  const id = /^[\w-]{1,60}$/;
  if (typeof d.requestId !== 'string' || !id.test(d.requestId) || typeof d.nonce !== 'string' || !id.test(d.nonce))
    return null;
  if (
    (d.kind !== 'option' && d.kind !== 'grant') ||
    !Number.isInteger(d.index) ||
    (d.index as number) < 0 ||
    (d.index as number) > 50
  )
    return null;
  return { requestId: d.requestId, nonce: d.nonce, kind: d.kind, index: d.index as number };
}

/** Escapes TextBlock markdown and breaks `{{` so a DATE()/TIME() function cannot be smuggled in. */
export function escapeTextBlock(text: string): string {
  return text
    .replace(/[\\*_~`[\]()#>!-]/g, '\\$&')
    .replace(/\{\{/g, '{\u200b{')
    .replace(/^(\s*)(\d+)\./gm, '$1$2\\.');
}

const TONE_COLOUR: Record<CardText['tone'], string> = { waiting: 'Warning', good: 'Good', bad: 'Attention' };

/** The card for `request` in its current state: buttons while pending, the outcome and no buttons after; `note` adds a line for the tapper. */
export function adaptiveCard(
  request: ConfirmationRequest,
  options: { maxArgsChars?: number; grants?: readonly GrantButton[]; note?: string; publicUrl?: string | null } = {},
): AdaptiveCard {
  const text = cardText(request, { maxArgsChars: options.maxArgsChars ?? 1500, publicUrl: options.publicUrl });
  const block = (value: string, extra: Record<string, unknown> = {}) => ({
    type: 'TextBlock',
    text: escapeTextBlock(value),
    wrap: true,
    ...extra,
  });
  const facts = [
    { title: 'Tool', value: escapeTextBlock(text.toolName) },
    ...(text.requester ? [{ title: 'Requested by', value: escapeTextBlock(text.requester) }] : []),
    { title: 'Approvers', value: escapeTextBlock(text.approvers) },
    { title: 'Expires', value: text.expiresAt },
  ];
  const body: Record<string, unknown>[] = [
    block(text.title, { size: 'Medium', weight: 'Bolder', color: TONE_COLOUR[text.tone] }),
    block(text.prompt),
    ...summaryElements(text, block),
    { type: 'FactSet', facts },
    ...argumentElements(text, block),
    block(text.status, { weight: 'Bolder', color: TONE_COLOUR[text.tone] }),
  ];
  if (options.note) body.push(block(options.note, { color: 'Attention', isSubtle: false }));
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: '1.4',
    body,
    actions: text.actionable ? actions(request, options.grants ?? []) : [],
  };
}

type Block = (value: string, extra?: Record<string, unknown>) => Record<string, unknown>;

const RISK_COLOUR = { high: 'Attention', medium: 'Warning', low: 'Good' } as const;
const RAW_ARGS_ID = 'tollgate-raw-args';

/** The call summary: the risk and its reasons, a headline, a line per file, program or statement, the first diff lines. */
function summaryElements(text: CardText, block: Block): Record<string, unknown>[] {
  const view = text.summary;
  if (!view) return [];
  const items = [...view.items, ...(view.moreLine ? [view.moreLine] : [])];
  const elements = [block(view.riskLine, { weight: 'Bolder', color: RISK_COLOUR[view.risk] })];
  if (view.headline) elements.push(block(view.headline, { weight: 'Bolder', spacing: 'Small' }));
  items.forEach((item) => elements.push(block(item, { fontType: 'Monospace', spacing: 'None', size: 'Small' })));
  if (view.diffLines.length)
    elements.push(
      block([...view.diffLines, ...(view.diffMore ? ['…'] : [])].join('\n'), { fontType: 'Monospace', size: 'Small' }),
    );
  return elements;
}

/**
 * The raw arguments: shown as before when the summary reads nothing of the call (the arguments are then the best
 * description), else one tap away in a collapsed container; and the request page's link, when it is known.
 */
function argumentElements(text: CardText, block: Block): Record<string, unknown>[] {
  const collapsed = !!text.summary?.readsCall;
  const args = block(text.argsPreview, { fontType: 'Monospace' });
  const links: Record<string, unknown>[] = [];
  if (collapsed)
    links.push({ type: 'Action.ToggleVisibility', title: 'Show the raw arguments', targetElements: [RAW_ARGS_ID] });
  if (text.link) links.push({ type: 'Action.OpenUrl', title: 'Open the request page', url: text.link });
  return [
    collapsed ? { type: 'Container', id: RAW_ARGS_ID, isVisible: false, items: [args] } : args,
    ...(links.length ? [{ type: 'ActionSet', actions: links }] : []),
  ];
}

function actions(request: ConfirmationRequest, grants: readonly GrantButton[]): Record<string, unknown>[] {
  const execute = (title: string, kind: ActionData['kind'], index: number, style?: string) => ({
    type: 'Action.Execute',
    title: title.slice(0, 80),
    verb: TOLLGATE_VERB,
    data: { requestId: request.id, nonce: request.nonce, kind, index } satisfies ActionData,
    ...(style ? { style } : {}),
  });
  const list = request.options.map((label, index) =>
    execute(label, 'option', index, index === 0 ? 'positive' : index === 1 ? 'destructive' : undefined),
  );
  grants.forEach((g, index) => list.push(execute(g.label, 'grant', index)));
  return list;
}
