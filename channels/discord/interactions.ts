/**
 * @module channels/discord/interactions
 * The interactions endpoint, `POST /channels/discord/interactions`: Discord posts every button tap here (and a PING
 * when the URL is saved in the developer portal). The raw body is verified first ({@link interactionProblem}: 401 and
 * nothing changes on a bad or missing signature or a stale timestamp); then a tap becomes a decision for the gateway,
 * and the answer is the interaction response itself: UPDATE_MESSAGE (type 7) with the final card, or an ephemeral
 * message (type 4, flags 64) only the tapper sees, saying why nothing changed.
 */
import type { KeyObject } from 'node:crypto';
import {
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  type APIInteractionResponse,
} from 'discord-api-types/v10';
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type {
  ChannelHost,
  DecideOutcome,
  DecisionActor,
  DecisionEvent,
  DecisionSink,
} from '../../src/channel/channel.js';
import { describeError } from '../../src/api/errors.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import {
  MAX_REASON_CHARS,
  REASON_INPUT,
  escapeMarkdown,
  parseCustomId,
  reasonModal,
  type ButtonRef,
  type DiscordMessage,
} from './message.js';
import { SeenInteractions, interactionProblem } from './verify.js';

/** Where Discord posts interactions (the developer portal's "Interactions Endpoint URL" ends with this path). */
export const DISCORD_INTERACTIONS_PATH = '/channels/discord/interactions';

/** What the endpoint needs. */
export interface InteractionDeps {
  /** The gateway; `events` and `grantOffers` (when present) resolve a grant button's label. */
  host: DecisionSink & Partial<Pick<ChannelHost, 'events' | 'grantOffers' | 'mayDecide'>>;
  key: KeyObject;
  now: () => number;
  windowS?: number;
  logger: Logger;
  /** The card of a request in its current state (the channel's own layout and options). */
  card(request: ConfirmationRequest): Promise<DiscordMessage>;
}

/** The parts of an interaction tollgate reads; everything else Discord sends is ignored. */
interface Interaction {
  id?: unknown;
  type?: number;
  data?: { custom_id?: unknown; components?: unknown };
  member?: { user?: DiscordUser };
  user?: DiscordUser;
}

interface DiscordUser {
  id?: unknown;
  username?: unknown;
  global_name?: unknown;
}

/** Adds `POST /channels/discord/interactions`. The router runs before any body parser, so the raw bytes are intact. */
export function mountInteractions(router: Router, deps: InteractionDeps): void {
  const seen = new SeenInteractions(deps.windowS);
  router.post(DISCORD_INTERACTIONS_PATH, express.raw({ type: () => true, limit: '256kb' }), async (req, res, next) => {
    try {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const problem = interactionProblem(raw, req.get('x-signature-ed25519'), req.get('x-signature-timestamp'), {
        key: deps.key,
        now: deps.now(),
        windowS: deps.windowS,
      });
      if (problem) {
        deps.logger.warn({ ip: req.ip, problem }, 'discord interaction rejected');
        res.status(401).json({ error: 'invalid request signature' });
        return;
      }
      let interaction: Interaction;
      try {
        interaction = JSON.parse(raw.toString('utf8')) as Interaction;
      } catch {
        res.status(400).json({ error: 'body is not JSON' });
        return;
      }
      if (typeof interaction.id === 'string' && !seen.firstUse(interaction.id, deps.now())) {
        deps.logger.warn({ ip: req.ip, problem: 'interaction id seen before' }, 'discord interaction rejected');
        res.status(401).json({ error: 'replayed interaction' });
        return;
      }
      res.json(await answer(deps, interaction));
    } catch (error) {
      next(error);
    }
  });
}

