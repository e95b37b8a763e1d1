/**
 * @module utils/clock
 * The one clock of tollgate. Everything that reads the time or waits takes a {@link Clock}, so tests of
 * timeouts move time forward instead of sleeping.
 */

/** A timer handle returned by {@link Clock.setTimeout}. */
export interface ClockTimer {
  /** Stops the timer; calling it twice is harmless. */
  cancel(): void;
}

/** Reads the time and schedules callbacks. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds of this clock's time. */
  setTimeout(fn: () => void, ms: number): ClockTimer;
}

/** Node's wall clock. Timers are unref'd so a pending expiry never keeps a process alive on its own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    // setTimeout caps at ~24.8 days; longer waits re-arm in steps.
    const max = 2_147_483_000;
    let handle: NodeJS.Timeout;
    const arm = (left: number) => {
      handle = setTimeout(() => (left > max ? arm(left - max) : fn()), Math.min(Math.max(left, 0), max));
      handle.unref();
    };
    arm(ms);
    return { cancel: () => clearTimeout(handle) };
  },
};

/**
 * A clock that moves only when told to: `advance(ms)` fires every timer that falls due, in order.
 * @example
 * const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
 * clock.setTimeout(() => console.log('fired'), 1000);
 * await clock.advance(1000); // logs "fired"
 */
export class ManualClock implements Clock {
  private timers: { at: number; fn: () => void; seq: number }[] = [];
  private seq = 0;

  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): ClockTimer {
    const timer = { at: this.current + Math.max(0, ms), fn, seq: this.seq++ };
    this.timers.push(timer);
    return { cancel: () => (this.timers = this.timers.filter((t) => t !== timer)) };
  }

  /** Moves time forward by `ms`, firing due timers one by one and letting promises settle between them. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      this.current = next.at;
      next.fn();
      await settle();
    }
    this.current = target;
    await settle();
  }

  /** How many timers are waiting. */
  get pendingTimers(): number {
    return this.timers.length;
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
}
