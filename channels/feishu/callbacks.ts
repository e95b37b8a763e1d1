/**
 * @module channels/feishu/callbacks
 * Taps. `POST /channels/feishu/events` reads the raw body, verifies everything ({@link verifyCallback}: 401 on any
 * failure, never the SDK's silent 200), echoes URL-verification challenges, and hands verified payloads to the
 * SDK's `EventDispatcher`. Its `card.action.trigger` handler (also fed by the long connection) turns the tap into a
 * `DecisionEvent`, asks the gateway, and always answers `{toast, card}` with the card as it now stands, within 3 s.
 */
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { ChannelHost, DecideOutcome, DecisionSink } from '../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { sendProblem } from '../../src/http/problem.js';
import { BUTTON_NAMES, GRANT_BUTTON, MAX_REASON_CHARS, REASON_INPUT, type FeishuCard } from './card-json.js';
import { rejectionText, toastTexts } from './i18n.js';
import type { FeishuLanguage } from './options.js';
import { verifyCallback, type VerifyOptions } from './verify.js';

/** The path Feishu posts callbacks to (set it as the card callback URL in the developer console). */
export const FEISHU_EVENTS_PATH = '/channels/feishu/events';

/** What a card action is answered with: a toast for the approver and the card to show from now on. */
export interface CardActionReply {
  toast: { type: 'success' | 'info' | 'warning' | 'error'; content: string };
  card: { type: 'raw'; data: FeishuCard };
}

/** What the card-action handler needs. */
export interface CardActionDeps {
  /** The gateway, once the channel is mounted or started. */
  sink(): (DecisionSink & Partial<Pick<ChannelHost, 'events' | 'grantOffers'>>) | null;
  /** The card of a request as it is now (with its grant buttons while pending). */
  render(request: ConfirmationRequest): FeishuCard | Promise<FeishuCard>;
  notFound(): FeishuCard;
  language: FeishuLanguage;
  logger: Logger;
  /** Feishu shows the approver an error after 3 s: answer by then even if the decision is still being applied. */
  answerWithinMs: number;
}

/** The flattened `card.action.trigger` data the dispatcher hands its handlers (only the fields tollgate reads). */
interface CardActionData {
  operator?: { open_id?: unknown };
  action?: { value?: unknown; name?: unknown; form_value?: unknown };
}

/** Builds the `card.action.trigger` handler. It never throws: every path ends in a toast and a card. */
export function createCardActionHandler(deps: CardActionDeps): (data: unknown) => Promise<CardActionReply> {
  const toasts = toastTexts(deps.language);
  const reply = (type: CardActionReply['toast']['type'], content: string, card: FeishuCard): CardActionReply => ({
    toast: { type, content },
    card: { type: 'raw', data: card },
  });
  const cardOf = async (sink: DecisionSink, id: string | null, known?: ConfirmationRequest): Promise<FeishuCard> => {
    const request = known ?? (id ? await sink.get(id).catch(() => null) : null);
    return request ? await deps.render(request) : deps.notFound();
  };

  return async (raw) => {
    const data = (raw ?? {}) as CardActionData;
    const sink = deps.sink();
    const value = parseValue(data.action?.value);
    const openId = typeof data.operator?.open_id === 'string' ? data.operator.open_id : '';
    const name = data.action?.name;
    const grantIndex = typeof name === 'string' ? GRANT_BUTTON.exec(name)?.[1] : undefined;
    const decision =
      name === BUTTON_NAMES.approve || grantIndex !== undefined
        ? 'approve'
        : name === BUTTON_NAMES.deny
          ? 'deny'
          : null;
    // A grant button: the label the request's rule offers at that index now (none: the tap changes nothing).
    const grant =
      grantIndex !== undefined && sink?.grantOffers && sink.events && value
        ? sink.grantOffers(await sink.events(value.request_id))[Number(grantIndex)]?.label
        : undefined;
    if (grantIndex !== undefined && grant === undefined && sink && value)
      return reply('error', toasts.failed, await cardOf(sink, value.request_id));
    if (!sink || !value || !openId || !decision) {
      deps.logger.warn(
        { hasValue: Boolean(value), hasOperator: Boolean(openId), button: typeof name === 'string' ? name : null },
        'feishu card action not understood',
      );
      return reply(
        'error',
        toasts.notOurButton,
        sink ? await cardOf(sink, value?.request_id ?? null) : deps.notFound(),
      );
    }
    const decided = sink
      .decide({
        requestId: value.request_id,
        nonce: value.nonce,
        decision,
        reason: reasonOf(data.action?.form_value),
        grant,
        actor: { channel: 'feishu', userId: openId },
      })
      .catch((error: unknown) => {
        deps.logger.error({ err: error, requestId: value.request_id }, 'feishu tap could not be applied');
        return null;
      });
    const outcome = await withinTime(decided, deps.answerWithinMs);
    if (outcome === 'late') {
      // The decision still lands; the card-update job patches the card when it does.
      return reply('info', toasts.busy, await cardOf(sink, value.request_id));
    }
    if (outcome === null) return reply('error', toasts.failed, await cardOf(sink, value.request_id));
    return answer(outcome, value.request_id);
  };

  async function answer(outcome: DecideOutcome, requestId: string): Promise<CardActionReply> {
    const sink = deps.sink()!;
    if (outcome.ok) {
      const content = outcome.final
        ? outcome.request.status === 'approved'
          ? toasts.approved
          : toasts.denied
        : toasts.recorded;
      return reply(outcome.final ? 'success' : 'info', content, await deps.render(outcome.request));
    }
    const mild = outcome.code === 'already_decided' || outcome.code === 'duplicate_approval';
    return reply(
      mild ? 'warning' : 'error',
      rejectionText(deps.language, outcome.code, outcome.message, outcome.request),
      await cardOf(sink, requestId, outcome.request),
    );
  }
}

