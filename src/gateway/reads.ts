/**
 * @module gateway/reads
 * The read side of the gateway facade: requests, their events, the audit query and the change feed, as routes,
 * channels and integrations may see them; and what the people directory and the audit chain answer about them.
 * Writes (filing, deciding, cancelling, expiring) are the {@link Gateway}'s, which extends this class; nothing outside
 * reaches the store or the feed themselves.
 *
 * No read presents a request past its deadline as `pending`: the deadline belongs to the row, not to the timer that
 * should have expired it (a replica that died with the timer, a Redis job late). A read that finds an overdue row runs
 * the due-scan first (which expires it with its event and fans the change out) and reads again.
 */
import type { ChangeFeed, RequestChange } from '../lifecycle/change-feed.js';
import type { Clock } from '../utils/clock.js';
import { NotFoundError } from '../api/errors.js';
import type { AuditService } from '../audit/service.js';
import { approverSetOf, deciderOf } from '../people/approvers.js';
import { decidedByPeople } from '../people/query.js';
import type { Directory } from '../people/types.js';
import { waitingFor } from '../people/waiting.js';
import { AwayBook } from '../people/away-book.js';
import { mayDecideAs, standInsOf } from '../people/stand-ins.js';
import { attachStandIns } from '../channel/card.js';
import type { ExportFormat, ExportPage } from '../requests/export-lines.js';
import type { ConfirmationStore, RequestPage, RequestQuery, SameCallQuery } from '../requests/store.js';
import type { ConfirmationEvent, ConfirmationRequest, NewEvent, RequestStatus } from '../requests/types.js';

/** Reads through the gateway. */
export abstract class GatewayReads {
  protected constructor(
    protected readonly store: ConfirmationStore,
    protected readonly feed: ChangeFeed,
    /** The gateway's clock (a `ManualClock` in tests). */
    readonly clock: Clock,
    /** The people directory in force. */
    readonly directory: () => Directory,
    /** Verification and anchors of the audit chain (null when the store has none to offer). */
    readonly audit: AuditService | null,
    away?: AwayBook,
  ) {
    this.away = away ?? new AwayBook({ store: null, directory, clock });
  }

  /** Who is away and who stands in for them (`people/away-book.ts`). */
  readonly away: AwayBook;

  /** Expires every overdue pending request now (the due-scan); resolves once they are stamped. */
  protected abstract expireOverdue(): Promise<number>;

  /** Whether `request` reads `pending` although its deadline has passed (its timer is late). */
  protected overdue(request: ConfirmationRequest): boolean {
    return request.status === 'pending' && request.expiresAt.getTime() <= this.clock.now();
  }

  /** Reads a request; an overdue one is expired first. */
  async get(id: string): Promise<ConfirmationRequest | null> {
    const request = await this.store.get(id);
    if (!request || !this.overdue(request)) return request;
    await this.expireOverdue();
    return this.store.get(id);
  }

  /** Reads a request or throws {@link NotFoundError}. */
  async mustGet(id: string): Promise<ConfirmationRequest> {
    const request = await this.get(id);
    if (!request) throw new NotFoundError(`no request with id ${id}`);
    return request;
  }

  /**
   * Reads several requests at once, in no particular order, leaving out ids with no row; when any is overdue, the
   * due-scan runs first and they are read again.
   */
  async getMany(ids: readonly string[]): Promise<ConfirmationRequest[]> {
    const rows = await this.store.getMany(ids);
    if (!rows.some((r) => this.overdue(r))) return rows;
    await this.expireOverdue();
    return this.store.getMany(ids);
  }

  /**
   * Reads the request `filedBy` (a token's name; null: in process) filed under an idempotency key, never another
   * filer's; an overdue one is expired first.
   */
  async getByIdempotencyKey(key: string, filedBy: string | null): Promise<ConfirmationRequest | null> {
    const request = await this.store.getByIdempotencyKey(key, filedBy);
    return request && this.overdue(request) ? this.get(request.id) : request;
  }

  /** The request's audit events, oldest first. */
  async events(id: string): Promise<ConfirmationEvent[]> {
    return this.store.events(id);
  }

  /** The latest execution receipt of each of `ids` (at most one each), in one read: an export's page at a time. */
  async receiptsOf(ids: readonly string[]): Promise<ConfirmationEvent[]> {
    return this.store.receiptsOf(ids);
  }

