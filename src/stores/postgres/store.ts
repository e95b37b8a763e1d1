/**
 * @module stores/postgres/store
 * `ConfirmationStore` on PostgreSQL, exact when several replicas share the database:
 * - a vote that settles its request (a deny, or an approval where one suffices) is one `UPDATE … WHERE status =
 *   'pending'` with its event, so of racing votes one flips the row and the others find it final;
 * - a vote towards a quorum locks its row (`SELECT … FOR NO KEY UPDATE`) before counting approvals, so two replicas
 *   counting one quorum at once serialize on the row and record exactly one verdict;
 * - creates insert with `ON CONFLICT (filer, idempotency_key) DO NOTHING`, so racing creates with one key leave one row;
 * - `expireDue` claims due rows with `FOR NO KEY UPDATE SKIP LOCKED`, so sweeping replicas (and a scan's two lanes) split
 *   the rows between them and each row expires once, without waiting on each other.
 * Hot paths are plain SQL on the pool; the steps of a vote's or a finish's transaction are `verdict-steps.ts`, the
 * audit query, scans and exports `history-reads.ts`. Every database error leaves through `errors.ts`, so callers see
 * tollgate errors, never a `pg` one.
 */
import type pg from 'pg';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { createBatch, type CreateOutcome } from './create-batch.js';
import { expireDue } from './expiry.js';
import { inTransaction } from './transaction.js';
import { PostgresHistoryReads } from './history-reads.js';
import { rowToEvent, rowToMessage, rowToRequest, type RequestRow } from './rows.js';
import { named, rowsOf, SQL_TEXT, type Queryable } from './statements.js';
import { expireLate, flip, insertEvent, lockForVote, seal } from './verdict-steps.js';
import { SettlePlanner } from './settle.js';
import { WitnessedWrite } from './witnessed.js';
import type { Witness } from '../../audit/witness.js';
import { witnessedApprovals, type ApprovalRow } from '../../audit/witnessed-approvals.js';
import { attachVerdictToken } from '../../requests/serialize.js';
import { escalatedEvent } from '../../requests/coverage.js';
import type { ExportFormat, ExportPage } from '../../requests/export-lines.js';
import { GroupCommit } from '../../utils/group-commit.js';
import { firstSameCall, sameCallWindow } from '../../requests/same-call.js';
import type {
  ConfirmationStore,
  CreateExtras,
  CreateResult,
  NewCard,
  NewCreate,
  RequestPage,
  RequestQuery,
  SameCallQuery,
  Vote,
  VoteResult,
} from '../../requests/store.js';
import {
  REQUEST_STATUSES,
  type ChannelMessage,
  type ChannelTarget,
  type ConfirmationRequest,
  type NewEvent,
  type RequestStatus,
} from '../../requests/types.js';
import { needsPriorApprovers, planVote, type VerdictFields } from '../../requests/vote-plan.js';

type MessagePatch = Partial<Pick<ChannelMessage, 'messageRef' | 'status' | 'attempts' | 'lastError'>>;

const MESSAGE_COLUMNS: Record<keyof MessagePatch, string> = {
  messageRef: 'message_ref',
  status: 'status',
  attempts: 'attempts',
  lastError: 'last_error',
};

/** Options of {@link PostgresConfirmationStore}. */
export interface PostgresStoreOptions {
  /**
   * Whose clock decides whether a request is overdue (for votes, cancels and `expireDue`): `database` (the default:
   * PostgreSQL's `now()`, so replicas with skewed clocks agree) or `caller` (the time passed in, for tests that run on
   * fixed times or a `ManualClock`).
   */
  deadlineClock?: 'database' | 'caller';
}
/** The PostgreSQL implementation of {@link ConfirmationStore}. */
export class PostgresConfirmationStore implements ConfirmationStore {
  /** 10 000 rows due in one second took 2.5 s to expire at 500 a statement, 0.6 s at up to 4 000. */
  readonly expiryBatchLimit = 4000;
  /** Two statements at once: 10 000 overdue rows at a restart expired in ~0.8 s with one, mostly the server's index updates. */
  readonly expiryLanes = 2;
  private readonly pool: pg.Pool;
  private readonly creates = new GroupCommit((items: NewCreate[]) => this.createAll(items));
  /** The audit query, scans and exports (`history-reads.ts`). */
  private readonly history: PostgresHistoryReads;

