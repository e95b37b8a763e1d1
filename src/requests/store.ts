/**
 * @module requests/store
 * The `ConfirmationStore` contract: rows and their audit events, written together. Every state change is a
 * compare-and-set (`… WHERE id = ? AND status = 'pending'`) with its event in the same transaction, so two deciders
 * racing (in one process or several) produce exactly one verdict, and an acknowledged verdict is always on disk.
 *
 * @remarks Deliberately left out: authorization, nonces and notifications (the gateway's job). The store trusts its
 * caller and only guarantees atomicity and the state machine.
 */
import type { ExportFormat, ExportPage } from './export-lines.js';
import type {
  ChannelMessage,
  ChannelTarget,
  ConfirmationEvent,
  ConfirmationRequest,
  Decision,
  NewEvent,
  RequestStatus,
} from './types.js';

/** One approver's vote. */
export interface Vote {
  decision: Decision;
  actor: string;
  /**
   * The person behind `actor` (the directory's id; the account itself when the directory does not know it). A quorum
   * counts people: a second approval by another account of a person who approved already is a duplicate. Default: `actor`.
   */
  person?: string | null;
  via: string;
  /**
   * The absentee this vote stands in for (the voter is their delegate): recorded as `detail.on_behalf_of` and, when the
   * vote settles the request, as the row's `on_behalf_of`. The quorum still counts `person`, the delegate.
   */
  onBehalfOf?: string | null;
  /** Name of the API token that cast the vote (recorded in the event detail), or null for a tap. */
  token?: string | null;
  reason: string | null;
  option: string | null;
  approvedArgs: Record<string, unknown> | null;
  at: Date;
  /**
   * People whose approval was recorded earlier but who are no longer approvers of the request (the gateway re-checked
   * them against the directory in force): their approvals do not count towards the quorum, and this vote's event
   * lists them with the reason (`detail.discounted`). The store compares person ids only.
   */
  discounted?: readonly DiscountedVoter[];
  /**
   * Groups an identity provider vouched for that this approval needed (the directory alone does not list the voter),
   * and until when they hold: recorded in the event (`detail.vouched_groups`, `detail.vouched_until`) so a quorum
   * completing later counts the approval only while they still hold.
   */
  vouched?: { groups: readonly string[]; until: Date } | null;
}

/** A prior voter who no longer counts, and why (see {@link Vote.discounted}). */
export interface DiscountedVoter {
  person: string;
  reason: string;
}

/** What {@link ConfirmationStore.decide} did. */
export type VoteResult =
  | { kind: 'final'; request: ConfirmationRequest }
  | { kind: 'recorded'; request: ConfirmationRequest; approvals: number }
  /** The voter's person approved already, through the account `priorActor` (the same account or another of theirs). */
  | { kind: 'duplicate'; request: ConfirmationRequest; priorActor: string }
  | { kind: 'already_final'; request: ConfirmationRequest }
  /** The vote came at or after `expires_at`: the store expired the row (with its `expired` event) instead, in the same transaction. */
  | { kind: 'expired'; request: ConfirmationRequest }
  | { kind: 'not_found' };

/** Filters of the audit query (`GET /v1/requests`). */
export interface RequestQuery {
  status?: RequestStatus;
  toolName?: string;
  agentId?: string;
  /** Filed by this coding agent (`agent_kind`). */
  agentKind?: string;
  /** Filed from this repository (`context.repo`). */
  repo?: string;
  respondedBy?: string;
  /** Decided by one of these people (`responded_by_person`): `?person=` is one, `?group=` its members. Empty: none. */
  respondedByPeople?: readonly string[];
  /**
   * With `respondedByPeople`: also the requests those people voted on without settling them (an approval towards a
   * quorum someone else completed, or that is still pending, denied or expired): what `?person=` and `?group=` mean.
   */
  includeVotes?: boolean;
  since?: Date;
  until?: Date;
  limit?: number;
  /** Opaque cursor from a previous page's `nextCursor`. */
  cursor?: string;
}

/** A page of the audit query, newest first. */
export interface RequestPage {
  items: ConfirmationRequest[];
  nextCursor: string | null;
}

/**
 * What {@link ConfirmationStore.newestSameCall} looks for: a runtime's call asked again (a hook that gave up waiting,
 * a retry under a new id, a report of the call having run).
 */
