/**
 * @module lifecycle/waiters
 * Long-poll waiters indexed by request id, so a change wakes exactly the waiters of that request (10 000 waiters on
 * 10 000 requests cost one map lookup per change, not a scan).
 *
 * A parked long-poll should cost about what node's own connection costs, so a waiter is one small object: no timer of
 * its own (every waiter's time limit sits in one heap behind one clock timer, for the earliest), no set of its own
 * when it is its request's only waiter, and no closure for its abort signal (the waiter is the listener object).
 */
import type { Clock, ClockTimer } from '../utils/clock.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { TimeHeap } from '../utils/time-heap.js';

/**
 * A registered wait: resolves when woken, timed out or aborted — with the request's final row when the change that
 * woke it carried one, so the waiter need not read it again.
 */
export interface PendingWait {
  promise: Promise<ConfirmationRequest | undefined>;
  /** Removes the waiter without waking it (resolves the promise). */
  cancel(): void;
}

/** One waiter: its request, its time limit, how to answer it, and (as an event listener object) its abort handler. */
class Entry implements PendingWait {
  done = false;
  resolve!: (final?: ConfirmationRequest) => void;
  readonly promise: Promise<ConfirmationRequest | undefined>;

  constructor(
    private readonly owner: Waiters,
    readonly requestId: string,
    readonly at: number,
    readonly signal: AbortSignal | undefined,
  ) {
    this.promise = new Promise((resolve) => (this.resolve = resolve));
  }

  cancel(): void {
    this.owner.finish(this);
  }

  /** The abort signal's listener. */
  handleEvent(): void {
    this.owner.finish(this);
  }
}

/** The set of callers waiting for requests to change. */
export class Waiters {
  /** The waiters of each request: the one waiter itself, or a set when there are several. */
  private readonly byRequest = new Map<string, Entry | Set<Entry>>();
  /** Every live waiter's time limit, earliest first (a binary heap; finished entries are dropped as they surface). */
  private readonly heap = new TimeHeap<Entry>();
  private live = 0;
  private timer: ClockTimer | null = null;
  private armedAt = Infinity;

  constructor(private readonly clock: Clock) {}

  /** Registers a waiter on `requestId` that gives up after `timeoutMs` or when `signal` aborts. */
  add(requestId: string, timeoutMs: number, signal?: AbortSignal): PendingWait {
    const entry = new Entry(this, requestId, this.clock.now() + Math.max(0, timeoutMs), signal);
    const existing = this.byRequest.get(requestId);
    if (!existing) this.byRequest.set(requestId, entry);
    else if (existing instanceof Set) existing.add(entry);
    else this.byRequest.set(requestId, new Set([existing, entry]));
    this.live++;
    this.push(entry);
    if (signal?.aborted) this.finish(entry);
    else signal?.addEventListener('abort', entry, { once: true });
    return entry;
  }

  /**
   * Wakes every waiter of `requestId`. `final` is its row once committed in a final status (which never changes
   * again): the waiters answer with it instead of each reading the row. Returns how many were woken.
   */
  wake(requestId: string, final?: ConfirmationRequest): number {
    const found = this.byRequest.get(requestId);
    if (!found) return 0;
    const woken = found instanceof Set ? [...found] : [found];
    for (const entry of woken) this.finish(entry, final);
    return woken.length;
  }

  /** Wakes everyone (shutdown). */
  releaseAll(): void {
    for (const id of [...this.byRequest.keys()]) this.wake(id);
  }

  /** How many callers are waiting (for metrics). */
  get size(): number {
    return this.live;
  }

  /** Answers `entry` (once) and forgets it. */
  finish(entry: Entry, final?: ConfirmationRequest): void {
    if (entry.done) return;
    entry.done = true;
    this.live--;
    entry.signal?.removeEventListener('abort', entry);
    const found = this.byRequest.get(entry.requestId);
    if (found === entry) this.byRequest.delete(entry.requestId);
    else if (found instanceof Set && found.delete(entry) && found.size === 0) this.byRequest.delete(entry.requestId);
    // Finished entries stay in the heap until they surface; rebuild it when they are most of it.
    if (this.heap.size > 1024 && this.heap.size > 2 * this.live) this.compact();
    entry.resolve(final);
  }

  private push(entry: Entry): void {
    this.heap.push(entry);
    if (entry.at < this.armedAt) this.arm(entry.at);
  }

  private compact(): void {
    this.heap.reset(this.heap.entries().filter((e) => !e.done));
  }

  private arm(at: number): void {
    this.timer?.cancel();
    this.armedAt = at;
    this.timer = this.clock.setTimeout(() => this.onTimer(), at - this.clock.now());
  }

  /** Times out every waiter whose limit has come, then arms for the next live one. */
  private onTimer(): void {
    this.timer = null;
    this.armedAt = Infinity;
    const now = this.clock.now();
    const due: Entry[] = [];
    for (let next = this.heap.peek(); next && (next.done || next.at <= now); next = this.heap.peek()) {
      const entry = this.heap.pop()!;
      if (!entry.done) due.push(entry);
    }
    const next = this.heap.peek();
    if (next) this.arm(next.at);
    for (const entry of due) this.finish(entry);
  }
}
