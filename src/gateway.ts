/**
 * @module gateway
 * The gateway service: files confirmation requests, applies decisions, expires and cancels, and wakes whoever
 * waits. It owns no transport: the HTTP API, channel adapters, the CLI and in-process agents all call it.
 * Background work (expiry timers, card deliveries and updates, runtime callbacks, the sweep) goes through the
 * {@link Scheduler}; the handlers for those jobs live in `gateway-jobs.ts`.
 */
import { pino, type Logger } from 'pino';
import type { Channel, DecideOutcome, DecisionEvent, DecisionRejection, DecisionSink } from './channel.js';
import { callbackUrlProblem } from './callback-target.js';
import { LocalChangeFeed, type ChangeFeed, type RequestChange } from './change-feed.js';
import { systemClock, type Clock } from './clock.js';
import { ConflictError, NotFoundError, ValidationError } from './errors.js';
import { GatewayJobs } from './gateway-jobs.js';
import { argsSha256 } from './requests/args-hash.js';
import { newConfirmationRequest, type GatewayDefaults, type NewRequestInput } from './requests/new-request.js';
import { authorizeApprover } from './requests/state-machine.js';
import type { ConfirmationStore } from './requests/store.js';
import type { ChannelTarget, ConfirmationRequest, NewEvent } from './requests/types.js';
import type { Scheduler } from './scheduler/types.js';
import { Waiters } from './waiters.js';

export type { GatewayDefaults, NewRequestInput } from './requests/new-request.js';

/** Everything the gateway is built from. */
export interface GatewayOptions {
  store: ConfirmationStore;
  scheduler: Scheduler;
  /** Change fan-out; `LocalChangeFeed` when absent (one process). */
  feed?: ChangeFeed;
  channels?: Channel[];
  clock?: Clock;
  logger?: Logger;
  defaults?: Partial<GatewayDefaults>;
  /** Lets a requester approve its own request (off by default). */
  allowSelfApproval?: boolean;
  /** HMAC key for `callback_url` signatures; callbacks are unsigned without it. */
  callbackSecret?: string;
  /** Hosts `callback_url` may name although they are loopback or private (`TOLLGATE_CALLBACK_ALLOW`; `*` = any). */
  callbackAllow?: string[];
}

/** What `POST /v1/requests/:id/receipt` reports after the tool ran. */
export interface ExecutionReceipt {
  outcome: 'succeeded' | 'failed';
  /** Free text or a short structured result (no secrets: it is stored in the audit trail). */
  detail?: string;
  /** SHA-256 of the arguments that actually ran (same canonical form as `args_sha256`). */
  argsSha256?: string;
  /** Who reports: `token:<name>`. */
  actor: string;
}

/** Something that watches state changes in this process (metrics, logs). Errors it throws are logged and ignored. */
export type GatewayObserver = (request: ConfirmationRequest, change: RequestChange['kind']) => void;

/** Rows expired per transaction. */
const EXPIRY_BATCH = 500;

