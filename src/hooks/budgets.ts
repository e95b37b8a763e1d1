/**
 * @module hooks/budgets
 * Amplifier's guard against runaway context injections: each injection has a size cap and each turn a total
 * budget. What does not fit is dropped and logged, never truncated, because half a hint misleads.
 */

/** Limits on `inject_context`. Sizes are UTF-8 bytes. */
export interface InjectionBudgetOptions {
  /** Largest single injection; default 10 KiB. */
  maxInjectionBytes?: number;
  /** Largest total per turn (per session); default 40 KiB, about 10,000 tokens of English. */
  maxTurnBytes?: number;
}

/** Default size cap of one injection. */
export const DEFAULT_MAX_INJECTION_BYTES = 10 * 1024;
/** Default per-turn budget. */
export const DEFAULT_MAX_TURN_BYTES = 40 * 1024;

/** Why an injection was refused. */
export type InjectionRefusal = 'injection_too_large' | 'turn_budget_exhausted';

/**
 * Tracks how much each session has injected in its current turn. A turn lasts until
 * {@link InjectionBudget.beginTurn} is called for the session (runtimes call it before each LLM call).
 */
export class InjectionBudget {
  /** Cap of one injection in bytes. */
  readonly maxInjectionBytes: number;
  /** Budget of one turn in bytes. */
  readonly maxTurnBytes: number;
  private readonly used = new Map<string, number>();

  constructor(options: InjectionBudgetOptions = {}) {
    this.maxInjectionBytes = options.maxInjectionBytes ?? DEFAULT_MAX_INJECTION_BYTES;
    this.maxTurnBytes = options.maxTurnBytes ?? DEFAULT_MAX_TURN_BYTES;
  }

  /** Spends budget for `content` or says why it cannot. */
  take(
    sessionId: string | undefined,
    content: string,
  ): { ok: true } | { ok: false; refusal: InjectionRefusal; bytes: number } {
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > this.maxInjectionBytes) return { ok: false, refusal: 'injection_too_large', bytes };
    const key = sessionId ?? '';
    const spent = this.used.get(key) ?? 0;
    if (spent + bytes > this.maxTurnBytes) return { ok: false, refusal: 'turn_budget_exhausted', bytes };
    this.used.set(key, spent + bytes);
    return { ok: true };
  }

  /** Bytes the session has injected this turn. */
  spent(sessionId?: string): number {
    return this.used.get(sessionId ?? '') ?? 0;
  }

  /** Starts a new turn for the session: its budget is full again. */
  beginTurn(sessionId?: string): void {
    this.used.delete(sessionId ?? '');
  }
}
