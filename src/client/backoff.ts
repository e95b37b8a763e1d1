/**
 * @module client/backoff
 * Exponential backoff with jitter for reconnecting to a gateway that restarts, and an abortable sleep.
 */

/** Backoff settings: the first delay, the cap, and the growth factor. */
export interface BackoffOptions {
  /** First delay in ms (250). */
  initialMs?: number;
  /** Largest delay in ms (5000): a restarted gateway is found within this long. */
  maxMs?: number;
  /** Growth per attempt (2). */
  factor?: number;
}

/** Delays that grow per failure and start over after a success. Jitter keeps many clients from reconnecting in step. */
export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;

  constructor(
    options: BackoffOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 250;
    this.maxMs = options.maxMs ?? 5000;
    this.factor = options.factor ?? 2;
  }

  /** The next delay: between half and all of `initial × factor^attempt`, capped. */
  next(): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    this.attempt++;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  /** Failures since the last {@link reset}. */
  get attempts(): number {
    return this.attempt;
  }

  /** Starts over after a success. */
  reset(): void {
    this.attempt = 0;
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