  private readonly callerClock: boolean;
  /** Signs what this store commits (`witnessed.ts`); null until `serve` loads the key, or in tools that hold none. */
  private witness: Witness | null = null;
  /** The one-statement settle's view of pending rows (`settle.ts`). */
  private readonly settles = new SettlePlanner();

  constructor(
    private readonly open: OpenPostgres,
    options: PostgresStoreOptions = {},
  ) {
    this.pool = open.pool;
    this.history = new PostgresHistoryReads(open);
    this.callerClock = options.deadlineClock === 'caller';
  }

  /**
   * Signs what this store commits from now on (`audit/witness.ts`): each write's batch receipt, and the verdict token
   * of each request it settles. Set once the key is loaded, before the gateway serves.
   */
  useWitness(witness: Witness | null): void {
    this.witness = witness;
  }

  /** The deadline clock's parameter: the caller's time, or null for the database's `now()`. */
  private deadlineNow(at: Date): Date | null {
    return this.callerClock ? at : null;
  }

  /** Runs `sql` on the pool (or `on`); rows come back typed as `T`. */
  private async rows<T>(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<T[]> {
    return rowsOf<T>(on, sql, params);
  }

  private async one(sql: string, params: unknown[], on?: Queryable): Promise<ConfirmationRequest | null> {
    const [row] = await this.rows<RequestRow>(sql, params, on);
    return row ? rowToRequest(row) : null;
  }

  /**
   * Runs `fn` in a transaction on one pooled connection, witnessed: its events' receipt and its tokens are written
   * last, before commit (`verdict-steps.ts`).
   */
  private async tx<T>(fn: (client: pg.PoolClient, write: WitnessedWrite) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, async (client) => {
      const write = new WitnessedWrite(this.witness);
      const result = await fn(client, write);
      await seal(client, write);
      return result;
    });
  }

  /** Group commit (see `group-commit.ts`): the creates of one event-loop turn are one statement. */
  async create(request: ConfirmationRequest, cards: NewCard[], extras?: CreateExtras): Promise<CreateResult> {
    const outcome = await this.creates.add({ request, cards, extras });
    if ('failed' in outcome) throw outcome.failed;
    return outcome;
  }

  /** The batch (`create-batch.ts`); its new rows are remembered for the one-statement settle. */
  private async createAll(items: NewCreate[]): Promise<CreateOutcome[]> {
    const byKey = (filedBy: string, key: string) => this.one(SQL_TEXT.byKey, [filedBy, key]);
    const outcomes = await createBatch({ pool: this.pool, witness: this.witness, byKey }, items);
    this.settles.remember(outcomes.flatMap((o) => ('created' in o && o.created ? [o.request] : [])));
    return outcomes;
  }

  async get(id: string) {
    const r = await withPostgresErrors(() => this.one(SQL_TEXT.byId, [id]));
    this.settles.remember([r]);
    return r;
  }

  async getMany(ids: readonly string[]) {
    return withPostgresErrors(async () => (await this.rows<RequestRow>(SQL_TEXT.byIds, [ids])).map(rowToRequest));
  }

  async getByIdempotencyKey(key: string, filedBy: string | null) {
    return withPostgresErrors(() => this.one(SQL_TEXT.byKey, [filedBy ?? '', key]));
  }

  async decide(id: string, vote: Vote): Promise<VoteResult> {
    // Most votes settle their request: a deny, or an approval where one suffices. Those are one statement, one round
    // trip instead of five (BEGIN, the locked read, the event, the flip, COMMIT). It changes nothing when the row is
    // not pending or needs a quorum; the transaction below then reads the row under its lock and says why.
    const settling = planVote({ requiredApprovals: 1 }, [], vote);
    if (settling.kind === 'final') {
      const row = await this.settle(id, settling.status, settling.fields, settling.event, vote.at);
      if (row) return { kind: 'final', request: row };
    }
    return this.tx(async (client, write): Promise<VoteResult> => {
      // The row lock: a second replica voting on this request waits here until this transaction ends.
      const locked = await lockForVote(client, id, this.deadlineNow(vote.at));
      if (!locked) return { kind: 'not_found' };
      const { current, now } = locked;
      if (current.status !== 'pending') return { kind: 'already_final', request: current };
      // The deadline belongs to the row: a vote at or after it expires the request instead, whatever the timers did.
      if (current.expiresAt.getTime() <= now.getTime())
        return { kind: 'expired', request: await expireLate(client, write, current, now) };
      const prior = needsPriorApprovers(current, vote)
        ? witnessedApprovals(
            await this.rows<ApprovalRow>(SQL_TEXT.approvers, [id], client),
            write.witness?.keys ?? null,
          )
        : { counted: [], uncounted: [] };
      const plan = planVote(current, prior.counted, vote, prior.uncounted);
      if (plan.kind === 'duplicate') return { kind: 'duplicate', request: current, priorActor: plan.priorActor };
      await insertEvent(client, write, id, plan.event);
      if (plan.kind === 'recorded') {
        // Who voted without settling, for `?person=` (a settling vote is the row's `responded_by_person`).
        await client.query(named(SQL_TEXT.recordVoter, [plan.event.detail.person, current.createdAt, id]));
        await client.query(named(SQL_TEXT.touch, [id, vote.at]));
        return { kind: 'recorded', request: { ...current, updatedAt: vote.at }, approvals: plan.approvals };
      }
      const request = await flip(client, write, id, plan.status, current, plan.fields, plan.approvals);
      return { kind: 'final', request };
    });
  }

