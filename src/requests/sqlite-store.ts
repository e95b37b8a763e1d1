/**
 * @module requests/sqlite-store
 * `ConfirmationStore` on SQLite through drizzle + better-sqlite3. Transactions are `BEGIN IMMEDIATE`, so several
 * gateway processes sharing one file serialize their compare-and-sets instead of failing on upgrade.
 */
import { and, asc, desc, eq, gt, gte, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { isAllowed } from './state-machine.js';
import type { OpenDatabase } from './database.js';
import { requestToRow, rowToEvent, rowToMessage, rowToRequest } from './rows.js';
import { channelMessages, confirmationEvents, confirmationRequests as requests } from './schema.js';
import type { ConfirmationStore, RequestPage, RequestQuery, Vote, VoteResult } from './store.js';
import { REQUEST_STATUSES, type ChannelMessage, type ConfirmationRequest, type NewEvent, type RequestStatus } from './types.js';

/** The SQLite implementation of {@link ConfirmationStore}. */
export class SqliteConfirmationStore implements ConfirmationStore {
  constructor(private readonly open: OpenDatabase) {}

  private get db() {
    return this.open.db;
  }

  /** Runs `fn` in a `BEGIN IMMEDIATE` transaction. */
  private tx<T>(fn: () => T): T {
    return this.open.sqlite.transaction(fn).immediate();
  }

  async create(request: ConfirmationRequest, cards: { channel: string; target: string }[]) {
    return this.tx(() => {
      if (request.idempotencyKey) {
        const existing = this.getSync(eq(requests.idempotencyKey, request.idempotencyKey));
        if (existing) return { request: existing, created: false };
      }
      this.db.insert(requests).values(requestToRow(request)).run();
      this.insertEvent(request.id, { type: 'created', actor: request.userId, channel: null, detail: {}, at: request.createdAt });
      const at = request.createdAt.toISOString();
      for (const card of cards) {
        this.db
          .insert(channelMessages)
          .values({ requestId: request.id, channel: card.channel, target: card.target, status: 'pending', updatedAt: at })
          .onConflictDoNothing()
          .run();
      }
      return { request, created: true };
    });
  }

  async get(id: string) {
    return this.getSync(eq(requests.id, id));
  }

  async getByIdempotencyKey(key: string) {
    return this.getSync(eq(requests.idempotencyKey, key));
  }

  private getSync(where: SQL): ConfirmationRequest | null {
    const row = this.db.select().from(requests).where(where).get();
    return row ? rowToRequest(row) : null;
  }

  async decide(id: string, vote: Vote): Promise<VoteResult> {
    return this.tx((): VoteResult => {
      const current = this.getSync(eq(requests.id, id));
      if (!current) return { kind: 'not_found' };
      if (current.status !== 'pending') return { kind: 'already_final', request: current };
      const detail: Record<string, unknown> = { option: vote.option, reason: vote.reason };
      if (vote.decision === 'approve') {
        const approvers = this.approversSoFar(id);
        if (approvers.includes(vote.actor)) return { kind: 'duplicate', request: current };
        const approvals = approvers.length + 1;
        detail.approvals = approvals;
        detail.required = current.requiredApprovals;
        if (vote.approvedArgs) detail.approved_args = vote.approvedArgs;
        this.insertEvent(id, { type: 'approved', actor: vote.actor, channel: vote.via, detail, at: vote.at });
        if (approvals < current.requiredApprovals) {
          this.touch(id, vote.at);
          return { kind: 'recorded', request: { ...current, updatedAt: vote.at }, approvals };
        }
      } else {
        this.insertEvent(id, { type: 'denied', actor: vote.actor, channel: vote.via, detail, at: vote.at });
      }
      const status = vote.decision === 'approve' ? 'approved' : 'denied';
      const final = this.flip(id, status, current, {
        respondedBy: vote.actor,
        respondedVia: vote.via,
        decisionOption: vote.option,
        reason: vote.reason,
        approvedArgs: vote.approvedArgs === null ? null : JSON.stringify(vote.approvedArgs),
        at: vote.at,
      });
      return { kind: 'final', request: final };
    });
  }

  /** Distinct actors whose approval of `id` is already recorded. */
  private approversSoFar(id: string): string[] {
    const rows = this.db
      .select({ actor: confirmationEvents.actor })
      .from(confirmationEvents)
      .where(and(eq(confirmationEvents.requestId, id), eq(confirmationEvents.type, 'approved')))
      .all();
    return rows.map((r) => r.actor ?? '');
  }

  private touch(id: string, at: Date) {
    this.db.update(requests).set({ updatedAt: at.toISOString() }).where(eq(requests.id, id)).run();
  }

  /** The compare-and-set itself. Inside a transaction that already read `current` as pending, so it always matches. */
  private flip(
    id: string,
    status: Exclude<RequestStatus, 'pending'>,
    current: ConfirmationRequest,
    fields: { respondedBy: string | null; respondedVia: string | null; decisionOption?: string | null; reason?: string | null; approvedArgs?: string | null; at: Date },
  ): ConfirmationRequest {
    const at = fields.at.toISOString();
    const allowed = isAllowed(status, current.onTimeout);
    const row = this.db
      .update(requests)
      .set({
        status,
        respondedAt: at,
        updatedAt: at,
        respondedBy: fields.respondedBy,
        respondedVia: fields.respondedVia,
        decisionOption: fields.decisionOption ?? null,
        reason: fields.reason ?? null,
        approvedArgs: fields.approvedArgs ?? null,
        allowed: allowed === null ? null : allowed ? 1 : 0,
      })
      .where(and(eq(requests.id, id), eq(requests.status, 'pending')))
      .returning()
      .get();
    if (!row) throw new Error(`compare-and-set lost on ${id} inside its own transaction`);
    return rowToRequest(row);
  }

  async finish(
    id: string,
    status: 'expired' | 'cancelled',
    event: { actor: string | null; channel: string | null; detail: Record<string, unknown>; at: Date },
  ) {
    return this.tx(() => {
      const current = this.getSync(eq(requests.id, id));
      if (!current || current.status !== 'pending') return null;
      const reason = typeof event.detail.reason === 'string' ? event.detail.reason : null;
      const final = this.flip(id, status, current, { respondedBy: event.actor, respondedVia: event.channel, reason, at: event.at });
      this.insertEvent(id, { type: status, ...event });
      return final;
    });
  }

  async appendEvent(requestId: string, event: NewEvent) {
    this.insertEvent(requestId, event);
  }

  private insertEvent(requestId: string, event: NewEvent) {
    this.db
      .insert(confirmationEvents)
      .values({
        requestId,
        type: event.type,
        actor: event.actor,
        channel: event.channel,
        detail: JSON.stringify(event.detail),
        at: event.at.toISOString(),
      })
      .run();
  }

  async events(requestId: string) {
    return this.db
      .select()
      .from(confirmationEvents)
      .where(eq(confirmationEvents.requestId, requestId))
      .orderBy(asc(confirmationEvents.id))
      .all()
      .map(rowToEvent);
  }

  async list(query: RequestQuery): Promise<RequestPage> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    const where = [...filters(query)];
    if (query.cursor) {
      const { createdAt, id } = decodeCursor(query.cursor);
      where.push(or(lt(requests.createdAt, createdAt), and(eq(requests.createdAt, createdAt), lt(requests.id, id)))!);
    }
    const rows = this.db
      .select()
      .from(requests)
      .where(and(...where))
      .orderBy(desc(requests.createdAt), desc(requests.id))
      .limit(limit + 1)
      .all();
    const items = rows.slice(0, limit).map(rowToRequest);
    const last = items[items.length - 1];
    const nextCursor = rows.length > limit && last ? encodeCursor(last.createdAt.toISOString(), last.id) : null;
    return { items, nextCursor };
  }

  async *scan(query: Omit<RequestQuery, 'limit' | 'cursor'>): AsyncIterable<ConfirmationRequest> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...query, limit: 500, cursor });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  async pending(limit: number, afterExpiresAt?: Date, afterId?: string) {
    const after = afterExpiresAt?.toISOString();
    const rows = this.db
      .select({ id: requests.id, expiresAt: requests.expiresAt })
      .from(requests)
      .where(
        and(
          eq(requests.status, 'pending'),
          after === undefined
            ? undefined
            : or(gt(requests.expiresAt, after), and(eq(requests.expiresAt, after), gt(requests.id, afterId ?? ''))),
        ),
      )
      .orderBy(asc(requests.expiresAt), asc(requests.id))
      .limit(limit)
      .all();
    return rows.map((r) => ({ id: r.id, expiresAt: new Date(r.expiresAt) }));
  }

  async countByStatus() {
    const counts = Object.fromEntries(REQUEST_STATUSES.map((s) => [s, 0])) as Record<RequestStatus, number>;
    const rows = this.db
      .select({ status: requests.status, n: sql<number>`count(*)` })
      .from(requests)
      .groupBy(requests.status)
      .all();
    for (const row of rows) counts[row.status as RequestStatus] = row.n;
    return counts;
  }

  async messages(requestId: string) {
    return this.db
      .select()
      .from(channelMessages)
      .where(eq(channelMessages.requestId, requestId))
      .orderBy(asc(channelMessages.id))
      .all()
      .map(rowToMessage);
  }

  async unsentMessages(limit: number) {
    return this.db
      .select({ m: channelMessages })
      .from(channelMessages)
      .innerJoin(requests, eq(requests.id, channelMessages.requestId))
      .where(and(eq(channelMessages.status, 'pending'), eq(requests.status, 'pending')))
      .limit(limit)
      .all()
      .map((r) => rowToMessage(r.m));
  }

  async updateMessage(
    requestId: string,
    channel: string,
    target: string,
    patch: Partial<Pick<ChannelMessage, 'messageRef' | 'status' | 'attempts' | 'lastError'>>,
    at: Date,
  ) {
    this.db
      .update(channelMessages)
      .set({ ...patch, updatedAt: at.toISOString() })
      .where(and(eq(channelMessages.requestId, requestId), eq(channelMessages.channel, channel), eq(channelMessages.target, target)))
      .run();
  }

  async ensureMessage(requestId: string, channel: string, target: string, at: Date) {
    this.db
      .insert(channelMessages)
      .values({ requestId, channel, target, status: 'pending', updatedAt: at.toISOString() })
      .onConflictDoNothing()
      .run();
  }

  async ping() {
    this.open.sqlite.prepare('select 1').get();
  }

  async close() {
    if (this.open.sqlite.open) this.open.close();
  }
}

function filters(q: RequestQuery): (SQL | undefined)[] {
  return [
    q.status && eq(requests.status, q.status),
    q.toolName !== undefined ? eq(requests.toolName, q.toolName) : undefined,
    q.agentId !== undefined ? eq(requests.agentId, q.agentId) : undefined,
    q.respondedBy !== undefined ? eq(requests.respondedBy, q.respondedBy) : undefined,
    q.since && gte(requests.createdAt, q.since.toISOString()),
    q.until && lte(requests.createdAt, q.until.toISOString()),
  ];
}

/** Cursors are opaque to clients: base64url of the last row's creation time and id. */
function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(`${createdAt}|${id}`).toString('base64url');
}

/** Throws {@link InvalidCursorError} on anything that was not made by {@link encodeCursor}. */
function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || extra !== undefined || Number.isNaN(Date.parse(createdAt))) throw new InvalidCursorError();
  return { createdAt, id };
}

/** A cursor that this store did not issue. */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
  constructor() {
    super('cursor is not one this server issued');
  }
}
