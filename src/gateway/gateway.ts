/**
 * @module gateway/gateway
 * The gateway service: files confirmation requests, applies decisions, expires and cancels, and wakes whoever
 * waits. It owns no transport: the HTTP API, channel adapters, the CLI and in-process agents all call it.
 * Background work (expiry timers, card deliveries and updates, runtime callbacks, the sweep) goes through the
 * {@link Scheduler}; the handlers for those jobs live in `jobs.ts` beside this file, filing a request in `file.ts`,
 * applying a decision in `decide.ts`, reads in `reads.ts`, what follows a committed change in `changes.ts`, the options
 * it is built from in `options.ts`, how its parts are built from them in `wiring.ts`, and a long-poll's wait in
 * `../lifecycle/verdict-wait.ts`.
 */
import { pino, type Logger } from 'pino';
import type { GatewayObserver } from './changes.js';
import { gatewayDefaults, type GatewayOptions } from './options.js';
import type { Channel, ChannelHost, GrantButton, DecideOutcome, DecisionEvent } from '../channel/channel.js';
import { LocalChangeFeed, type RequestChange } from '../lifecycle/change-feed.js';
import { systemClock } from '../utils/clock.js';
import { ConflictError } from '../api/errors.js';
import type { GatewayJobs } from './jobs.js';
import { GatewayReads } from './reads.js';
import type { GatewayDefaults, NewRequestInput } from '../requests/new-request.js';
import { receiptEvent, type ExecutionReceipt } from '../requests/receipts.js';
import type { PolicyGate } from '../policy/gate.js';
import type { GrantAdmin } from '../policy/grant-admin.js';
import { offeredGrants } from '../policy/grant-decisions.js';
import type { ConfirmationEvent, ConfirmationRequest, NewEvent } from '../requests/types.js';
import type { Scheduler } from '../scheduler/types.js';
import { Waiters } from '../lifecycle/waiters.js';
import { waitForVerdict } from '../lifecycle/verdict-wait.js';
import { applyDecision } from './decide.js';
import { fileRequest, type FileOptions } from './file.js';
import { NO_DIRECTORY } from '../people/no-directory.js';
import { AuditService } from '../audit/service.js';
import type { EventStream } from '../events/stream.js';
import type { Insights } from '../insights/service.js';
import { RequestTraces } from '../telemetry/tracing.js';
import { traceCreate, traceDecision, traceWake } from '../telemetry/request-spans.js';
import { wireGateway, type GatewayParts } from './wiring.js';

export type { GatewayDefaults, NewRequestInput } from '../requests/new-request.js';
export type { ExecutionReceipt } from '../requests/receipts.js';
export type { FileOptions } from './file.js';
export type { GatewayOptions } from './options.js';
export type { GatewayObserver } from './changes.js';

/**
 * The approval gateway.
 * @example
 * const gateway = new Gateway({ store, scheduler: new InProcessScheduler() });
 * await gateway.start();
 * const { request } = await gateway.request({ toolName: 'pay_invoice', toolArgs: { amount: 120 } });
 * const verdict = await gateway.wait(request.id, 55_000); // returns as soon as someone decides
 */
export class Gateway extends GatewayReads implements ChannelHost {
  readonly logger: Logger;
  readonly defaults: GatewayDefaults;
  readonly channels: ReadonlyMap<string, Channel>;
  readonly allowSelfApproval: boolean;
  /** The approval policy in force, if any (reloads swap its rules). */
  readonly policy: PolicyGate | null;
  /** Lists and revokes standing grants (null without a grant store). */
  readonly grantAdmin: GrantAdmin | null;
  /** The event stream over this database's events (null without one). */
  readonly stream: EventStream | null;
  /** What the history says (`GET /v1/insights`; null when the store offers no insights). */
  readonly insights: Insights | null;
  private readonly scheduler: Scheduler;
  private readonly waiters: Waiters;
  /** Set by {@link Gateway.stop}: waiters released then answer as they are instead of parking again. */
  private stopping = false;
  private unsubscribeFeed: (() => void) | null = null;
  private reconciling: Promise<void> = Promise.resolve();
  /** Filing, decisions, waits, the change fan-out, the due-scan and the job handlers (`wiring.ts`). */
  private readonly parts: GatewayParts;
  /** Each request's create span, so its later spans join the trace (in memory: see `telemetry/tracing.ts`). */
  private readonly traces = new RequestTraces();

