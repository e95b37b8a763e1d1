/**
 * @module channels/web/sign-in-limiter
 * Slows password and login-link guessing: after too many failed sign-ins for one name, or from one address, within a
 * window, further attempts get 429 with `Retry-After` until the window ends — even with the right secret, so a guesser
 * cannot tell a hit from a block. A success clears the name's count. Fixed windows on the injected clock; memory is
 * bounded by dropping windows that have ended.
 */

/** Limits of {@link SignInLimiter}. */
export interface SignInLimits {
  /** Failures per name per window (default 5). */
  perName?: number;
  /** Failures per client address per window (default 20). */
  perAddress?: number;
  /** Window length in ms (default 15 minutes). */
  windowMs?: number;
}

interface Window {
  failures: number;
  endsAt: number;
}

/** Keys kept before ended windows are swept. */
const SWEEP_AT = 10_000;

/** Counts failed sign-ins per name and per address. */
export class SignInLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly perName: number;
  private readonly perAddress: number;
  private readonly windowMs: number;

  constructor(
    private readonly now: () => number,
    limits: SignInLimits = {},
  ) {
    this.perName = limits.perName ?? 5;
    this.perAddress = limits.perAddress ?? 20;
    this.windowMs = limits.windowMs ?? 15 * 60_000;
  }

  /** Seconds to wait before `name` may try again from `address`, or 0 when it may try now. */
  retryAfterS(name: string, address: string): number {
    const blocked = [
      this.over(`name:${name.toLowerCase()}`, this.perName),
      this.over(`addr:${address}`, this.perAddress),
    ];
    const until = Math.max(0, ...blocked.map((w) => (w ? w.endsAt : 0)));
    return until === 0 ? 0 : Math.max(1, Math.ceil((until - this.now()) / 1000));
  }

  /** Records a failed attempt (`name` may be empty for a bad login link). */
  failed(name: string, address: string): void {
    if (name) this.count(`name:${name.toLowerCase()}`);
    this.count(`addr:${address}`);
  }

  /** A successful sign-in clears the name's failures (not the address's: one good account must not unlock guessing). */
  succeeded(name: string): void {
    this.windows.delete(`name:${name.toLowerCase()}`);
  }

  private over(key: string, max: number): Window | null {
    const window = this.windows.get(key);
    if (!window || window.endsAt <= this.now()) return null;
    return window.failures >= max ? window : null;
  }

  private count(key: string): void {
    const now = this.now();
    if (this.windows.size >= SWEEP_AT) for (const [k, w] of this.windows) if (w.endsAt <= now) this.windows.delete(k);
    const window = this.windows.get(key);
    if (!window || window.endsAt <= now) this.windows.set(key, { failures: 1, endsAt: now + this.windowMs });
    else window.failures++;
  }
}
