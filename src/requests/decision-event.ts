/**
 * @module requests/decision-event
 * A verified tap, as every channel hands it to the gateway, and why a decision can be refused. These types sit with
 * the request's own because the decision rules (`people/decision-checks`) and the channel contract (`channel/channel`)
 * both need them; `channel/channel` re-exports them for adapters.
 */
import type { Decision } from './types.js';

/** Who tapped: the channel, the platform's user id, and a display name when the platform gives one. */
export interface DecisionActor {
  channel: string;
  userId: string;
  name?: string;
}

/** A verified tap, normalized: what every adapter hands to `DecisionSink.decide` (`channel/channel`). */
export interface DecisionEvent {
  requestId: string;
  /** The request's nonce as carried by the button; required for taps from chat channels. */
  nonce?: string;
  decision: Decision;
  reason?: string;
  /** The option label the approver chose (defaults to the first/second option for approve/deny). */
  option?: string;
  /** Arguments the approver edited; only with `approve`. */
  approvedArgs?: Record<string, unknown>;
  /** When given, the decision holds only if the request's `args_sha256` still matches. */
  argsSha256?: string;
  /** A grant button's label ("Approve for 1 hour"): approving also gives a standing grant (only with `approve`). */
  grant?: string;
  actor: DecisionActor;
  /**
   * The channel the decision came through when it is not the actor's own: `api` for `POST /v1/requests/:id/decision`,
   * so no API call is ever recorded as a chat tap. Defaults to `actor.channel`.
   */
  via?: string;
  /** The API token that made the decision: its name goes into the event; an untrusted token may not approve what it filed. */
  token?: { name: string; trusted: boolean };
  /**
   * Directory groups an identity provider vouched for (the web inbox's OpenID groups claim, read from a validated ID
   * token): they count as the decider's groups, beside those the directory gives. Only a channel that verified them
   * sets this; the API never does.
   */
  groups?: readonly string[];
  /**
   * Until when `groups` hold (the sign-in plus `web.oidc.groups_max_age_s`). A vote that needed them records it, so a
   * quorum completing later counts that vote only while they still hold. Absent: they hold for this decision only.
   */
  groupsUntil?: Date;
  /**
   * Groups the provider vouched for too long ago to count. They admit nobody; a decision only they would have admitted
   * is refused with a message asking the person to sign in again (which reads the groups afresh).
   */
  staleGroups?: readonly string[];
}

/** Why a decision was not applied. Adapters show these to the approver in the platform's own way. */
export type DecisionRejection =
  | 'not_found'
  | 'bad_nonce'
  | 'not_authorized'
  | 'self_approval'
  | 'already_decided'
  | 'duplicate_approval'
  | 'args_mismatch'
  | 'invalid';
