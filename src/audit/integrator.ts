/**
 * @module audit/integrator
 * One order for the audit trail, assigned after commit (ARCHITECTURE.md, "The proof"), as transparency logs do it
 * (Trillian's sequencer, Tessera's integrator): writers append events with no place in the chain and take no
 * chain-wide lock; an integrator in every process, one at a time through a row lock on the one-row head
 * (`FOR UPDATE SKIP LOCKED` on PostgreSQL, the write lock on SQLite), gives pending events gap-free `seq` and chain
 * hashes in batches and signs a checkpoint `{n, size, head, at, kind}` at least every {@link CHECKPOINT_EVERY_MS}
 * while events arrive. A batch is all or nothing: a process killed mid-batch leaves the events pending for the next.
 *
 * The events of a database from before the fifth stage are integrated first, and closed by a signed `legacy`
 * checkpoint (n = 1); they carry no receipts and `audit verify` checks them by the first chain's rules.
 */
import { ValidationError } from '../api/errors.js';
import { GENESIS_HASH } from './encoding.js';
import { chainHash, type CheckpointKind } from './leaf.js';
import type { SignedCheckpoint, Witness } from './witness.js';

/** The integrator's one-row head, as stored. */
export interface HeadState {
  size: number;
  hash: string;
  /** The newest checkpoint's number (0 before the first), its time and the size it signed. */
  checkpoint: number;
  checkpointAt: string | null;
  checkpointSize: number;
  /** Before the first checkpoint: the newest event id written before the fifth stage (null: none). */
  legacy: number | null;
}

/** A pending event: its id and leaf (computed from its content by the store when the row came without one). */
export interface PendingEvent {
  id: number;
  leaf: string;
}

/** What one batch writes: each event's place, the head after it, and a checkpoint when one is due. */
export interface BatchWrite {
  placed: { id: number; seq: number; prevHash: string; hash: string; leaf: string }[];
  head: HeadState;
  checkpoint: SignedCheckpoint | null;
}

/** One dialect's side of integration. */
export interface IntegrationStore {
  /**
   * Holds the head (resolves null at once when another process holds it), reads up to `limit` pending events, oldest
   * id first — while the legacy part is open (no checkpoint yet, `legacy` set), only ids up to `legacy` — lets `plan`
   * decide, and writes its answer in the same transaction. Resolves with the number of pending events read.
   */
  integrate(
    limit: number,
    plan: (head: HeadState, pending: PendingEvent[]) => BatchWrite | null,
  ): Promise<number | null>;
}

/** Checkpoints are signed at least this often while events arrive. */
export const CHECKPOINT_EVERY_MS = 10_000;
/** `TOLLGATE_AUDIT_MAX_DELAY`'s default: the stated merge delay. */
export const DEFAULT_MAX_DELAY_MS = 2_000;

/** `TOLLGATE_AUDIT_MAX_DELAY` in milliseconds: seconds, decimals allowed, more than 0; anything else names the variable. */
export function maxDelayFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.TOLLGATE_AUDIT_MAX_DELAY?.trim();
  if (!raw) return DEFAULT_MAX_DELAY_MS;
  const seconds = Number(raw.replace(/s$/, ''));
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new ValidationError(
      `TOLLGATE_AUDIT_MAX_DELAY: the merge delay in seconds (e.g. 2 or 0.5), more than 0; got ${JSON.stringify(raw)}`,
    );
  return Math.round(seconds * 1000);
}

/** Options of {@link Integrator}. */
export interface IntegratorOptions {
  /** Events per batch (≤ 1,000). */
  batch?: number;
  /** How often pending events are looked for (≤ 250 ms). */
  intervalMs?: number;
  now?: () => Date;
  onError?: (error: unknown) => void;
}

/**
 * The plan of one batch over `pending` after `head`: places, the new head, and a checkpoint when one is due — the
 * first, the close of the legacy part (its last, short batch), {@link CHECKPOINT_EVERY_MS} after the last while the
 * head has moved past it, or `force` (a prune, a stop).
 */
