/**
 * @module channels/teams/messages
 * The messaging endpoint, `POST /channels/teams/messages`: Teams posts every activity here. The bearer token is
 * verified first, with the activity's channel (`verify.ts`), then its tenant: 401, a log line and nothing changes
 * otherwise. A `conversationUpdate` / `installationUpdate` records the conversation's reference; an
 * `adaptiveCard/action` invoke becomes a decision, answered with the refreshed card.
 */
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { ChannelHost, DecideOutcome, DecisionEvent, DecisionSink } from '../../src/channel/channel.js';
import { describeError } from '../../src/api/errors.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { ADAPTIVE_CARD, parseActionData, type ActionData, type AdaptiveCard } from './card.js';
import type { TeamsConversationStore } from './conversations.js';
import type { TeamsTokenVerifier } from './verify.js';

/** Where Teams posts activities (the Azure bot's messaging endpoint ends with this path). */
export const TEAMS_MESSAGES_PATH = '/channels/teams/messages';

/** What the endpoint needs. */
export interface MessagesDeps {
  host: DecisionSink & Partial<Pick<ChannelHost, 'events' | 'grantOffers'>>;
  verifier: TeamsTokenVerifier;
  conversations: TeamsConversationStore;
  /** The bot's tenant: a single-tenant bot acts on no activity of another tenant (no tap, no conversation kept). */
  tenantId: string;
  logger: Logger;
  /** The card of a request in its current state, with an optional line for the tapper. */
  card(request: ConfirmationRequest, note?: string): Promise<AdaptiveCard>;
}

/** The parts of an activity tollgate reads. */
interface Activity {
  type?: unknown;
  name?: unknown;
  channelId?: unknown;
  serviceUrl?: unknown;
  conversation?: { id?: unknown; tenantId?: unknown };
  channelData?: { tenant?: { id?: unknown } };
  from?: { aadObjectId?: unknown; name?: unknown };
  value?: { action?: { verb?: unknown; data?: unknown } };
}

/** Adds `POST /channels/teams/messages`. */
export function mountMessages(router: Router, deps: MessagesDeps): void {
  router.post(TEAMS_MESSAGES_PATH, express.json({ limit: '256kb', type: () => true }), async (req, res, next) => {
    try {
      const activity = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Activity;
      const problem =
        (await deps.verifier.problem(req.get('authorization'), activity)) ?? tenantProblem(activity, deps.tenantId);
      if (problem) {
        deps.logger.warn({ ip: req.ip, problem }, 'teams activity rejected');
        res.status(401).json({ error: 'unauthorized' });
        return;
      }
      if (
        activity.type === 'conversationUpdate' ||
        activity.type === 'installationUpdate' ||
        activity.type === 'message'
      ) {
        await remember(deps, activity);
        res.status(200).json({});
        return;
      }
      if (activity.type === 'invoke' && activity.name === 'adaptiveCard/action') {
        await remember(deps, activity);
        res.status(200).json(await answerTap(deps, activity));
        return;
      }
      res.status(200).json({});
    } catch (error) {
      next(error);
    }
  });
}

/**
 * Null when the activity belongs to the configured tenant; otherwise why not. Teams names the tenant in
 * `channelData.tenant.id` and `conversation.tenantId`: at least one must be there, and every one there must be ours
 * (a genuine token says nothing about the tenant, and the Bot Framework signs for every tenant's Teams alike).
 */
function tenantProblem(activity: Activity, tenantId: string): string | null {
  const named = [activity.channelData?.tenant?.id, activity.conversation?.tenantId].filter((t) => t !== undefined);
  if (!named.length) return 'activity names no tenant';
  const other = named.find((t) => typeof t !== 'string' || t.toLowerCase() !== tenantId.toLowerCase());
  return other === undefined ? null : `tenant ${JSON.stringify(other).slice(0, 80)} is not the configured tenant`;
}

/** Records the conversation an activity came from (its tenant already checked: ours). */
async function remember(deps: MessagesDeps, activity: Activity): Promise<void> {
  const conversationId = activity.conversation?.id;
  if (typeof conversationId !== 'string' || typeof activity.serviceUrl !== 'string') return;
  await deps.conversations.save({ conversationId, serviceUrl: activity.serviceUrl, tenantId: deps.tenantId });
}

/** The invoke response body: always the card, refreshed, with a line saying why when nothing changed. */
async function answerTap(deps: MessagesDeps, activity: Activity): Promise<Record<string, unknown>> {
  const data = parseActionData(activity.value?.action?.verb, activity.value?.action?.data);
  const userId = activity.from?.aadObjectId;
  if (!data || typeof userId !== 'string') return message('This button does not belong to a tollgate request.');
  const name = typeof activity.from?.name === 'string' ? activity.from.name : undefined;
  const event = await eventFor(deps, data, { channel: 'teams', userId, ...(name ? { name } : {}) });
  if (typeof event === 'string') return refreshed(deps, data.requestId, event);
  let outcome: DecideOutcome;
  try {
    outcome = await deps.host.decide(event);
  } catch (error) {
    deps.logger.error({ requestId: data.requestId, err: describeError(error) }, 'decision from teams failed');
    return refreshed(
      deps,
      data.requestId,
      'Something went wrong while recording your decision; nothing changed. Please try again.',
    );
  }
  if (!outcome.ok) return refreshed(deps, data.requestId, `Nothing changed: ${outcome.message}`, outcome.request);
  const note = outcome.final ? undefined : 'Your approval is recorded; the request waits for more approvers.';
  return { statusCode: 200, type: ADAPTIVE_CARD, value: await deps.card(outcome.request, note) };
}

async function eventFor(
  deps: MessagesDeps,
  data: ActionData,
  actor: DecisionEvent['actor'],
): Promise<DecisionEvent | string> {
  const base = { requestId: data.requestId, nonce: data.nonce, actor };
  if (data.kind === 'grant') {
    // Looked up again now: the card may be older than the rule that offered the grant.
    const offers =
      deps.host.events && deps.host.grantOffers ? deps.host.grantOffers(await deps.host.events(data.requestId)) : [];
    const grant = offers[data.index]?.label;
    return grant === undefined
      ? 'This grant is not offered for this request any more; nothing changed. Use Approve instead.'
      : { ...base, decision: 'approve', grant };
  }
  const option = data.index >= 2 ? (await deps.host.get(data.requestId))?.options[data.index] : undefined;
  return { ...base, decision: data.index === 1 ? 'deny' : 'approve', option };
}

async function refreshed(
  deps: MessagesDeps,
  requestId: string,
  note: string,
  known?: ConfirmationRequest,
): Promise<Record<string, unknown>> {
  const request = known ?? (await deps.host.get(requestId));
  if (!request) return message(note);
  return { statusCode: 200, type: ADAPTIVE_CARD, value: await deps.card(request, note) };
}

/** An invoke answer without a card (the request is unknown): Teams shows the text to the tapper. */
function message(text: string): Record<string, unknown> {
  return { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: text };
}
