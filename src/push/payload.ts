/**
 * @module push/payload
 * What a push notification says, worded by the one card model (`card.ts`): the card's title, and a body of the
 * prompt, the call summary's risk, headline and first items, and the key arguments where the summary reads nothing of
 * the call (masked as the card masks them), cut so the whole JSON stays within 3 KB (push
 * services refuse more than about 4 KB, and encryption adds some). Text from agents is stripped of control
 * characters: the operating system shows it on a lock screen.
 */
import { cardText, keyArguments, requestPageUrl } from '../channel/card.js';
import { summaryLines } from '../channel/card-summary.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { terminalText } from '../utils/terminal-text.js';

/** The most a payload's JSON may take, in bytes. */
export const MAX_PAYLOAD_BYTES = 3072;

/** A notification's data, as the service worker reads it. */
export interface PushPayload {
  request_id: string;
  title: string;
  body: string;
  /** `['approve', 'deny']` while the request waits; empty for an outcome. */
  actions: ('approve' | 'deny')[];
  /** The single-use token the Approve button posts (absent for an outcome). */
  action_token?: string;
  /** The request's page in the inbox (Deny and a tap on the notification open it). */
  url: string;
  /** The request's status: `pending`, or the outcome that replaces the notification. */
  status: ConfirmationRequest['status'];
}

/**
 * The payload announcing `request` (pending) or its outcome (final), with `actionToken` for a pending one.
 * @example pushPayload(request, 'https://gate.example.com', token).actions // ['approve', 'deny']
 */
export function pushPayload(request: ConfirmationRequest, baseUrl: string, actionToken?: string): PushPayload {
  const card = cardText(request, { maxArgsChars: 600, summaryLimits: { maxItems: 4, maxLineChars: 100 } });
  const pending = request.status === 'pending';
  // The risk comes first after the prompt: a lock screen shows only the first lines.
  // The key arguments stay where the summary reads nothing of the call (an unknown tool's are its best description).
  const args = card.summary?.readsCall
    ? []
    : keyArguments(request.toolArgs, 4, 100).map(([name, value]) => `${name}: ${value}`);
  const lines = !pending
    ? [card.status]
    : card.summary
      ? [card.prompt.slice(0, 300), ...summaryLines(card.summary), ...args]
      : [card.prompt, ...args];
  const payload: PushPayload = {
    request_id: request.id,
    title: clean(card.title, 120),
    body: clean(lines.join('\n'), 1000),
    actions: pending && actionToken ? ['approve', 'deny'] : [],
    ...(pending && actionToken ? { action_token: actionToken } : {}),
    url: requestPageUrl(baseUrl, request.id),
    status: request.status,
  };
  // Multi-byte text can still pass the bound after the character cuts: shorten the body until it fits.
  while (Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES && payload.body.length > 0)
    payload.body = payload.body.slice(0, Math.floor(payload.body.length * 0.8));
  return payload;
}

function clean(text: string, max: number): string {
  const safe = terminalText(text);
  return safe.length > max ? `${safe.slice(0, max - 1)}…` : safe;
}