export function planBatch(
  head: HeadState,
  pending: readonly PendingEvent[],
  witness: Witness,
  at: Date,
  options: { batch: number; force?: CheckpointKind },
): BatchWrite | null {
  let prev = head.size === 0 ? GENESIS_HASH : head.hash;
  let seq = head.size;
  const placed = pending.map((e) => {
    const hash = chainHash(prev, e.leaf);
    const place = { id: e.id, seq: ++seq, prevHash: prev, hash, leaf: e.leaf };
    prev = hash;
    return place;
  });
  const moved: HeadState = { ...head, size: seq, hash: prev };
  const last = head.checkpointAt ? Date.parse(head.checkpointAt) : -Infinity;
  let kind: CheckpointKind | null = null;
  if (head.checkpoint === 0 && head.legacy !== null) kind = pending.length < options.batch ? 'legacy' : null;
  else if (options.force) kind = options.force;
  else if (head.checkpoint === 0 ? seq > 0 : seq > head.checkpointSize && at.getTime() - last >= CHECKPOINT_EVERY_MS)
    kind = 'head';
  if (placed.length === 0 && kind === null) return null;
  if (kind === null) return { placed, head: moved, checkpoint: null };
  const checkpoint = witness.checkpoint({ n: head.checkpoint + 1, size: seq, head: prev, at: at.toISOString(), kind });
  return {
    placed,
    head: { ...moved, checkpoint: checkpoint.n, checkpointAt: checkpoint.at, checkpointSize: seq, legacy: null },
    checkpoint,
  };
}

/** Integrates pending events in this process; see the module comment. */
export class Integrator {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** The run that starts when the one under way ends, for the calls that came during it. */
  private queued: Promise<void> | null = null;
  private readonly batch: number;
  private readonly intervalMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly store: IntegrationStore,
    private readonly witness: Witness,
    private readonly options: IntegratorOptions = {},
  ) {
    this.batch = Math.min(options.batch ?? 1000, 1000);
    this.intervalMs = Math.min(options.intervalMs ?? 100, 250);
    this.now = options.now ?? (() => new Date());
  }

  private readonly placedListeners = new Set<() => void>();

  /** Calls `listener` after each batch that placed events (the event stream reads placed events only). */
  onPlaced(listener: () => void): () => void {
    this.placedListeners.add(listener);
    return () => this.placedListeners.delete(listener);
  }

  /** Closes the legacy part (if any), then integrates every `intervalMs` until {@link stop}. */
  async start(): Promise<void> {
    await this.runOnce();
    this.timer = setInterval(
      () => void this.runOnce().catch((e: unknown) => this.options.onError?.(e)),
      this.intervalMs,
    );
    this.timer.unref();
  }

  /**
   * Integrates until nothing committed before the call is pending (one run at a time in this process; other processes
   * skip a held head). A run under way may have read the pending events before the caller's were committed, so a call
   * during one waits for it and then runs again; the calls that come during one run share the next.
   */
  runOnce(): Promise<void> {
    if (this.running) {
      const next = () => {
        this.queued = null;
        return this.runOnce();
      };
      this.queued ??= this.running.then(next, next);
      return this.queued;
    }
    this.running = this.drain().finally(() => (this.running = null));
    return this.running;
  }

  /** Integrates what is pending and signs a checkpoint of `kind` whatever the interval (a prune, a stop). */
  async checkpointNow(kind: CheckpointKind = 'head'): Promise<void> {
    await this.runOnce();
    // Another process may hold the head for a moment: wait for it rather than skip a checkpoint asked for.
    for (let tries = 0; tries < 100; tries++) {
      const read = await this.store.integrate(this.batch, (head, pending) =>
        planBatch(head, pending, this.witness, this.now(), { batch: this.batch, force: kind }),
      );
      if (read !== null) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the audit head stayed held by another process: no checkpoint signed');
  }

  /** Stops the timer and waits for a batch under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.queued;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const read = await this.store.integrate(this.batch, (head, pending) =>
        planBatch(head, pending, this.witness, this.now(), { batch: this.batch }),
      );
      if (read) for (const listener of this.placedListeners) listener();
      // Held by another process (it integrates for everyone), or a short batch: done for now.
      if (read === null || read < this.batch) return;
    }
  }
}