  constructor(options: GatewayOptions) {
    const audit = options.auditChain
      ? new AuditService(options.auditChain, options.store, null, {
          maxDelayMs: options.auditMaxDelayMs,
          now: () => new Date((options.clock ?? systemClock).now()),
        })
      : null;
    super(
      options.store,
      options.feed ?? new LocalChangeFeed(),
      options.clock ?? systemClock,
      options.directory ?? (() => NO_DIRECTORY),
      audit,
      options.away,
    );
    this.scheduler = options.scheduler;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.allowSelfApproval = options.allowSelfApproval ?? false;
    this.policy = options.policy ?? null;
    this.defaults = gatewayDefaults(options.defaults);
    this.channels = new Map((options.channels ?? []).map((c) => [c.name, c]));
    this.waiters = new Waiters(this.clock);
    this.stream = options.stream ?? null;
    this.parts = wireGateway(
      {
        store: this.store,
        scheduler: this.scheduler,
        feed: this.feed,
        clock: this.clock,
        logger: this.logger,
        channels: this.channels,
        directory: this.directory,
        away: this.away,
        policy: this.policy,
        defaults: this.defaults,
        allowSelfApproval: this.allowSelfApproval,
        callbackAllow: options.callbackAllow ?? [],
        waiters: this.waiters,
        traces: this.traces,
      },
      {
        note: (id, event) => this.note(id, event),
        mustGet: (id) => this.mustGet(id),
        withStandIns: (r) => this.withStandIns(r),
        expireDue: () => this.expireDue(),
        changed: (r, kind) => this.changed(r, kind),
        stopping: () => this.stopping,
      },
      options,
    );
    this.grantAdmin = this.parts.grantAdmin;
    this.insights = this.parts.insights;
  }

  /** Subscribes to the change feed, starts the scheduler's workers and reconciles rows with timers. */
  async start(): Promise<void> {
    this.stopping = false;
    this.unsubscribeFeed = this.feed.subscribe((change) =>
      traceWake(this.traces, change.requestId, this.waiters.wake(change.requestId)),
    );
    // A due-scan the scheduler runs at once (BullMQ's first job) waits for the catch-up below and finds nothing,
    // instead of taking the backlog 500 rows at a time first (BullMQ restart: 3.5 s of expiry, not 1.75, profiled).
    const release = this.parts.expiryScan.expectCatchUp();
    await this.scheduler.start(this.parts.jobs).catch((error: unknown) => {
      release();
      throw error;
    });
    // Overdue rows expire before the gateway says it is up, in the store's catch-up batches; re-arming the timers of
    // the rows due soon goes on in the background, safe because rescheduling is idempotent.
    await this.parts.expiryScan.catchUp();
    this.reconciling = this.parts.jobs.reconcile().then(
      () => undefined,
      (error: unknown) => this.logger.error({ err: error }, 'reconciliation failed; the periodic sweep will catch up'),
    );
  }

  /** Resolves once start-up reconciliation has re-armed every pending request's timer. */
  async reconciled(): Promise<void> {
    await this.reconciling;
  }

  /** Stops the scheduler and releases waiters (they answer with the row as it is). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribeFeed?.();
    this.parts.jobs.stop();
    await this.reconciling;
    await this.parts.expiryScan.settled();
    await this.scheduler.stop();
    this.waiters.releaseAll();
  }

  /** Files a request, or returns the one filed before under the same idempotency key (`created: false`). */
  request(
    input: NewRequestInput,
    options: FileOptions = {},
  ): Promise<{ request: ConfirmationRequest; created: boolean }> {
    return traceCreate(input, () => fileRequest(this.parts.filing, input, options));
  }

  /** The grant buttons the request's policy rule offers (given its events), empty when none. */
  grantOffers(events: readonly ConfirmationEvent[]): GrantButton[] {
    return offeredGrants(this.policy, events);
  }