  /**
   * A vote that settles its request in one statement (`SQL_TEXT.settle`): its event witnessed, its verdict token
   * minted from the values the statement commits. Null when it changed nothing — or, with a witness, when the row was
   * not read here lately (its tool and arguments unknown): the vote's transaction then reads it under its lock.
   */
  private async settle(
    id: string,
    status: 'approved' | 'denied',
    fields: VerdictFields,
    event: NewEvent,
    at: Date,
  ): Promise<ConfirmationRequest | null> {
    const planned = this.settles.plan(this.witness, id, status, fields, event, this.deadlineNow(at));
    if (!planned) return null;
    const row = await withPostgresErrors(() => this.one(SQL_TEXT.settle, planned.params));
    if (!row) return null;
    this.settles.forget(id);
    if (planned.token) attachVerdictToken(row, planned.token);
    return row;
  }

  async finish(
    id: string,
    status: 'expired' | 'cancelled',
    event: { actor: string | null; channel: string | null; detail: Record<string, unknown>; at: Date },
  ) {
    return this.tx(async (client, write) => {
      const locked = await lockForVote(client, id, this.deadlineNow(event.at));
      if (!locked || locked.current.status !== 'pending') return null;
      const { current, now } = locked;
      if (status === 'cancelled' && current.expiresAt.getTime() <= now.getTime())
        return expireLate(client, write, current, now);
      const reason = typeof event.detail.reason === 'string' ? event.detail.reason : null;
      const final = await flip(client, write, id, status, current, {
        respondedBy: event.actor,
        respondedVia: event.channel,
        reason,
        at: event.at,
      });
      await insertEvent(client, write, id, { type: status, ...event });
      return final;
    });
  }

  async expireDue(now: Date, limit: number): Promise<ConfirmationRequest[]> {
    return expireDue(this.pool, this.witness, this.deadlineNow(now), limit);
  }

  async appendEvent(requestId: string, event: NewEvent) {
    const write = new WitnessedWrite(this.witness);
    const v = write.event(requestId, event);
    const params = [requestId, v.type, v.actor, v.channel, v.detail, v.at, v.leaf, ...write.receiptParams()];
    await withPostgresErrors(() => this.pool.query(named(SQL_TEXT.appendEvent, params)));
  }

  async verdictTokens(requestIds: readonly string[]) {
    const rows = await withPostgresErrors(() =>
      this.rows<{ id: string; token: string }>(SQL_TEXT.verdictTokens, [requestIds]),
    );
    return new Map(rows.map((r) => [r.id, r.token]));
  }

  async events(requestId: string) {
    return withPostgresErrors(async () =>
      (await this.rows<Parameters<typeof rowToEvent>[0]>(SQL_TEXT.events, [requestId])).map(rowToEvent),
    );
  }

  async eventsOf(requestIds: readonly string[]) {
    return withPostgresErrors(async () =>
      (await this.rows<Parameters<typeof rowToEvent>[0]>(SQL_TEXT.eventsOf, [requestIds])).map(rowToEvent),
    );
  }

  async receiptsOf(requestIds: readonly string[]) {
    return this.history.receiptsOf(requestIds);
  }

  async list(query: RequestQuery): Promise<RequestPage> {
    return this.history.list(query);
  }

  scan(query: Omit<RequestQuery, 'limit' | 'cursor'>): AsyncIterable<ConfirmationRequest> {
    return this.history.scan(query);
  }

  exportPages(query: Omit<RequestQuery, 'limit' | 'cursor'>, format: ExportFormat): AsyncIterable<ExportPage> {
    return this.history.exportPages(query, format);
  }

