/**
 * @module utils/time-heap
 * A binary min-heap of entries by time (`at`, ms): the one structure behind every "many deadlines, one timer" in the
 * gateway (the scheduler's due times, the parked waiters' time limits). Entries are plain objects; callers mark
 * stale ones themselves and drop them as they surface, or rebuild the heap when they are most of it.
 */

/** Entries earliest first; `peek()` is the earliest. */
export class TimeHeap<T extends { at: number }> {
  private items: T[] = [];

  /** How many entries it holds, stale ones included. */
  get size(): number {
    return this.items.length;
  }

  /** The earliest entry, or undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(entry: T): void {
    const heap = this.items;
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

  /** Removes and returns the earliest entry (undefined when empty). */
  pop(): T | undefined {
    const heap = this.items;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
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

  /** Rebuilds the heap from `entries` (the live ones, when stale entries have become most of it). */
  reset(entries: Iterable<T> = []): void {
    this.items = [];
    for (const entry of entries) this.push(entry);
  }

  /** The entries in heap order (for a rebuild that filters them). */
  entries(): readonly T[] {
    return this.items;
  }
}
