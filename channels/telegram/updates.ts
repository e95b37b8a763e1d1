/**
 * @module channels/telegram/updates
 * How taps reach the gateway. Both modes feed the same grammY middleware: webhook mode mounts
 * `POST /channels/telegram/webhook` (401 and nothing changes without the right `X-Telegram-Bot-Api-Secret-Token`),
 * polling mode lets grammY's `bot.start()` pull `getUpdates`. A `callback_query` becomes a decision for the gateway and
 * is answered with a toast (`answerCallbackQuery`) saying what happened; the gateway's update job then edits every
 * card of the request, the tapped one included.
 */
import express, { type Router } from 'express';
import type { Api, Bot } from 'grammy';
import type { CallbackQuery } from 'grammy/types';
import type { Logger } from 'pino';
import { outcomeText } from '../../src/channel/card.js';
import type { ChannelHost, DecisionActor, DecisionEvent, DecisionSink } from '../../src/channel/channel.js';
import { describeError } from '../../src/api/errors.js';
import { parseCallbackData, type ButtonRef } from './message.js';
import { SeenUpdates, secretTokenProblem, SECRET_HEADER } from './verify.js';

/** Where Telegram posts updates in webhook mode (the URL given to `setWebhook` ends with this path). */
export const TELEGRAM_WEBHOOK_PATH = '/channels/telegram/webhook';

/** What the tap handler needs: the gateway (known once the channel is mounted or started), its clock, a logger. */
export interface UpdateDeps {
  host(): (DecisionSink & Partial<Pick<ChannelHost, 'events' | 'grantOffers' | 'now'>>) | null;
  logger: Logger;
  replayWindowS?: number;
}

/** A toast: the text Telegram shows the tapper, and whether as an alert they must dismiss. */
interface Toast {
  text: string;
  alert: boolean;
}

/** Registers the middleware every update goes through, in both modes: replay check, then the tap handler (answering through `api`). */
export function handleUpdates(bot: Bot, api: Api, deps: UpdateDeps): void {
  const seen = new SeenUpdates(deps.replayWindowS);
  bot.use(async (ctx, next) => {
    const now = deps.host()?.now?.() ?? Date.now();
    if (!seen.firstUse(ctx.update.update_id, now)) {
      deps.logger.warn({ updateId: ctx.update.update_id }, 'telegram update seen before: ignored');
      return;
    }
    await next();
  });
  bot.on('callback_query:data', async (ctx) => {
    const toast = await tapToast(deps, ctx.callbackQuery);
    try {
      // Always answered: an unanswered callback query leaves the button spinning on the tapper's screen.
      await api.answerCallbackQuery(ctx.callbackQuery.id, { text: toast.text.slice(0, 200), show_alert: toast.alert });
    } catch (error) {
      deps.logger.warn({ err: describeError(error) }, 'telegram answerCallbackQuery failed');
    }
  });
  bot.catch((error) => deps.logger.error({ err: describeError(error.error) }, 'telegram update failed'));
}

/**
 * Adds `POST /channels/telegram/webhook`. The secret is checked before the body is even parsed; a refused call is a
 * 401 and a log line, never a state change. `ready` initialises the bot (`getMe`) before its first update.
 */
export function mountWebhook(
  router: Router,
  bot: Bot,
  options: { secret: string; logger: Logger; ready(): Promise<void> },
): void {
  router.post(TELEGRAM_WEBHOOK_PATH, express.raw({ type: () => true, limit: '256kb' }), async (req, res, next) => {
    try {
      const problem = secretTokenProblem(req.get(SECRET_HEADER), options.secret);
      if (problem) {
        options.logger.warn({ ip: req.ip, problem }, 'telegram webhook call rejected');
        res.status(401).json({ error: 'invalid secret token' });
        return;
      }
      let update: unknown;
      try {
        update = JSON.parse((Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)).toString('utf8'));
      } catch {
        res.status(400).json({ error: 'body is not JSON' });
        return;
      }
      if (
        typeof update !== 'object' ||
        update === null ||
        typeof (update as { update_id?: unknown }).update_id !== 'number'
      ) {
        res.status(400).json({ error: 'not a Telegram update' });
        return;
      }
      await options.ready();
      await bot.handleUpdate(update as Parameters<Bot['handleUpdate']>[0]);
      res.json({});
    } catch (error) {
      next(error);
    }
  });
}

/** Applies a tap and words the toast: the verdict, "waiting for more", or why nothing changed. */
async function tapToast(deps: UpdateDeps, query: CallbackQuery): Promise<Toast> {
  const host = deps.host();
  const ref = parseCallbackData(query.data);
  if (!ref || !host) return { text: 'This button does not belong to a tollgate request.', alert: true };
  const event = await eventFor(host, ref, actorOf(query.from));
  if (typeof event === 'string') return { text: event, alert: true };
  try {
    const outcome = await host.decide(event);
    if (!outcome.ok) return { text: `Nothing changed: ${outcome.message}`, alert: true };
    if (!outcome.final)
      return { text: 'Your approval is recorded; the request waits for more approvers.', alert: false };
    return { text: outcomeText(outcome.request), alert: false };
  } catch (error) {
    deps.logger.error({ requestId: event.requestId, err: describeError(error) }, 'decision from telegram failed');
    return {
      text: 'Something went wrong while recording your decision; nothing changed. Please try again.',
      alert: true,
    };
  }
}

/** The decision a button stands for, or the sentence telling the tapper why there is none. */
async function eventFor(
  host: NonNullable<ReturnType<UpdateDeps['host']>>,
  ref: ButtonRef,
  actor: DecisionActor,
): Promise<DecisionEvent | string> {
  const base = { requestId: ref.requestId, nonce: ref.nonce, actor };
  const { index } = ref.action;
  if (ref.action.kind === 'grant') {
    // The label is looked up again now: the card may be older than the rule that offered the grant.
    const offers = host.events && host.grantOffers ? host.grantOffers(await host.events(ref.requestId)) : [];
    const grant = offers[index]?.label;
    return grant === undefined
      ? 'This grant is not offered for this request any more; nothing changed. Use Approve instead.'
      : { ...base, decision: 'approve', grant };
  }
  // Option 0 approves and option 1 denies; any further option approves under its own label.
  const option = index >= 2 ? (await host.get(ref.requestId))?.options[index] : undefined;
  return { ...base, decision: index === 1 ? 'deny' : 'approve', option };
}

function actorOf(from: CallbackQuery['from']): DecisionActor {
  const name = from.username ?? [from.first_name, from.last_name].filter(Boolean).join(' ');
  return name
    ? { channel: 'telegram', userId: String(from.id), name }
    : { channel: 'telegram', userId: String(from.id) };
}
