/**
 * @module scheduler/due-timers
 * Many due times behind one clock timer. A process holding 100 000 pending requests arms one timer, for the earliest,
 * instead of one each: arming is a heap push, start-up re-arming is cheap, and the requests of one second fire as one
 * batch (which the gateway expires with one due-scan) instead of 10 000 separate callbacks.
 */
import type { Clock, ClockTimer } from '../utils/clock.js';
import { TimeHeap } from '../utils/time-heap.js';

interface Entry {
  at: number;
  id: string;
}

/**
 * Due times by id, firing `fire(ids)` with every id whose time has come, earliest first.
 * Setting an id again replaces its time; deleting forgets it. Replaced and deleted times stay in the heap as stale
 * entries (skipped when they surface) until a compaction, so both are O(log n) at worst.
 * @example
 * const timers = new DueTimers(clock, (ids) => ids.forEach(expire));
 * timers.set('req_1', Date.now() + 60_000);
 */
export class DueTimers {
  private readonly heap = new TimeHeap<Entry>();
  private readonly due = new Map<string, number>();
  private timer: ClockTimer | null = null;
  private armedAt = Infinity;

  constructor(
    private readonly clock: Clock,
    private readonly fire: (ids: string[]) => void,
  ) {}

  /** Fires `id` at `at` (epoch ms; at once, on the next turn, if it is past). Replaces an earlier setting. */
  set(id: string, at: number): void {
    if (this.due.get(id) === at) return;
    this.due.set(id, at);
    this.heap.push({ at, id });
    if (this.heap.size > 1024 && this.heap.size > 2 * this.due.size) this.compact();
    if (at < this.armedAt) this.arm(at);
  }

  /** Whether `id` has a time set that has not fired yet. */
  has(id: string): boolean {
    return this.due.has(id);
  }

  /** Forgets `id`; harmless when it is not set. */
  delete(id: string): void {
    this.due.delete(id);
  }

  /** Forgets everything and disarms the timer. */
  clear(): void {
    this.timer?.cancel();
    this.timer = null;
    this.armedAt = Infinity;
    this.heap.reset();
    this.due.clear();
  }

  /** How many ids are waiting. */
  get size(): number {
    return this.due.size;
  }

  private arm(at: number): void {
    this.timer?.cancel();
    this.armedAt = at;
    this.timer = this.clock.setTimeout(() => this.onTimer(), at - this.clock.now());
  }

  private onTimer(): void {
    this.timer = null;
    this.armedAt = Infinity;
    const now = this.clock.now();
    const ids: string[] = [];
    for (let next = this.heap.peek(); next && next.at <= now; next = this.heap.peek()) {
      const entry = this.heap.pop()!;
      if (this.due.get(entry.id) !== entry.at) continue; // replaced or deleted since
      this.due.delete(entry.id);
      ids.push(entry.id);
    }
    const next = this.heap.peek();
    if (next) this.arm(next.at);
    if (ids.length > 0) this.fire(ids);
  }

  /** Rebuilds the heap from the live times, dropping stale entries. */
  private compact(): void {
    this.heap.reset(Array.from(this.due, ([id, at]) => ({ at, id })));
  }
}