export interface SameCallQuery {
  agentId: string;
  toolName: string;
  /** The call's session; null matches only rows filed without one. Not compared when `workspace` is set. */
  sessionId: string | null;
  /**
   * The token that asks (its name; null: an in-process caller): only rows it filed match. A same-call key belongs to
   * the token that filed, so another token's identical call never finds, re-attaches to or uses this one's request.
   */
  filedBy: string | null;
  /**
   * A coding agent's call (`tollgate hook <agent>`): the same call is the same agent kind in the same working directory,
   * whatever its session (a headless agent starts a new session per run), so a retry finds a deferred verdict.
   */
  workspace?: { agentKind: string; cwd: string | null };
  /** The call's `args_sha256`. */
  argsSha256: string;
  /** Also match a row whose approved (edited) arguments hash to `argsSha256`: a runtime reports the arguments it ran. */
  alsoApprovedArgs?: boolean;
  /** Only the agent and tool's newest `window` rows are looked at: an older row never matches. */
  window: number;
}

/** What {@link ConfirmationStore.create} writes besides the row and its cards. */
export interface CreateExtras {
  /** Detail of the `created` event (default `{}`). */
  detail?: Record<string, unknown>;
  /** Events appended after `created`, in the same transaction. */
  events?: NewEvent[];
}

/** A card row written with its request. `sent: true` marks it delivered at once (a channel whose card is the row itself, like the web inbox). */
export interface NewCard {
  channel: string;
  target: string;
  sent?: boolean;
}

/** One {@link ConfirmationStore.create} call, as the stores batch them (see `group-commit.ts`). */
export interface NewCreate {
  request: ConfirmationRequest;
  cards: NewCard[];
  extras?: CreateExtras;
}

/** What {@link ConfirmationStore.create} answers: the new row, or the one filed before under the same idempotency key. */
export interface CreateResult {
  request: ConfirmationRequest;
  created: boolean;
}