/** The interaction response for a verified interaction. */
async function answer(deps: InteractionDeps, interaction: Interaction): Promise<APIInteractionResponse> {
  if (interaction.type === InteractionType.Ping) return { type: InteractionResponseType.Pong };
  const component = interaction.type === InteractionType.MessageComponent;
  if (!component && interaction.type !== InteractionType.ModalSubmit)
    return ephemeral('tollgate only answers the buttons of its cards.');
  const user = interaction.member?.user ?? interaction.user;
  const ref = parseCustomId(interaction.data?.custom_id);
  // A dialog id on a button, or a button id on a dialog, is not something tollgate sent.
  if (!ref || typeof user?.id !== 'string' || component === (ref.action.kind === 'modal'))
    return ephemeral('This button does not belong to a tollgate request.');
  const actor = actorOf(user as DiscordUser & { id: string });
  if (ref.action.kind === 'modal') {
    const reason = reasonOf(interaction.data)?.trim().slice(0, MAX_REASON_CHARS);
    return decideAndAnswer(deps, {
      requestId: ref.requestId,
      nonce: ref.nonce,
      decision: 'deny',
      reason: reason || undefined,
      actor,
    });
  }
  if (ref.action.kind === 'reason') {
    const request = await deps.host.get(ref.requestId);
    const heard = request && (deps.host.mayDecide?.(request, `discord:${actor.userId}`) ?? true);
    if (heard && request?.status === 'pending' && request.nonce === ref.nonce)
      return { type: InteractionResponseType.Modal, data: reasonModal(request) };
    // The dialog would be refused on submission anyway: let the gateway refuse now (it records why) and say so.
  }
  const event = await eventFor(deps, ref, actor);
  return typeof event === 'string' ? ephemeral(event) : decideAndAnswer(deps, event);
}

/** Applies a decision and answers: the final card in place, or an ephemeral sentence when it is not final. */
async function decideAndAnswer(deps: InteractionDeps, event: DecisionEvent): Promise<APIInteractionResponse> {
  let outcome: DecideOutcome;
  try {
    outcome = await deps.host.decide(event);
  } catch (error) {
    deps.logger.error({ requestId: event.requestId, err: describeError(error) }, 'decision from discord failed');
    return ephemeral('Something went wrong while recording your decision; nothing changed. Please try again.');
  }
  if (!outcome.ok) return ephemeral(`Nothing changed: ${outcome.message}`);
  if (!outcome.final) return ephemeral('Your approval is recorded; the request waits for more approvers.');
  // The tapped message shows the verdict at once; the gateway's update job rewrites the request's other cards.
  return { type: InteractionResponseType.UpdateMessage, data: await deps.card(outcome.request) };
}

/** The decision a button stands for, or the sentence telling the tapper why there is none. */
async function eventFor(deps: InteractionDeps, ref: ButtonRef, actor: DecisionActor): Promise<DecisionEvent | string> {
  const base = { requestId: ref.requestId, nonce: ref.nonce, actor };
  const { index } = ref.action;
  if (ref.action.kind === 'reason') return { ...base, decision: 'deny' };
  if (ref.action.kind === 'grant') {
    // The label is looked up again now: the card may be older than the rule that offered the grant.
    const offers =
      deps.host.events && deps.host.grantOffers ? deps.host.grantOffers(await deps.host.events(ref.requestId)) : [];
    const grant = offers[index]?.label;
    return grant === undefined
      ? 'This grant is not offered for this request any more; nothing changed. Use Approve instead.'
      : { ...base, decision: 'approve', grant };
  }
  // Option 0 approves and option 1 denies; any further option approves under its own label.
  const option = index >= 2 ? (await deps.host.get(ref.requestId))?.options[index] : undefined;
  return { ...base, decision: index === 1 ? 'deny' : 'approve', option };
}

/** The text typed into the dialog's reason input (in an action row, or in a label component). */
function reasonOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const node = data as { custom_id?: unknown; value?: unknown; components?: unknown; component?: unknown };
  if (node.custom_id === REASON_INPUT && typeof node.value === 'string') return node.value;
  const children = [...(Array.isArray(node.components) ? node.components : []), node.component];
  for (const child of children) {
    const found = reasonOf(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

function actorOf(user: DiscordUser & { id: string }): DecisionActor {
  const name =
    typeof user.global_name === 'string'
      ? user.global_name
      : typeof user.username === 'string'
        ? user.username
        : undefined;
  return name ? { channel: 'discord', userId: user.id, name } : { channel: 'discord', userId: user.id };
}

/** A message only the tapper sees; the text can name approvers and reasons, so it is escaped and pings nobody. */
function ephemeral(text: string): APIInteractionResponse {
  return {
    type: InteractionResponseType.ChannelMessageWithSource,
    data: { content: escapeMarkdown(text), flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } },
  };
}
