/**
 * @module scheduler/due-timers
 * Many due times behind one clock timer. A process holding 100 000 pending requests arms one timer, for the earliest,
 * instead of one each: arming is a heap push, start-up re-arming is cheap, and the requests of one second fire as one
 * batch (which the gateway expires with one due-scan) instead of 10 000 separate callbacks.
 */
import type { Clock, ClockTimer } from '../clock.js';

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
  private heap: Entry[] = [];
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
    this.push({ at, id });
    if (this.heap.length > 1024 && this.heap.length > 2 * this.due.size) this.compact();
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
    this.heap = [];
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
    while (this.heap.length > 0 && this.heap[0]!.at <= now) {
      const entry = this.pop();
      if (this.due.get(entry.id) !== entry.at) continue; // replaced or deleted since
      this.due.delete(entry.id);
      ids.push(entry.id);
    }
    if (this.heap.length > 0) this.arm(this.heap[0]!.at);
    if (ids.length > 0) this.fire(ids);
  }

  /** Rebuilds the heap from the live times, dropping stale entries. */
  private compact(): void {
    this.heap = [];
    for (const [id, at] of this.due) this.push({ at, id });
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= entry.at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): Entry {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.at < heap[left]!.at ? right : left;
      if (heap[child]!.at >= last.at) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
