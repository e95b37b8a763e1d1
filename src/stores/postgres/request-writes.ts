/**
 * @module stores/postgres/request-writes
 * What `PostgresConfirmationStore` writes to a request, exact when several replicas share the database (see
 * `store.ts` for how each write stays so): files it (group-committed, `create-batch.ts`), records votes (one
 * statement when the vote settles, `settle.ts`; else a transaction on the locked row), cancels and expires it,
 * escalates it and appends its events. Every transaction is witnessed: its events' receipt and its tokens are written
 * last, before commit (`verdict-steps.ts`).
 */
import type pg from 'pg';
import type { Witness } from '../../audit/witness.js';
import { witnessedApprovals, type ApprovalRow } from '../../audit/witnessed-approvals.js';
import { escalatedEvent } from '../../requests/coverage.js';
import { attachVerdictToken } from '../../requests/serialize.js';
import type { CreateExtras, CreateResult, NewCard, NewCreate, Vote, VoteResult } from '../../requests/store.js';
import type { ChannelTarget, ConfirmationRequest, NewEvent } from '../../requests/types.js';
import { needsPriorApprovers, planVote, type VerdictFields } from '../../requests/vote-plan.js';
import { GroupCommit } from '../../utils/group-commit.js';
import { createBatch, type CreateOutcome } from './create-batch.js';
import { withPostgresErrors } from './errors.js';
import { expireDue } from './expiry.js';
import { rowToRequest, type RequestRow } from './rows.js';
import { SettlePlanner } from './settle.js';
import { named, rowsOf, SQL_TEXT, type Queryable } from './statements.js';
import { inTransaction } from './transaction.js';
import { expireLate, flip, insertEvent, lockForVote, seal } from './verdict-steps.js';
import { WitnessedWrite } from './witnessed.js';

/** The request writes of the PostgreSQL store; see the module comment. */
export class PostgresRequestWrites {
  /**
   * One batch of creates in flight: the creates that arrive while it commits go together next (`group-commit.ts`).
   * Measured on the replicas bench (docs/performance-log.md): CPU per create of replica and database 0.84 ms with a
   * batch every turn, 0.64 with two in flight, 0.56 with one; with two replicas 1.09, 0.91 and 0.73.
   */
  private readonly creates = new GroupCommit((items: NewCreate[]) => this.createAll(items), 1);
  /** Signs what this store commits (`witnessed.ts`); null until `serve` loads the key, or in tools that hold none. */
  private witness: Witness | null = null;
  /** The one-statement settle's view of pending rows (`settle.ts`). */
  private readonly settles = new SettlePlanner();

  /** `callerClock`: the deadline clock is the time passed in, not the database's `now()` (`PostgresStoreOptions`). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly callerClock: boolean,
  ) {}

  /** Signs what is committed from now on (see `PostgresConfirmationStore.useWitness`). */
  useWitness(witness: Witness | null): void {
    this.witness = witness;
  }

  /** Remembers rows read as pending, for the one-statement settle (`settle.ts`). */
  remember(rows: readonly (ConfirmationRequest | null)[]): void {
    this.settles.remember(rows);
  }

  /** The deadline clock's parameter: the caller's time, or null for the database's `now()`. */
  private deadlineNow(at: Date): Date | null {
    return this.callerClock ? at : null;
  }

  private async one(sql: string, params: unknown[], on: Queryable = this.pool): Promise<ConfirmationRequest | null> {
    const [row] = await rowsOf<RequestRow>(on, sql, params);
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

  /** One vote: one statement when it settles a row known here, else a transaction on the locked row. */
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
        ? witnessedApprovals(await rowsOf<ApprovalRow>(client, SQL_TEXT.approvers, [id]), write.witness?.keys ?? null)
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

  /** Cancels or expires a pending request on its locked row; a cancel at or after its deadline expires it. */
  async finish(
    id: string,
    status: 'expired' | 'cancelled',
    event: { actor: string | null; channel: string | null; detail: Record<string, unknown>; at: Date },
  ): Promise<ConfirmationRequest | null> {
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

  /** Expires up to `limit` due rows (`expiry.ts`). */
  expireDue(now: Date, limit: number): Promise<ConfirmationRequest[]> {
    return expireDue(this.pool, this.witness, this.deadlineNow(now), limit);
  }

  /** One event, witnessed, in a statement of its own. */
  async appendEvent(requestId: string, event: NewEvent): Promise<void> {
    const write = new WitnessedWrite(this.witness);
    const v = write.event(requestId, event);
    const params = [requestId, v.type, v.actor, v.channel, v.detail, v.at, v.leaf, ...write.receiptParams()];
    await withPostgresErrors(() => this.pool.query(named(SQL_TEXT.appendEvent, params)));
  }

  /** Routes a pending request to escalation step `step`'s approvers and channels, once across replicas. */
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
}
