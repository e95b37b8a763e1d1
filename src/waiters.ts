/**
 * @module waiters
 * Long-poll waiters indexed by request id, so a change wakes exactly the waiters of that request (10 000 waiters on
 * 10 000 requests cost one map lookup per change, not a scan).
 */
import type { Clock, ClockTimer } from './clock.js';
import type { ConfirmationRequest } from './requests/types.js';

interface Entry {
  resolve: (final?: ConfirmationRequest) => void;
  timer: ClockTimer;
}

/**
 * A registered wait: resolves when woken, timed out or aborted — with the request's final row when the change that
 * woke it carried one, so the waiter need not read it again.
 */
export interface PendingWait {
  promise: Promise<ConfirmationRequest | undefined>;
  /** Removes the waiter without waking it (resolves the promise). */
  cancel(): void;
}

/** The set of callers waiting for requests to change. */
export class Waiters {
  private readonly byRequest = new Map<string, Set<Entry>>();

  constructor(private readonly clock: Clock) {}

  /** Registers a waiter on `requestId` that gives up after `timeoutMs` or when `signal` aborts. */
  add(requestId: string, timeoutMs: number, signal?: AbortSignal): PendingWait {
    let entry!: Entry;
    const promise = new Promise<ConfirmationRequest | undefined>((resolve) => {
      const done = (final?: ConfirmationRequest) => {
        entry.timer.cancel();
        signal?.removeEventListener('abort', stop);
        const set = this.byRequest.get(requestId);
        if (set?.delete(entry) && set.size === 0) this.byRequest.delete(requestId);
        resolve(final);
      };
      const stop = () => done();
      entry = { resolve: done, timer: this.clock.setTimeout(stop, Math.max(0, timeoutMs)) };
      signal?.addEventListener('abort', stop, { once: true });
    });
    let set = this.byRequest.get(requestId);
    if (!set) this.byRequest.set(requestId, (set = new Set()));
    set.add(entry);
    if (signal?.aborted) entry.resolve();
    return { promise, cancel: () => entry.resolve() };
  }

  /**
   * Wakes every waiter of `requestId`. `final` is its row once committed in a final status (which never changes
   * again): the waiters answer with it instead of each reading the row. Returns how many were woken.
   */
  wake(requestId: string, final?: ConfirmationRequest): number {
    const set = this.byRequest.get(requestId);
    if (!set) return 0;
    const woken = [...set];
    for (const entry of woken) entry.resolve(final);
    return woken.length;
  }

  /** Wakes everyone (shutdown). */
  releaseAll(): void {
    for (const id of [...this.byRequest.keys()]) this.wake(id);
  }

  /** How many callers are waiting (for metrics). */
  get size(): number {
    let n = 0;
    for (const set of this.byRequest.values()) n += set.size;
    return n;
  }
}
