import { randomUUID } from 'node:crypto';
import { BullMQScheduler } from '../../src/scheduler/bullmq.js';
import { REDIS_URL, deleteKeys } from '../integration/bullmq/redis.js';
import { runSchedulerContract } from './scheduler.contract.js';

runSchedulerContract('bullmq (real Redis)', {
  async create(options) {
    const prefix = `test-${randomUUID()}`;
    // No due-scan: the contract counts handler calls, and scheduler-faults.test.ts tests the due-scan on its own.
    const scheduler = new BullMQScheduler({ ...options, connection: REDIS_URL, prefix, expiryBackstopMs: 0 });
    return {
      scheduler,
      now: () => Date.now(),
      async cleanup() {
        await scheduler.stop();
        await deleteKeys(prefix);
      },
    };
  },
});
