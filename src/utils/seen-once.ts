/**
 * @module utils/seen-once
 * Remembers ids for a while, to tell a first delivery from a repeat: what the chat adapters use to drop a replayed
 * Discord interaction or a redelivered Telegram update before it reaches the gateway. In-process and bounded: the
 * gateway's compare-and-set still refuses a copy that reaches a replica which never saw the first.
 */

/** Ids seen within the last `keepMs`, at most `max` of them (oldest dropped first). */
export class SeenOnce<K> {
  private readonly seen = new Map<K, number>();

  constructor(
    private readonly keepMs: number,
    private readonly max = 10_000,
  ) {}

  /** True the first time `id` is offered within the window, false for a repeat. */
  firstUse(id: K, nowMs: number): boolean {
    this.sweep(nowMs);
    if (this.seen.has(id)) return false;
    this.seen.set(id, nowMs);
    // Oldest first out when a flood fills the cache: they are the ones closest to leaving the window anyway.
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value!);
    return true;
  }

  private sweep(nowMs: number): void {
    // Insertion order is arrival order, so the first id still inside the window ends the sweep.
    for (const [id, at] of this.seen) {
      if (nowMs - at <= this.keepMs) break;
      this.seen.delete(id);
    }
  }
}
