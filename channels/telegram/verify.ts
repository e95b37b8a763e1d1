/**
 * @module channels/telegram/verify
 * Checks that a webhook update comes from Telegram: `setWebhook`'s `secret_token` comes back in
 * `X-Telegram-Bot-Api-Secret-Token` on every update (Telegram signs nothing; the secret and TLS are all there is), and
 * it is compared in constant time. Also remembers `update_id`s, so an update posted twice decides once.
 */
import { secretEquals } from '../../src/utils/secure-compare.js';
import { SeenOnce } from '../../src/utils/seen-once.js';

/** The header Telegram puts the webhook secret in. */
export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** Why a webhook call is refused, or null when it carries the secret. */
export function secretTokenProblem(header: string | undefined, secret: string): string | null {
  if (!header) return `missing ${SECRET_HEADER}`;
  return secretEquals(header, secret) ? null : `wrong ${SECRET_HEADER}`;
}

/** How long an `update_id` is remembered: ten minutes, well past Telegram's redelivery of an unanswered update. */
export const DEFAULT_REPLAY_WINDOW_S = 600;

/**
 * Update ids already handled, kept for the window. Telegram delivers an update again when our answer was lost or
 * slow, and a captured webhook call can be posted again with its header: either way the second copy is dropped.
 * In-process only (a replica that never saw the first copy takes the second, and the gateway's compare-and-set refuses
 * it as already decided).
 */
export class SeenUpdates extends SeenOnce<number> {
  constructor(windowS = DEFAULT_REPLAY_WINDOW_S, max = 10_000) {
    super(windowS * 1000, max);
  }
}
