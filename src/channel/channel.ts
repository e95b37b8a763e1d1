/**
 * @module channel/channel
 * The channel adapter contract. A channel shows a request to people (a Slack or Feishu card, a web inbox entry),
 * turns their verified taps into {@link DecisionEvent}s for the gateway, and rewrites its cards after every state
 * change. Adapters live in `channels/<name>/`, depend on this file only, and never on each other; the gateway never
 * imports an adapter (the composition root in `src/server.ts` wires them).
 *
 * @remarks Deliberately left out: retries (the scheduler owns them: a failing `send`/`update` just throws), and
 * persistence (the gateway records message references and events). An adapter holds no request state of its own.
 */
import type { InsightsJson } from '../insights/report.js';
import type { SuggestionJson } from '../insights/suggestions.js';
import type { GrantAdmin } from '../policy/grant-admin.js';
import type { Router } from 'express';
import type { RequestChange } from '../lifecycle/change-feed.js';
import type { ExportFormat, ExportPage } from '../requests/export-lines.js';
import type { RequestPage, RequestQuery } from '../requests/store.js';
import type { Directory } from '../people/types.js';
import type { AwayBook } from '../people/away-book.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../requests/types.js';
import type { DecisionEvent, DecisionRejection } from '../requests/decision-event.js';

export type { DecisionActor, DecisionEvent, DecisionRejection } from '../requests/decision-event.js';

/** The outcome of {@link DecisionSink.decide}. */
export type DecideOutcome =
  | {
      ok: true;
      /** The request after the decision; still `pending` when a quorum is not yet reached. */
      request: ConfirmationRequest;
      /** True when this decision made the request final. */
      final: boolean;
    }
  | {
      ok: false;
      code: DecisionRejection;
      /** A sentence for the approver: why nothing changed. */
      message: string;
      request?: ConfirmationRequest;
    };

/** What a chat adapter needs of the gateway: apply a tap, read the request it concerns. */
export interface DecisionSink {
  /** Applies a verified decision: authorization, nonce, compare-and-set, events, fan-out. Never throws for bad input. */
  decide(event: DecisionEvent): Promise<DecideOutcome>;
  /** Reads a request. */
  get(id: string): Promise<ConfirmationRequest | null>;
}

/**
 * What the gateway offers every adapter it mounts or starts: decisions, and the reads a channel that shows requests
 * from the database (the web inbox) needs. Adapters get this, never the `Gateway` itself, so they cannot reach its
 * store or scheduler.
 */
export interface ChannelHost extends DecisionSink {
  /** The request's audit events, oldest first. */
  events(id: string): Promise<ConfirmationEvent[]>;
  /** A page of the audit query, newest first. */
  list(query: RequestQuery): Promise<RequestPage>;
  /** The latest execution receipt of each of `ids` (at most one each), in one read: an export's page at a time. */
  receiptsOf(ids: readonly string[]): Promise<ConfirmationEvent[]>;
  /** Every row matching the filters, newest first, read in batches (exports). */
  scan(query: Omit<RequestQuery, 'limit' | 'cursor'>): AsyncIterable<ConfirmationRequest>;
  /** {@link scan} as exports write it in `format`, a page at a time with each page's receipts (`requests/export-lines.ts`). */
  exportPages(query: Omit<RequestQuery, 'limit' | 'cursor'>, format: ExportFormat): AsyncIterable<ExportPage>;
  /** Calls `listener` after every committed change, in every gateway process; returns the unsubscribe function. */
  subscribe(listener: (change: RequestChange) => void): () => void;
  /** The gateway's clock, in epoch milliseconds (a `ManualClock` in tests). */
  now(): number;
  /**
   * Whether `account` (`web:alice`) is one of the people the request's approver list names (by account, person or
   * group), so its buttons would be heard. Absent: the account must be listed as written.
   */
  mayDecide?(request: ConfirmationRequest, account: string, groups?: readonly string[]): boolean;
  /**
   * Up to `limit` pending requests `account` (with the vouched `groups`) may decide and has not approved yet, newest
   * first: the web inbox's "waiting for me".
   */
  waitingFor?(account: string, limit?: number, groups?: readonly string[]): Promise<ConfirmationRequest[]>;
  /** Away windows (the web inbox's away form): the person's window in force, and setting or clearing it. */
  away?: Pick<AwayBook, 'statusOf' | 'set'>;
  /** `request` with who stands in for its approvers who are away attached, for its card (`card.ts`, `attachStandIns`). */
  withStandIns?(request: ConfirmationRequest): Promise<ConfirmationRequest>;
  /**
   * The people directory in force (a reload swaps what it returns): who a signed-in person is, and people's addresses
   * for a channel that finds them itself (email mails every approver with one). Absent: every account is its own
   * person, and approvers are read as written.
   */
  directory?(): Directory;
  /**
   * The people whose decisions an audit filter selects (`person`, `group`), for {@link RequestQuery.respondedByPeople};
   * undefined when neither is given. Throws a ValidationError naming `group` for an unknown group.
   */
  decidedBy?(filter: { person?: string; group?: string }): string[] | undefined;
  /** The audit chain's newest event (`GET /v1/audit/head`), or null when there is no chain or no event yet. */
  auditHead?(): Promise<{ event_id: number; hash: string; at: string } | null>;
  /** Walks the audit chain and the requests (`tollgate audit verify`): ok, how many events, and the first problem. */
  verifyAudit?(): Promise<{ ok: boolean; events: number; problem: string | null } | null>;
  /** The standing grants the request's policy rule offers, shown as extra approve buttons (empty when none). */
  grantOffers?(events: readonly ConfirmationEvent[]): GrantButton[];
  /** Lists and revokes standing grants (the web inbox's grants page); absent or null without a grant store. */
  readonly grantAdmin?: GrantAdmin | null;
  /** What the history says (`GET /v1/insights`'s report and suggestions), for the insights pages; absent or null: none. */
  readonly insights?: {
    report(raw: unknown): Promise<InsightsJson>;
    suggestions(raw: unknown): Promise<SuggestionJson[]>;
  } | null;
  /** Where adapters log what an operator should see. */
  readonly logger: {
    warn(obj: Record<string, unknown>, msg: string): void;
    info(obj: Record<string, unknown>, msg: string): void;
  };
}