  /** What the gateway runs on, for the start-up line: the scheduler's name and the enabled channels. */
  describe(): { scheduler: string; channels: string[] } {
    return { scheduler: this.scheduler.name, channels: [...this.channels.keys()] };
  }

  /** Readiness of each part (`/readyz`): the database, the scheduler and, when distributed, the change feed. */
  readiness(): Record<string, () => Promise<{ ready: boolean; detail?: string }>> {
    return {
      database: async () => this.store.ping().then(() => ({ ready: true })),
      scheduler: () => this.scheduler.health(),
      ...(this.feed.health ? { change_feed: () => this.feed.health!() } : {}),
    };
  }

  /** Calls `listener` with the outcome of every background job this process runs (metrics); returns the unsubscribe. */
  onJobOutcome(listener: Parameters<GatewayJobs['onOutcome']>[0]): () => void {
    return this.parts.jobs.onOutcome(listener);
  }

  /** Applies a decision from any channel. Rejections are recorded as `decision_rejected` events and returned, not thrown. */
  decide(event: DecisionEvent): Promise<DecideOutcome> {
    return traceDecision(this.traces, event, () => applyDecision(this.parts.decisions, event));
  }

  /** Cancels a pending request (the runtime no longer needs it). Throws 404 / 409 when it is unknown or final. */
  async cancel(id: string, actor = 'api', reason?: string): Promise<ConfirmationRequest> {
    const cancelled = await this.store.finish(id, 'cancelled', {
      actor,
      channel: 'api',
      detail: reason ? { reason } : {},
      at: new Date(this.clock.now()),
    });
    if (!cancelled) {
      const current = await this.mustGet(id);
      throw new ConflictError(`request ${id} is already ${current.status}`);
    }
    await this.changed(cancelled, 'changed');
    // A cancel after the deadline finds the row expiring instead (the store expired it in the same transaction).
    if (cancelled.status !== 'cancelled') throw new ConflictError(`request ${id} is already ${cancelled.status}`);
    return cancelled;
  }

  /**
   * Records what happened when the tool ran (event `executed` or `execution_failed`), so auditors see proposed →
   * approved → executed. `args_match` says whether the arguments that ran (by their SHA-256) are the approved ones;
   * `allowed` flags a tool that ran without an approval. A receipt never changes the request's status.
   */
  async recordReceipt(id: string, receipt: ExecutionReceipt): Promise<NewEvent> {
    const request = await this.mustGet(id);
    const event = receiptEvent(request, receipt, new Date(this.clock.now()));
    await this.store.appendEvent(id, event);
    if (event.detail.args_match === false)
      this.logger.warn({ requestId: id }, 'a tool ran with other arguments than the approved ones');
    if (request.allowed !== true)
      this.logger.warn({ requestId: id, status: request.status }, 'a tool ran without an approval');
    return event;
  }

  /**
   * Expires every pending request whose time has come, in batches of one transaction each; one scan at a time per
   * process (see `expiry-scan.ts`). Returns how many expired.
   */
  expireDue(): Promise<number> {
    return this.parts.expiryScan.run();
  }

  protected expireOverdue(): Promise<number> {
    return this.parts.expiryScan.run();
  }

  /**
   * Resolves with the request as soon as it leaves `pending`, or as it is after `timeoutMs` (or once `signal` aborts,
   * or the gateway stops). No polling: the change feed wakes the waiter, which then re-reads the row — unless the
   * change was committed in this process, which hands its waiters the final row itself. `check` sees the first read
   * and may refuse it by throwing (`waitForVerdict`).
   */
  wait(
    id: string,
    timeoutMs: number,
    signal?: AbortSignal,
    check?: (request: ConfirmationRequest) => void,
  ): Promise<ConfirmationRequest> {
    return waitForVerdict(this.parts.waits, id, timeoutMs, signal, check);
  }

  /** Calls `observer` with every request that changes in this process. Returns the unsubscribe function. */
  observe(observer: GatewayObserver): () => void {
    return this.parts.changes.observe(observer);
  }

  /** After every committed change: tell waiters everywhere, stop the timer, refresh cards, call back. */
  private changed(request: ConfirmationRequest, kind: RequestChange['kind']): Promise<void> {
    return this.parts.changes.changed(request, kind);
  }
}