  async pending(limit: number, afterExpiresAt?: Date, afterId?: string) {
    return withPostgresErrors(() =>
      afterExpiresAt === undefined
        ? this.rows<{ id: string; expiresAt: Date }>(SQL_TEXT.pendingFirst, [limit])
        : this.rows<{ id: string; expiresAt: Date }>(SQL_TEXT.pendingAfter, [afterExpiresAt, afterId ?? '', limit]),
    );
  }

  async pendingPlans(limit: number, afterExpiresAt?: Date, afterId?: string) {
    return withPostgresErrors(() =>
      this.rows<{ id: string; expiresAt: Date; planned: boolean }>(SQL_TEXT.pendingPlans, [
        afterExpiresAt ?? null,
        afterId ?? '',
        limit,
      ]),
    );
  }

  async countByStatus() {
    const counts = Object.fromEntries(REQUEST_STATUSES.map((s) => [s, 0])) as Record<RequestStatus, number>;
    const rows = await withPostgresErrors(() =>
      this.rows<{ status: RequestStatus; n: number }>(SQL_TEXT.countByStatus),
    );
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  async newestSameCall(query: SameCallQuery): Promise<ConfirmationRequest | null> {
    const params = [
      query.agentId,
      query.toolName,
      query.sessionId,
      query.argsSha256,
      sameCallWindow(query),
      query.alsoApprovedArgs === true,
      query.workspace !== undefined,
    ];
    const match = firstSameCall(
      await withPostgresErrors(() => this.rows<RequestRow>(SQL_TEXT.sameCall, params)),
      query,
    );
    return match ? rowToRequest(match) : null;
  }

  async messages(requestId: string) {
    return withPostgresErrors(async () =>
      (await this.rows<Parameters<typeof rowToMessage>[0]>(SQL_TEXT.messages, [requestId])).map(rowToMessage),
    );
  }

  async unsentMessages(limit: number) {
    return withPostgresErrors(async () =>
      (await this.rows<Parameters<typeof rowToMessage>[0]>(SQL_TEXT.unsentMessages, [limit])).map(rowToMessage),
    );
  }

  async updateMessage(requestId: string, channel: string, target: string, patch: MessagePatch, at: Date) {
    const keys = (Object.keys(patch) as (keyof MessagePatch)[])
      .filter((k) => patch[k] !== undefined && k in MESSAGE_COLUMNS)
      .sort();
    const sets = [...keys.map((k, i) => `${MESSAGE_COLUMNS[k]} = $${i + 5}`), 'updated_at = $4'].join(', ');
    const sql = `UPDATE channel_messages SET ${sets} WHERE request_id = $1 AND channel = $2 AND target = $3`;
    await withPostgresErrors(() =>
      this.pool.query(sql, [requestId, channel, target, at, ...keys.map((k) => patch[k])]),
    );
  }

  async escalate(
    id: string,
    step: number,
    routing: { approvers: string[]; channels: ChannelTarget[] },
    event: NewEvent,
  ): Promise<ConfirmationRequest | null> {
    return this.tx(async (client, write) => {
      // The row lock makes "step not recorded yet → record it" atomic across replicas running the same follow-up.
      const current = await this.one(SQL_TEXT.byIdForUpdate, [id], client);
      if (!current || current.status !== 'pending') return null;
      const done = await client.query(
        "SELECT 1 FROM confirmation_events WHERE request_id = $1 AND type = 'escalated' AND detail->>'step' = $2",
        [id, String(step)],
      );
      if (done.rowCount) return null;
      await client.query(
        'UPDATE confirmation_requests SET approvers = $2::jsonb, channels = $3::jsonb, updated_at = $4 WHERE id = $1',
        [id, JSON.stringify(routing.approvers), JSON.stringify(routing.channels), event.at],
      );
      const escalated = { ...current, approvers: routing.approvers, channels: routing.channels, updatedAt: event.at };
      await insertEvent(client, write, id, escalatedEvent(escalated, event));
      return escalated;
    });
  }

  async ensureMessage(requestId: string, channel: string, target: string, at: Date) {
    await withPostgresErrors(() =>
      this.pool.query(named(SQL_TEXT.insertMessage, [requestId, channel, target, 'pending', at])),
    );
  }

  async ping() {
    await withPostgresErrors(() => this.pool.query('SELECT 1'));
  }

  async close() {
    await this.open.close();
  }
}
