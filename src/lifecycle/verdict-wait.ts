/**
 * @module lifecycle/verdict-wait
 * A long-poll's wait for one request's verdict: register with the {@link Waiters}, read the row, park until a change
 * wakes it, its deadline comes or the wait's time is up. `Gateway.wait` is the one caller.
 */
import type { Clock } from '../utils/clock.js';
import type { ConfirmationRequest } from '../requests/types.js';
import type { Waiters } from './waiters.js';

/** How soon a wait looks again at a row that is overdue by this process's clock but not yet by the database's. */
const OVERDUE_RECHECK_MS = 250;

/** What a wait needs of the gateway (so this file does not import it). */
export interface WaitDeps {
  waiters: Waiters;
  clock: Clock;
  /** Reads the row (an overdue one expired first), or throws `NotFoundError`. */
  read(id: string): Promise<ConfirmationRequest>;
  /** Whether the gateway is stopping: a wait then answers with the row as it is instead of parking. */
  stopping(): boolean;
}

/**
 * Resolves with the request as soon as it leaves `pending`, or as it is after `timeoutMs` (or once `signal` aborts,
 * or the gateway stops). `check` sees the first read before anything is answered or parked, and may throw (a caller
 * who may not read the row: the HTTP long-poll's 404), so a caller need not read the row once more to check it.
 */
export async function waitForVerdict(
  deps: WaitDeps,
  id: string,
  timeoutMs: number,
  signal?: AbortSignal,
  check?: (request: ConfirmationRequest) => void,
): Promise<ConfirmationRequest> {
  const { waiters, clock } = deps;
  const deadline = clock.now() + timeoutMs;
  // Register before reading, so a change between the read and the registration still wakes us.
  const woken = waiters.add(id, timeoutMs, signal);
  let current: ConfirmationRequest;
  try {
    current = await deps.read(id);
    check?.(current);
  } catch (error) {
    // Not found, not the caller's, the database down: nobody is waiting, so no waiter may stay behind until its time.
    woken.cancel();
    throw error;
  }
  if (current.status !== 'pending' || timeoutMs <= 0 || signal?.aborted || deps.stopping()) {
    woken.cancel();
    return current;
  }
  // The deadline belongs to the row: a wait that outlasts it wakes at it and reads again (which expires the row),
  // whether or not the timer that should expire it fires (it may have died with another replica).
  // A row this clock calls overdue that the read left pending is not due by the database's clock (PostgreSQL): look
  // again shortly rather than at once, so a skewed clock never spins reads.
  const untilExpiry = Math.max(current.expiresAt.getTime() - clock.now(), OVERDUE_RECHECK_MS);
  if (untilExpiry < timeoutMs) {
    const atExpiry = waiters.add(id, untilExpiry, signal);
    woken.cancel();
    return parked(deps, id, atExpiry.promise, deadline, signal);
  }
  // The parked part is its own frame, so a waiter holds no copy of the row for the length of its wait.
  return parked(deps, id, woken.promise, deadline, signal);
}

/**
 * A wake-up without a final row re-reads, and waits on for the time left while the row is still pending: a change
 * that settled nothing (the `created` of the same request arriving late over Redis, an approval short of a quorum)
 * must not end a long-poll early.
 */
function parked(
  deps: WaitDeps,
  id: string,
  woken: Promise<ConfirmationRequest | undefined>,
  deadline: number,
  signal?: AbortSignal,
): Promise<ConfirmationRequest> {
  // A reaction, not a suspended async frame: smaller, times every parked waiter.
  return woken.then((final) => final ?? waitForVerdict(deps, id, Math.max(0, deadline - deps.clock.now()), signal));
}
