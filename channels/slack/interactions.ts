/**
 * @module channels/slack/interactions
 * What happens when someone taps a card: Bolt listeners for the option buttons, the "deny with a reason" button and
 * the reason modal's submission. Each one acknowledges first (Slack wants an answer within 3 s), then asks the
 * gateway. Only the button value (request id + nonce) and the tapping user's id are taken from the payload; the
 * gateway checks the nonce, the allowlist and the state, and records a `decision_rejected` event when it refuses.
 * The approver learns why through an ephemeral message.
 */
import type { App, BlockAction, ButtonAction, RespondFn, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { ChannelHost, DecideOutcome, DecisionActor, DecisionSink } from '../../src/channel/channel.js';
import {
  DENY_WITH_REASON_ACTION,
  GRANT_ACTION,
  OPTION_ACTION,
  REASON_INPUT,
  REASON_MODAL,
  escapeMrkdwn,
  parseButtonValue,
  parseModalMetadata,
  reasonModal,
} from './blocks.js';
import { describeError } from '../../src/api/errors.js';

/** What the listeners need. */
export interface InteractionDeps {
  /** The gateway; `events` and `grantOffers` (when present) resolve a grant button's label. */
  gateway: DecisionSink & Partial<Pick<ChannelHost, 'events' | 'grantOffers'>>;
  client: WebClient;
  logger: Logger;
}

/** Where to tell an approver something only they see. */
interface Audience {
  userId: string;
  channelId?: string;
  respond?: RespondFn;
}

/** Registers tollgate's listeners on a Bolt app (HTTP receiver or Socket Mode alike). */
export function registerInteractions(app: App, deps: InteractionDeps): void {
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: OPTION_ACTION },
    async ({ ack, body, action, respond }) => {
      await ack();
      await onOptionTap(deps, body, action, respond);
    },
  );

  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: GRANT_ACTION },
    async ({ ack, body, action, respond }) => {
      await ack();
      await onGrantTap(deps, body, action, respond);
    },
  );

  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: DENY_WITH_REASON_ACTION },
    async ({ ack, body, action, respond }) => {
      await ack();
      await onDenyWithReasonTap(deps, body, action, respond);
    },
  );

  app.view<ViewSubmitAction>({ type: 'view_submission', callback_id: REASON_MODAL }, async ({ ack, body, view }) => {
    await ack();
    await onReasonSubmitted(deps, body, view);
  });

  // Other apps' buttons on the same workspace never reach us, but an old card layout might: answer instead of
  // letting Bolt time out with a 404.
  app.action(/^(?!tollgate_)/, async ({ ack }) => {
    await ack();
  });

  app.error(async (error) => {
    deps.logger.error({ err: messageOf(error) }, 'slack listener failed');
  });
}

function actorOf(user: { id: string; name?: string; username?: string }): DecisionActor {
  const name = user.name ?? user.username;
  return name ? { channel: 'slack', userId: user.id, name } : { channel: 'slack', userId: user.id };
}

function audienceOf(body: BlockAction<ButtonAction>, respond: RespondFn): Audience {
  const channelId =
    body.channel?.id ?? (typeof body.container.channel_id === 'string' ? body.container.channel_id : undefined);
  return { userId: body.user.id, channelId, respond };
}

async function onOptionTap(
  deps: InteractionDeps,
  body: BlockAction<ButtonAction>,
  action: ButtonAction,
  respond: RespondFn,
): Promise<void> {
  const audience = audienceOf(body, respond);
  const ref = parseButtonValue(action.value);
  const index = Number(OPTION_ACTION.exec(action.action_id)?.[1] ?? NaN);
  if (!ref || Number.isNaN(index)) {
    await tell(deps, audience, 'This button does not belong to a tollgate request.');
    return;
  }
  // Option 0 approves and option 1 denies; any further option approves under its own label.
  const decision = index === 1 ? 'deny' : 'approve';
  const option = index >= 2 ? (await deps.gateway.get(ref.requestId))?.options[index] : undefined;
  const outcome = await decide(deps, { ...ref, decision, option, actor: actorOf(body.user) });
  await explain(deps, audience, outcome);
}

