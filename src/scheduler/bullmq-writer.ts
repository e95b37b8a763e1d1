/**
 * @module scheduler/bullmq-writer
 * How one scheduler call becomes Redis state, safely when several processes make the same call at once:
 * - a wake-up for a reminder or escalation step is one delayed job per request (`expire-<id>`), due a backstop delay
 *   after its time (the scheduling process fires it on time from a local timer); the same time again is a no-op,
 *   another time replaces the job (remove + add), and a timer that is firing right now is left alone (the new time
 *   gets its own id);
 * - a delivery or callback that is waiting or running absorbs a second enqueue;
 * - a card update that is waiting absorbs a second enqueue; one that is running gets a follow-up, since it may have
 *   read the row before the change that asked for the update.
 */
import type { JobsOptions, Queue } from 'bullmq';
import type { Clock } from '../utils/clock.js';
import { BACKOFF_TYPE, jobIdOf, queueOf, type QueueRole, type TollgateJobData } from './bullmq-jobs.js';
import type { BufferedOperation } from './operation-buffer.js';
import { describeError } from '../api/errors.js';

/** Job states in which a job has not started yet. */
const WAITING_STATES = new Set(['waiting', 'delayed', 'prioritized', 'waiting-children']);

/** Applies scheduler operations to the queues. */
export class BullMQWriter {
  constructor(
    private readonly queues: Record<QueueRole, Queue<TollgateJobData>>,
    private readonly settings: { attempts: number; backoffMs: number },
    private readonly clock: Clock,
    /** Expiry jobs this process is running now (locked: removing them would fail). */
    private readonly isFiringHere: (requestId: string) => boolean,
    /** How long after its time an expiry job fires: the process that scheduled it fires it on time, locally. */
    private readonly backstopMs = 0,
  ) {}

  /** Writes one operation to Redis; throws when Redis does not answer. */
  async apply(op: BufferedOperation): Promise<void> {
    if (op.kind === 'cancel-expiry') return this.cancelExpiry(op.requestId);
    const data = op.data;
    if (data.kind === 'expire') return this.scheduleExpiry(data);
    const queue = this.queues[queueOf(data)];
    const id = jobIdOf(data);
    const existing = await queue.getJob(id);
    if (existing) {
      const state = await existing.getState();
      if (WAITING_STATES.has(state)) return;
      if (state === 'active') {
        if (data.kind !== 'update') return;
        await queue.add(data.kind, data, {
          ...this.options(data),
          jobId: `${id}-${this.clock.now()}`,
          delay: this.settings.backoffMs,
        });
        return;
      }
      await this.tryRemove(queue, id); // finished and kept (failed jobs are kept a while): make room for a new run
    }
    await queue.add(data.kind, data, { ...this.options(data), jobId: id });
  }

  private async scheduleExpiry(data: Extract<TollgateJobData, { kind: 'expire' }>): Promise<void> {
    const queue = this.queues.expiry;
    const id = jobIdOf(data);
    // A few rounds: another process may be replacing the same job at the same moment. One read in the common case
    // (reconciliation at start re-schedules every pending row with the time it already has).
    for (let round = 0; round < 3; round++) {
      const existing = await queue.getJob(id);
      if (!existing) {
        await queue.add(data.kind, data, { ...this.options(data), jobId: id }); // a concurrent identical add is a no-op
        return;
      }
      if ((existing.data as { at?: number }).at === data.at && !existing.finishedOn) return;
      // Another time (or finished and kept): replace it, unless it is firing right now (locked: remove fails).
      if (await this.tryRemove(queue, id)) {
        await queue.add(data.kind, data, { ...this.options(data), jobId: id });
        return;
      }
    }
    // The old timer is firing: the new time gets its own job; the old one will find its request still pending and
    // not yet due, or final, and do nothing.
    await queue.add(data.kind, data, { ...this.options(data), jobId: `${id}-${data.at}` });
  }

  private async cancelExpiry(requestId: string): Promise<void> {
    if (this.isFiringHere(requestId)) return; // it is firing in this process now and completes on its own
    await this.queues.expiry.remove(jobIdOf({ kind: 'expire', requestId, at: 0 })).catch((error: unknown) => {
      if (!/locked/i.test(describeError(error))) throw error; // firing elsewhere: it will find the request final
    });
  }

  private async tryRemove(queue: Queue<TollgateJobData>, id: string): Promise<boolean> {
    try {
      return (await queue.remove(id)) === 1;
    } catch {
      return false;
    }
  }

  private options(data: TollgateJobData): JobsOptions {
    return {
      attempts: data.kind === 'expire' ? Math.max(this.settings.attempts, 10) : this.settings.attempts,
      backoff: { type: BACKOFF_TYPE, delay: this.settings.backoffMs },
      delay: data.kind === 'expire' ? Math.max(0, data.at + this.backstopMs - this.clock.now()) : 0,
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
    };
  }
}