/** Options of {@link mountCallbackRoute}. */
export interface CallbackRouteOptions {
  verify: VerifyOptions;
  /** Receives verified, decrypted payloads (the SDK's `EventDispatcher`). */
  dispatcher: { invoke(data: unknown, params?: { needCheck?: boolean }): Promise<unknown> };
  logger: Logger;
  path?: string;
}

/** Adds `POST /channels/feishu/events`. The router runs before any body parser, so the raw bytes are intact. */
export function mountCallbackRoute(router: Router, options: CallbackRouteOptions): void {
  router.post(
    options.path ?? FEISHU_EVENTS_PATH,
    express.raw({ type: () => true, limit: '1mb' }),
    async (req, res, next) => {
      try {
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const verified = verifyCallback(raw, req.headers, options.verify);
        if (!verified.ok) {
          options.logger.warn(
            { status: verified.status, reason: verified.reason, ip: req.ip },
            'feishu callback refused',
          );
          sendProblem(res, verified.status, `Feishu callback refused: ${verified.reason}`, {
            code: verified.status === 401 ? 'feishu_unauthorized' : 'feishu_bad_callback',
          });
          return;
        }
        if (verified.challenge !== undefined) {
          res.json({ challenge: verified.challenge });
          return;
        }
        if (!(await firstUseEverywhere(req.get('x-lark-request-nonce'), options.verify))) {
          options.logger.warn(
            { status: 401, reason: 'replayed callback (nonce used on another replica)', ip: req.ip },
            'feishu callback refused',
          );
          sendProblem(res, 401, 'Feishu callback refused: replayed callback (nonce already used)', {
            code: 'feishu_unauthorized',
          });
          return;
        }
        const result = await options.dispatcher.invoke(verified.payload, { needCheck: false });
        // Card actions answer with {toast, card}; other events only need a 200.
        res.json(typeof result === 'object' && result !== null ? result : {});
      } catch (error) {
        next(error);
      }
    },
  );
}

/** Whether a verified callback's nonce is new on every replica sharing the marks (true without shared marks). */
async function firstUseEverywhere(nonce: string | undefined, verify: VerifyOptions): Promise<boolean> {
  if (!verify.shared || !nonce) return true;
  // Kept for twice the replay window, as the in-process cache does: a timestamp can be that far from another's.
  return verify.shared.add('feishu_nonce', nonce, new Date(verify.now() + verify.replayWindowS * 2000));
}

function parseValue(value: unknown): { request_id: string; nonce: string } | null {
  let object = value;
  if (typeof value === 'string') {
    try {
      object = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (typeof object !== 'object' || object === null) return null;
  const { request_id: requestId, nonce } = object as Record<string, unknown>;
  if (
    typeof requestId !== 'string' ||
    typeof nonce !== 'string' ||
    !requestId ||
    requestId.length > 100 ||
    nonce.length > 200
  )
    return null;
  return { request_id: requestId, nonce };
}

function reasonOf(formValue: unknown): string | undefined {
  if (typeof formValue !== 'object' || formValue === null) return undefined;
  const reason = (formValue as Record<string, unknown>)[REASON_INPUT];
  if (typeof reason !== 'string') return undefined;
  const trimmed = reason.trim().slice(0, MAX_REASON_CHARS);
  return trimmed || undefined;
}

/** Resolves with the promise's value, or `'late'` once `ms` have passed (the promise keeps running). */
async function withinTime<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