/** A standing-grant button: approve, and give the grant the request's rule offers at that index now. */
async function onGrantTap(
  deps: InteractionDeps,
  body: BlockAction<ButtonAction>,
  action: ButtonAction,
  respond: RespondFn,
): Promise<void> {
  const audience = audienceOf(body, respond);
  const ref = parseButtonValue(action.value);
  const index = Number(GRANT_ACTION.exec(action.action_id)?.[1] ?? NaN);
  const offers =
    ref && deps.gateway.events && deps.gateway.grantOffers
      ? deps.gateway.grantOffers(await deps.gateway.events(ref.requestId))
      : [];
  const grant = offers[index]?.label;
  if (!ref || grant === undefined) {
    await tell(
      deps,
      audience,
      'This grant is not offered for this request any more; nothing changed. Use Approve instead.',
    );
    return;
  }
  await explain(deps, audience, await decide(deps, { ...ref, decision: 'approve', grant, actor: actorOf(body.user) }));
}

async function onDenyWithReasonTap(
  deps: InteractionDeps,
  body: BlockAction<ButtonAction>,
  action: ButtonAction,
  respond: RespondFn,
): Promise<void> {
  const audience = audienceOf(body, respond);
  const ref = parseButtonValue(action.value);
  if (!ref) {
    await tell(deps, audience, 'This button does not belong to a tollgate request.');
    return;
  }
  const request = await deps.gateway.get(ref.requestId);
  if (!request || request.status !== 'pending' || request.nonce !== ref.nonce) {
    // The modal would be refused on submission anyway: let the gateway refuse now (it records why) and say so.
    await explain(deps, audience, await decide(deps, { ...ref, decision: 'deny', actor: actorOf(body.user) }));
    return;
  }
  try {
    await deps.client.views.open({
      trigger_id: body.trigger_id,
      view: reasonModal(request, { ...ref, channelId: audience.channelId }),
    });
  } catch (error) {
    deps.logger.warn({ requestId: ref.requestId, err: messageOf(error) }, 'could not open the reason modal');
    await tell(deps, audience, 'The reason dialog could not be opened; please try again.');
  }
}

async function onReasonSubmitted(
  deps: InteractionDeps,
  body: ViewSubmitAction,
  view: ViewSubmitAction['view'],
): Promise<void> {
  const meta = parseModalMetadata(view.private_metadata);
  const audience: Audience = { userId: body.user.id, channelId: meta?.channelId };
  if (!meta) {
    await tell(deps, audience, 'This dialog does not belong to a tollgate request.');
    return;
  }
  const reason = view.state.values[REASON_INPUT.block]?.[REASON_INPUT.action]?.value?.trim();
  const outcome = await decide(deps, {
    requestId: meta.requestId,
    nonce: meta.nonce,
    decision: 'deny',
    reason: reason || undefined,
    actor: actorOf(body.user),
  });
  await explain(deps, audience, outcome);
}

async function decide(
  deps: InteractionDeps,
  event: Parameters<DecisionSink['decide']>[0],
): Promise<DecideOutcome | null> {
  try {
    return await deps.gateway.decide(event);
  } catch (error) {
    deps.logger.error({ requestId: event.requestId, err: messageOf(error) }, 'decision from slack failed');
    return null;
  }
}

/** Tells the approver what their tap did, when the card itself will not say it. */
async function explain(deps: InteractionDeps, audience: Audience, outcome: DecideOutcome | null): Promise<void> {
  if (outcome === null)
    await tell(
      deps,
      audience,
      'Something went wrong while recording your decision; nothing changed. Please try again.',
    );
  else if (!outcome.ok) await tell(deps, audience, `Nothing changed: ${outcome.message}`);
  else if (!outcome.final)
    await tell(deps, audience, 'Your approval is recorded; the request waits for more approvers.');
  // A final decision needs no message: every card of the request is about to show the outcome.
}

/** An ephemeral message in the card's conversation, or through the action's response_url when that fails. */
async function tell(deps: InteractionDeps, audience: Audience, raw: string): Promise<void> {
  // Ephemeral text is mrkdwn: a status naming a request's approver or reason must not ping or link.
  const text = escapeMrkdwn(raw);
  if (audience.channelId) {
    try {
      await deps.client.chat.postEphemeral({ channel: audience.channelId, user: audience.userId, text });
      return;
    } catch (error) {
      deps.logger.warn({ err: messageOf(error) }, 'chat.postEphemeral failed; trying response_url');
    }
  }
  if (!audience.respond) {
    deps.logger.warn({ user: audience.userId }, 'no way to tell the approver: no channel and no response_url');
    return;
  }
  try {
    await audience.respond({ response_type: 'ephemeral', replace_original: false, text });
  } catch (error) {
    deps.logger.warn({ err: messageOf(error) }, 'response_url failed');
  }
}

/** Only the message: Web API errors can hold the HTTP request, whose headers carry the bot token. */
function messageOf(error: unknown): string {
  return describeError(error);
}