/** A grant button a card shows: its label, how long the grant lasts, and the fields it is scoped to. */
export interface GrantButton {
  label: string;
  ttl_s: number;
  scope: string[];
}

/** What an approver is told for each {@link DecisionRejection} when the gateway has nothing more specific to say. */
export const REJECTION_MESSAGES: Readonly<Record<DecisionRejection, string>> = {
  not_found: 'This request does not exist.',
  bad_nonce: 'This button does not belong to this request.',
  not_authorized: 'You are not an approver of this request.',
  self_approval: 'You cannot approve your own request.',
  already_decided: 'This request was already decided.',
  duplicate_approval: 'Your approval was already recorded.',
  args_mismatch: 'The arguments changed since this card was sent.',
  invalid: 'This decision is not valid.',
};

/**
 * What a person is told when only groups an identity provider vouched for too long ago (`web.oidc.groups_max_age_s`)
 * would have made them an approver (`not_authorized`, with this sentence).
 */
export const STALE_GROUPS_MESSAGE =
  'The groups your sign-in brought from the identity provider are too old to count. Sign in again to refresh them, then decide.';

/** A card on a platform: the target it was sent to and the platform's reference for it. */
export interface CardRef {
  target: string;
  messageRef: string;
}

/** A channel adapter. */
export interface Channel {
  /** `slack`, `feishu`, `web`, …: the `type` in a request's `channels` list and the prefix of approver ids. */
  readonly name: string;
  /** The target used when a request names this channel without one (`{"type":"slack"}`). */
  readonly defaultTarget?: string;
  /**
   * True for a channel that shows requests straight from the database (the web inbox): its card counts as delivered
   * the moment the request is filed, and the gateway runs no delivery or update job for it.
   */
  readonly readsFromDatabase?: boolean;
  /** Shows the request; returns the platform's message reference (or null when the channel keeps no reference). Throws to be retried. */
  send(request: ConfirmationRequest, target: string): Promise<string | null>;
  /** Rewrites a card after any state change (final or a partial quorum). Throws to be retried. */
  update(request: ConfirmationRequest, card: CardRef): Promise<void>;
  /**
   * Re-notifies approvers of a card still pending (a policy's `remind_after_s`): a thread reply, a new message.
   * Optional: without it the gateway refreshes the card instead.
   */
  remind?(request: ConfirmationRequest, card: CardRef): Promise<void>;
  /**
   * The card target that reaches one account of this channel directly (a direct message), for requests whose approvers
   * are people or groups; absent when the channel cannot message one person (the web inbox shows every request).
   * @example slack.directTarget('U0ALICE') // 'U0ALICE': chat.postMessage to a user id opens the bot's DM with them
   */
  directTarget?(account: string): string | null;
  /**
   * The card target that reaches a directory person whatever their accounts (Web Push: the person's subscribed
   * devices); absent for channels that reach people through an account ({@link directTarget}).
   */
  personTarget?(person: string): string | null;
  /**
   * The account of this channel that belongs to `email` (the people directory matches people given only an email):
   * null when the platform has no such user; throws when the lookup failed and may work later (the directory keeps
   * the person usable on other channels and says why). Absent when the platform cannot look people up by email.
   * @example await slack.accountByEmail('alice@example.com') // 'U0ALICE' (users.lookupByEmail)
   */
  accountByEmail?(email: string): Promise<string | null>;
  /** Adds the adapter's callback routes (e.g. `POST /channels/slack/events`). */
  mount?(router: Router, host: ChannelHost): void;
  /** Starts long-connection modes (Slack Socket Mode, Feishu WSClient). */
  start?(host: ChannelHost): Promise<void>;
  /** Closes connections. */
  stop?(): Promise<void>;
}

/** Thrown by `send`/`update` when retrying cannot help (unknown channel, revoked token): the job gives up at once. */
export class PermanentChannelError extends Error {
  override readonly name = 'PermanentChannelError';
  constructor(
    message: string,
    /** The platform's error code, e.g. `channel_not_found` or `230002`. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Thrown by `send`/`update` when the platform asks to wait (HTTP 429 + Retry-After). */
export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';
  constructor(
    message: string,
    /** How long the platform asked to wait, in milliseconds. */
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}
