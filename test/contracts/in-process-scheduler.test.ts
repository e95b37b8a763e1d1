import { ManualClock } from '../../src/utils/clock.js';
import { InProcessScheduler } from '../../src/scheduler/in-process.js';
import { runSchedulerContract } from './scheduler.contract.js';

runSchedulerContract('in-process (manual clock)', {
  async create(options) {
    const clock = new ManualClock();
    const scheduler = new InProcessScheduler({ ...options, clock });
    return { scheduler, now: () => clock.now(), advance: (ms) => clock.advance(ms), cleanup: () => scheduler.stop() };
  },
});
