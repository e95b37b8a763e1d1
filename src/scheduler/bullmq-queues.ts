/**
 * @module scheduler/bullmq-queues
 * The queue side of {@link BullMQScheduler} (`bullmq.ts`): the four queues on the scheduler's command connection, the
 * repeatable jobs every process installs once Redis is up (the due-scan and the sweep: one job scheduler each for the
 * whole cluster, however many processes upsert it), and the one-off catch-up after an outage.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  DUE_SCAN_SCHEDULER_ID,
  QUEUE_NAMES,
  SWEEP_SCHEDULER_ID,
  type QueueRole,
  type TollgateJobData,
} from './bullmq-jobs.js';
import { withTimeout } from './redis-connections.js';

/** The scheduler's queues, by role. */
export type BullMQQueues = Record<QueueRole, Queue<TollgateJobData>>;

/** Opens the four queues on `connection`, under `prefix`; their errors go to `onError`. */
export function openQueues(connection: Redis, prefix: string, onError: (error: Error) => void): BullMQQueues {
  const queue = (role: QueueRole) => {
    const q = new Queue<TollgateJobData>(QUEUE_NAMES[role], { connection, prefix });
    q.on('error', onError);
    return q;
  };
  return { expiry: queue('expiry'), cards: queue('cards'), callbacks: queue('callbacks'), sweep: queue('sweep') };
}

/** (Re)installs the due-scan every `backstopMs` and the sweep every `sweepEveryMs` (0: not installed). */
export async function installRepeatingJobs(
  queues: BullMQQueues,
  every: { backstopMs: number; sweepEveryMs: number },
): Promise<void> {
  if (every.backstopMs > 0)
    await queues.expiry.upsertJobScheduler(
      DUE_SCAN_SCHEDULER_ID,
      { every: every.backstopMs },
      { name: 'due-scan', data: { kind: 'due-scan' }, opts: { removeOnComplete: true, removeOnFail: true } },
    );
  if (every.sweepEveryMs > 0)
    await queues.sweep.upsertJobScheduler(
      SWEEP_SCHEDULER_ID,
      { every: every.sweepEveryMs },
      { name: 'sweep', data: { kind: 'sweep' }, opts: { removeOnComplete: true, removeOnFail: true } },
    );
}

/** Adds the catch-up reconciliation, one job for the cluster (its fixed id absorbs the other processes' adds). */
export async function addCatchUp(queues: BullMQQueues): Promise<void> {
  await queues.sweep.add(
    'catch-up',
    { kind: 'catch-up' },
    { jobId: 'catch-up', removeOnComplete: true, removeOnFail: true },
  );
}

/** Closes the queues, each given two seconds. */
export async function closeQueues(queues: BullMQQueues): Promise<void> {
  await Promise.all(
    Object.values(queues).map((q) => withTimeout(q.close(), 2000, 'queue close').catch(() => undefined)),
  );
}