  /** A page of the audit query, newest first; a page showing an overdue row is read again after the due-scan. */
  async list(query: RequestQuery): Promise<RequestPage> {
    const page = await this.store.list(query);
    if (!page.items.some((r) => this.overdue(r))) return page;
    await this.expireOverdue();
    return this.store.list(query);
  }

  /**
   * The newest request of a runtime's call asked again (`ConfirmationStore.newestSameCall`); an overdue one is expired
   * first. The row comes without its verdict token, even when final: the hook routes ask this on every call and
   * answer with the verdict itself, and most matches found are final rows they do not return, each of which would
   * cost a signature (or an events query) on a cold cache. Read the row with {@link get} for its token.
   */
  async newestSameCall(query: SameCallQuery): Promise<ConfirmationRequest | null> {
    const request = await this.store.newestSameCall(query);
    if (!request || !this.overdue(request)) return request;
    await this.expireOverdue();
    return this.store.newestSameCall(query);
  }

  /** Every row matching the filters, newest first, read in batches (streamed exports), after a due-scan. */
  async *scan(query: Omit<RequestQuery, 'limit' | 'cursor'>): AsyncIterable<ConfirmationRequest> {
    await this.expireOverdue();
    yield* this.store.scan(query);
  }

  /** {@link scan} as exports write it in `format` (`requests/export-lines.ts`), after a due-scan. */
  async *exportPages(query: Omit<RequestQuery, 'limit' | 'cursor'>, format: ExportFormat): AsyncIterable<ExportPage> {
    await this.expireOverdue();
    yield* this.store.exportPages(query, format);
  }

  /** How many requests are in each state (the `/metrics` gauges). */
  async countByStatus(): Promise<Record<RequestStatus, number>> {
    return this.store.countByStatus();
  }

  /**
   * Adds an audit event that changes no state (a runtime's `post_call` report, say). State changes go through
   * {@link decide}, {@link cancel} and expiry, never through here.
   */
  async note(id: string, event: NewEvent): Promise<void> {
    await this.store.appendEvent(id, event);
  }

  /** Calls `listener` after every committed change, in every gateway process; returns the unsubscribe function. */
  subscribe(listener: (change: RequestChange) => void): () => void {
    return this.feed.subscribe(listener);
  }

  /**
   * Whether `account` is one of the people the request's approver list names (by account, person or group), or stands
   * in for one who is away (by the delegations last read: this answers what to show; a decision reads them afresh).
   */
  mayDecide(request: ConfirmationRequest, account: string, groups: readonly string[] = []): boolean {
    const directory = this.directory();
    return mayDecideAs(
      directory,
      approverSetOf(directory, request.approvers),
      deciderOf(directory, account, groups),
      this.away.known(),
    );
  }

  /**
   * Up to `limit` pending requests `account` may decide and has not approved yet, newest first (`people/waiting.ts`),
   * those it stands in for an absentee on included; each carries its stand-ins for its card.
   */
  async waitingFor(account: string, limit = 100, groups: readonly string[] = []): Promise<ConfirmationRequest[]> {
    const delegations = await this.away.delegations();
    const directory = this.directory();
    const found = await waitingFor(this, directory, account, limit, groups, delegations);
    return delegations.empty
      ? found
      : found.map((r) => attachStandIns(r, standInsOf(directory, delegations, r.approvers)));
  }

  /** `request` with the stand-ins of its approvers attached (for its card), by the delegations of the last second. */
  async withStandIns(request: ConfirmationRequest): Promise<ConfirmationRequest> {
    if (request.status !== 'pending') return request;
    const delegations = await this.away.delegations(false);
    return delegations.empty
      ? request
      : attachStandIns(request, standInsOf(this.directory(), delegations, request.approvers));
  }

  /** The audit chain's newest event (null without a chain or events). */
  async auditHead(): Promise<{ event_id: number; hash: string; at: string } | null> {
    return (await this.audit?.head()) ?? null;
  }

  /** Walks the audit chain and the requests; null without a chain. */
  async verifyAudit(): Promise<{ ok: boolean; events: number; problem: string | null } | null> {
    const report = await this.audit?.verify();
    return report ? { ok: report.ok, events: report.events, problem: report.problem?.message ?? null } : null;
  }

  /** The people an audit filter's `person` / `group` select (see `people/query.ts`). */
  decidedBy(filter: { person?: string; group?: string }): string[] | undefined {
    return decidedByPeople(this.directory(), filter);
  }

  /** The gateway's clock, in epoch milliseconds. */
  now(): number {
    return this.clock.now();
  }
}