/** Rows and audit events. */
export interface ConfirmationStore {
  /**
   * Inserts a new pending request, its `created` event and a pending `channel_messages` row per card, in one
   * transaction. When the filer (`filedBy`) has filed under the idempotency key already, inserts nothing and returns
   * that row; another filer's key is never seen (an idempotency key belongs to the token that filed).
   */
  create(
    request: ConfirmationRequest,
    cards: NewCard[],
    /** The `created` event's detail (the policy rule that routed it) and events written after it in the same transaction (a policy's or grant's verdict on a row created final). */
    extras?: CreateExtras,
  ): Promise<CreateResult>;
  get(id: string): Promise<ConfirmationRequest | null>;
  /**
   * The rows of several ids in one read (a verdict stream opens on up to 5,000), in no particular order (callers look
   * them up by id); an id with no row is left out.
   */
  getMany(ids: readonly string[]): Promise<ConfirmationRequest[]>;
  /** The request `filedBy` (a token's name; null: an in-process caller) filed under `key`; never another filer's. */
  getByIdempotencyKey(key: string, filedBy: string | null): Promise<ConfirmationRequest | null>;
  /**
   * Records a vote: a deny, or the approval that completes the quorum, flips the row (compare-and-set) with its
   * event; an approval short of the quorum adds an `approved` event only. A second approval by the same person (from
   * any of their accounts) is a duplicate and changes nothing. The deadline belongs to the row: the compare-and-set
   * requires `expires_at > now` (`vote.at` on SQLite; the database's clock on PostgreSQL, so replicas with skewed
   * clocks agree), and a vote that comes later expires the row in its own transaction (`kind: 'expired'`).
   */
  decide(id: string, vote: Vote): Promise<VoteResult>;
  /**
   * `pending → expired | cancelled` by compare-and-set with its event; null when the row was not pending. A cancel
   * that comes after `expires_at` expires the row instead and returns it (status `expired`).
   */
  finish(
    id: string,
    status: 'expired' | 'cancelled',
    event: { actor: string | null; channel: string | null; detail: Record<string, unknown>; at: Date },
  ): Promise<ConfirmationRequest | null>;
  /**
   * Expires, in one transaction, up to `limit` pending rows whose `expires_at` is at or before `now` (oldest first),
   * each with its `expired` event; returns them. Many requests falling due together cost one write, not one each.
   */
  expireDue(now: Date, limit: number): Promise<ConfirmationRequest[]>;
  /**
   * The most rows a due-scan that is behind asks `expireDue` for at once (absent: it stays at 500). A store that pays
   * a round trip and a commit per call (PostgreSQL) sets it high; an embedded one leaves it, since a long synchronous
   * transaction holds the event loop.
   */
  readonly expiryBatchLimit?: number;
  /**
   * How many `expireDue` calls a due-scan that is behind runs side by side (absent: one). PostgreSQL sets 2: each
   * statement's index updates run on one server core, and `SKIP LOCKED` splits the rows between them.
   */
  readonly expiryLanes?: number;
  /**
   * Rows per `expireDue` call when a gateway catches up at start, before it listens (absent: as a scan that is behind).
   * Nothing waits on the event loop then, so an embedded store takes the backlog in a few long transactions: each page
   * its rows and their index entries touch is written to the log once, not once per 500 rows.
   */
  readonly catchUpBatchLimit?: number;
  appendEvent(requestId: string, event: NewEvent): Promise<void>;
  events(requestId: string): Promise<ConfirmationEvent[]>;
  /**
   * The verdict tokens stored when these requests settled, by id (minted in the settling transaction; docs/audit.md,
   * "The proof"). A request settled before the fifth stage, or written around tollgate, has none.
   */
  verdictTokens(requestIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * The events of several requests in one read (start-up re-arms 100 000 pending rows a page at a time): by request
   * id, then oldest first within each request.
   */
  eventsOf(requestIds: readonly string[]): Promise<ConfirmationEvent[]>;
  /**
   * The latest execution receipt (`executed` / `execution_failed` event) of each of several requests, in one read: at
   * most one event per request, in no particular order (callers look them up by request id; sorting would cost a sort
   * per page); a request without a receipt has none. Exports read a page's receipts with it instead of every event of
   * every row.
   */
  receiptsOf(requestIds: readonly string[]): Promise<ConfirmationEvent[]>;
  list(query: RequestQuery): Promise<RequestPage>;
  /**
   * The newest row matching `query` (same agent, tool, session and arguments) among the agent and tool's newest
   * `query.window` rows, newest first as the audit query orders them; null when none does. One narrow read: the hook
   * routes ask it on every call, so it reads no row it does not return and parses one at most.
   */
  newestSameCall(query: SameCallQuery): Promise<ConfirmationRequest | null>;
  /** Every row matching the filters (no paging), newest first, read in batches: for streamed exports. */
  scan(query: Omit<RequestQuery, 'limit' | 'cursor'>): AsyncIterable<ConfirmationRequest>;
  /**
   * What `scan` reads, as exports write it in `format` (`export-lines.ts`): pages of lines rendered but for their
   * execution part, newest first, each page with its rows' latest receipts. SQLite renders the lines in SQL; other
   * stores may build them from their rows with `lineOf`. Either way the bytes are `lineOf`'s.
   */
  exportPages(query: Omit<RequestQuery, 'limit' | 'cursor'>, format: ExportFormat): AsyncIterable<ExportPage>;
  /** Ids and expiry times of pending rows, oldest expiry first. */
  pending(limit: number, afterExpiresAt?: Date, afterId?: string): Promise<{ id: string; expiresAt: Date }[]>;
  /**
   * {@link pending}, each row with whether its `created` event records a follow-up plan (a policy's reminders or
   * escalation steps). Start-up walks every pending row beyond the expiry horizon with it and reads the events of the
   * planned ones only (a gateway with 100,000 pending rows and no follow-ups read every row's events: 1.1 s of CPU and
   * 90 MB of resident memory). SQLite reads it on its history connection, so the walk stays out of the page cache.
   */
  pendingPlans(
    limit: number,
    afterExpiresAt?: Date,
    afterId?: string,
  ): Promise<{ id: string; expiresAt: Date; planned: boolean }[]>;
  countByStatus(): Promise<Record<RequestStatus, number>>;
  messages(requestId: string): Promise<ChannelMessage[]>;
  /** Cards of pending requests that were never sent (for reconciliation). */
  unsentMessages(limit: number): Promise<ChannelMessage[]>;
  /** Updates one card's bookkeeping. */
  updateMessage(
    requestId: string,
    channel: string,
    target: string,
    patch: Partial<Pick<ChannelMessage, 'messageRef' | 'status' | 'attempts' | 'lastError'>>,
    at: Date,
  ): Promise<void>;
  /**
   * Widens a pending request's routing for escalation step `step`: sets its approvers and channels and writes the
   * `escalated` event, in one transaction. Null when the request is not pending or the step was recorded already, so
   * a duplicate escalation job changes nothing.
   */
  escalate(
    id: string,
    step: number,
    routing: { approvers: string[]; channels: ChannelTarget[] },
    event: NewEvent,
  ): Promise<ConfirmationRequest | null>;
  /** Adds a card row when a request gains a card after creation; no-op when it exists. */
  ensureMessage(requestId: string, channel: string, target: string, at: Date): Promise<void>;
  /** Whether the database answers (for `/readyz`). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