const REJECTION_MESSAGES: Record<DecisionRejection, string> = {
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
 * The approval gateway.
 * @example
 * const gateway = new Gateway({ store, scheduler: new InProcessScheduler() });
 * await gateway.start();
 * const { request } = await gateway.request({ toolName: 'pay_invoice', toolArgs: { amount: 120 } });
 * const verdict = await gateway.wait(request.id, 55_000); // returns as soon as someone decides
 */
export class Gateway implements DecisionSink {
  readonly store: ConfirmationStore;
  readonly scheduler: Scheduler;
  readonly feed: ChangeFeed;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly defaults: GatewayDefaults;
  readonly channels: ReadonlyMap<string, Channel>;
  readonly allowSelfApproval: boolean;
  /** The job handlers the scheduler calls. */
  readonly jobs: GatewayJobs;
  private readonly waiters: Waiters;
  private readonly callbackAllow: string[];
  private readonly observers = new Set<GatewayObserver>();
  private unsubscribeFeed: (() => void) | null = null;
  private reconciling: Promise<void> = Promise.resolve();

  constructor(options: GatewayOptions) {
    this.store = options.store;
    this.scheduler = options.scheduler;
    this.feed = options.feed ?? new LocalChangeFeed();
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.allowSelfApproval = options.allowSelfApproval ?? false;
    this.defaults = {
      timeoutS: options.defaults?.timeoutS ?? 300,
      channels: options.defaults?.channels ?? [{ type: 'web' }],
      options: options.defaults?.options ?? ['Approve', 'Deny'],
      onTimeout: options.defaults?.onTimeout ?? 'deny',
    };
    this.channels = new Map((options.channels ?? []).map((c) => [c.name, c]));
    this.waiters = new Waiters(this.clock);
    this.callbackAllow = options.callbackAllow ?? [];
    this.jobs = new GatewayJobs(this, { callbackSecret: options.callbackSecret, callbackAllow: this.callbackAllow });
  }

  /** Subscribes to the change feed, starts the scheduler's workers and reconciles rows with timers. */
  async start(): Promise<void> {
    this.unsubscribeFeed = this.feed.subscribe((change) => this.waiters.wake(change.requestId));
    await this.scheduler.start(this.jobs);
    // Overdue rows expire before the gateway says it is up; re-arming the timers of the others (100 000 Redis writes
    // with BullMQ) goes on in the background, safe because rescheduling is idempotent and the sweep backs it up.
    await this.expireDue();
    this.reconciling = this.jobs.reconcile().then(
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
    this.unsubscribeFeed?.();
    await this.reconciling;
    await this.scheduler.stop();
    this.waiters.releaseAll();
  }

  /** Files a request, or returns the one filed before under the same idempotency key (`created: false`). */
  async request(input: NewRequestInput): Promise<{ request: ConfirmationRequest; created: boolean }> {
    const toolArgs = input.toolArgs ?? {};
    const callbackProblem = input.callbackUrl ? callbackUrlProblem(input.callbackUrl, this.callbackAllow) : null;
    if (callbackProblem) throw new ValidationError(`callback_url: ${callbackProblem}`, [{ path: 'callback_url', message: callbackProblem }]);
    const hash = argsSha256(input.toolName, toolArgs);
    if (input.idempotencyKey) {
      const existing = await this.store.getByIdempotencyKey(input.idempotencyKey);
      if (existing) return { request: sameArgsOrConflict(existing, hash), created: false };
    }
    const cards = this.resolveCards(input.channels ?? this.defaults.channels);
    const now = new Date(this.clock.now());
    const request = newConfirmationRequest(input, this.defaults, cards, hash, now);
    const inline = (type: string) => this.channels.get(type)?.readsFromDatabase === true;
    const result = await this.store.create(request, cards.map((c) => ({ channel: c.type, target: c.target ?? '', sent: inline(c.type) })));
    if (!result.created) return { request: sameArgsOrConflict(result.request, hash), created: false };
    await this.scheduler.scheduleExpiry(request.id, request.expiresAt);
    for (const card of cards) if (!inline(card.type)) await this.scheduler.enqueueDelivery(request.id, card.type, card.target ?? '');
    await this.changed(request, 'created');
    return result;
  }

  /** Reads a request. */
  async get(id: string): Promise<ConfirmationRequest | null> {
    return this.store.get(id);
  }

  /** Reads a request or throws {@link NotFoundError}. */
  async mustGet(id: string): Promise<ConfirmationRequest> {
    const request = await this.store.get(id);
    if (!request) throw new NotFoundError(`no request with id ${id}`);
    return request;
  }

  /** Applies a decision from any channel. Rejections are recorded as `decision_rejected` events and returned, not thrown. */
  async decide(event: DecisionEvent): Promise<DecideOutcome> {
    const actor = `${event.actor.channel}:${event.actor.userId}`;
    const request = await this.store.get(event.requestId);
    if (!request) return { ok: false, code: 'not_found', message: REJECTION_MESSAGES.not_found };
    const reject = async (code: DecisionRejection, message = REJECTION_MESSAGES[code]): Promise<DecideOutcome> => {
      await this.store.appendEvent(request.id, {
        type: 'decision_rejected',
        actor,
        channel: event.via ?? event.actor.channel,
        detail: { code, decision: event.decision, message, ...(event.token ? { token: event.token.name } : {}) },
        at: new Date(this.clock.now()),
      });
      this.logger.warn({ requestId: request.id, actor, code }, 'decision rejected');
      return { ok: false, code, message, request: (await this.store.get(request.id)) ?? request };
    };
    if (event.nonce !== undefined && event.nonce !== request.nonce) return reject('bad_nonce');
    if (request.status !== 'pending') return reject('already_decided', `This request was already ${request.status}.`);
    if (event.argsSha256 !== undefined && event.argsSha256 !== request.argsSha256) return reject('args_mismatch');
    if (event.approvedArgs && event.decision !== 'approve') return reject('invalid', 'Edited arguments go with an approval only.');
    const denied = authorizeApprover(request, actor, event.decision, this.allowSelfApproval);
    if (denied) return reject(denied === 'self_approval' ? 'self_approval' : 'not_authorized');
    // The token that filed a request may not approve it either (an agent's token never approves its own call).
    const filedBySameToken = event.token && !event.token.trusted && request.filedBy === event.token.name;
    if (filedBySameToken && event.decision === 'approve' && !this.allowSelfApproval) return reject('self_approval');

    const option = event.option ?? (event.decision === 'approve' ? request.options[0] : request.options[1]) ?? null;
    const result = await this.store.decide(request.id, {
      decision: event.decision,
      actor,
      via: event.via ?? event.actor.channel,
      token: event.token?.name ?? null,
      reason: event.reason ?? null,
      option,
      approvedArgs: event.approvedArgs ?? null,
      at: new Date(this.clock.now()),
    });
    switch (result.kind) {
      case 'not_found':
        return { ok: false, code: 'not_found', message: REJECTION_MESSAGES.not_found };
      case 'already_final':
        return reject('already_decided', `This request was already ${result.request.status}.`);
      case 'duplicate':
        return { ok: false, code: 'duplicate_approval', message: REJECTION_MESSAGES.duplicate_approval, request: result.request };
      case 'recorded':
        await this.changed(result.request, 'changed');
        return { ok: true, request: result.request, final: false };
      case 'final':
        await this.changed(result.request, 'changed');
        return { ok: true, request: result.request, final: true };
    }
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
    return cancelled;
  }

  /**
   * Records what happened when the tool ran (event `executed` or `execution_failed`), so auditors see proposed →
   * approved → executed. `args_match` says whether the arguments that ran (by their SHA-256) are the approved ones;
   * `allowed` flags a tool that ran without an approval. A receipt never changes the request's status.
   */
  async recordReceipt(id: string, receipt: ExecutionReceipt): Promise<NewEvent> {
    const request = await this.mustGet(id);
    const approvedSha = request.approvedArgs ? argsSha256(request.toolName, request.approvedArgs) : request.argsSha256;
    const detail: Record<string, unknown> = {
      ...(receipt.detail !== undefined ? { detail: receipt.detail } : {}),
      allowed: request.allowed,
      ...(receipt.argsSha256 !== undefined ? { args_sha256: receipt.argsSha256, approved_args_sha256: approvedSha, args_match: receipt.argsSha256 === approvedSha } : {}),
    };
    const event = { type: receipt.outcome === 'succeeded' ? ('executed' as const) : ('execution_failed' as const), actor: receipt.actor, channel: 'api', detail, at: new Date(this.clock.now()) };
    await this.store.appendEvent(id, event);
    if (receipt.argsSha256 !== undefined && receipt.argsSha256 !== approvedSha) this.logger.warn({ requestId: id }, 'a tool ran with other arguments than the approved ones');
    if (request.allowed !== true) this.logger.warn({ requestId: id, status: request.status }, 'a tool ran without an approval');
    return event;
  }

  /**
   * Expires every pending request whose time has come, in batches of one transaction each (10 000 requests falling
   * due in the same second cost a few writes, not 10 000). Returns how many expired.
   */
  async expireDue(): Promise<number> {
    let count = 0;
    for (;;) {
      const expired = await this.store.expireDue(new Date(this.clock.now()), EXPIRY_BATCH);
      for (const request of expired) await this.changed(request, 'changed');
      count += expired.length;
      if (expired.length < EXPIRY_BATCH) return count;
    }
  }

  /**
   * Resolves with the request as soon as it leaves `pending`, or as it is after `timeoutMs`. No polling: the change
   * feed wakes the waiter, which then re-reads the row.
   */
  async wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<ConfirmationRequest> {
    // Register before reading, so a change between the read and the registration still wakes us.
    const woken = this.waiters.add(id, timeoutMs, signal);
    const current = await this.mustGet(id);
    if (current.status !== 'pending' || timeoutMs <= 0) {
      woken.cancel();
      return current;
    }
    await woken.promise;
    return this.mustGet(id);
  }

  /** Calls `observer` with every request that changes in this process. Returns the unsubscribe function. */
  observe(observer: GatewayObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** After every committed change: tell waiters everywhere, stop the timer, refresh cards, call back. */
  private async changed(request: ConfirmationRequest, kind: RequestChange['kind']): Promise<void> {
    for (const observer of this.observers) {
      try {
        observer(request, kind);
      } catch (error) {
        this.logger.error({ err: error }, 'gateway observer failed');
      }
    }
    await this.feed.publish({ requestId: request.id, status: request.status, kind }).catch((error: unknown) => {
      this.logger.error({ err: error, requestId: request.id }, 'change feed publish failed; waiters elsewhere will see it on their next read');
    });
    if (kind === 'changed') await this.jobs.afterChange(request);
  }

  /** Checks each requested card against the enabled channels and fills in default targets. */
  private resolveCards(targets: ChannelTarget[]): { type: string; target?: string }[] {
    const problems: { path: string; message: string }[] = [];
    const cards = targets.map((t, i) => {
      const channel = this.channels.get(t.type);
      if (!channel) {
        problems.push({ path: `channels[${i}].type`, message: `channel "${t.type}" is not enabled (enabled: ${[...this.channels.keys()].join(', ') || 'none'})` });
        return t;
      }
      const target = t.target ?? channel.defaultTarget;
      if (t.type !== 'web' && !target) problems.push({ path: `channels[${i}].target`, message: `channel "${t.type}" needs a target (no default configured)` });
      return { type: t.type, target: t.type === 'web' ? '' : target };
    });
    if (problems.length) throw new ValidationError(`${problems[0]!.path}: ${problems[0]!.message}`, problems);
    const unique = new Map(cards.map((c) => [`${c.type}\u0000${c.target ?? ''}`, c]));
    return [...unique.values()];
  }
}

function sameArgsOrConflict(existing: ConfirmationRequest, hash: string): ConfirmationRequest {
  if (existing.argsSha256 !== hash) {
    throw new ConflictError(`idempotency_key "${existing.idempotencyKey}" was used for request ${existing.id} with other tool_name/tool_args`);
  }
  return existing;
}
