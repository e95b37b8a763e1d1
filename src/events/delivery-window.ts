/**
 * @module events/delivery-window
 * The events a sink has read past its cursor and not yet had acknowledged, sorted into lanes so several batches can
 * be in flight at once without a request's events overtaking each other: every event of one request goes to the same
 * lane (by a hash of the request id), and a lane has at most one batch in flight. A batch that fails stays at the
 * head of its lane and is sent again before anything behind it. The cursor may move only to {@link base}, the last id
 * below which everything was acknowledged, whatever order the lanes finish in. Pure bookkeeping: no I/O here.
 */

/** One event read for a sink: its id, its request, and its body (null: filtered out, acknowledged unsent). */
export interface Outgoing {
  id: number;
  requestId: string;
  /** The CloudEvent as JSON, built once (a retry sends the same bytes). */
  body: string | null;
}

/** A batch taken from a lane: hand it back with {@link DeliveryWindow.acknowledge} or {@link DeliveryWindow.release}. */
export interface Batch {
  lane: number;
  events: readonly Outgoing[];
}

/** FNV-1a over the request id: spreads requests over the lanes, the same lane every time. */
function laneOf(requestId: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < requestId.length; i++) hash = Math.imul(hash ^ requestId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

/** The read-ahead of one sink: lanes of queued events, and which ids are acknowledged. */
export class DeliveryWindow {
  /** Every event with an id up to this one is acknowledged (or filtered out): where the cursor may move. */
  base: number;
  /** The last id read into the window: the next read starts after it. */
  readTo: number;
  private readonly queues: Outgoing[][];
  private readonly busy: boolean[];
  /** Ids read and not acknowledged, ascending; `done` holds those acknowledged out of order. */
  private readonly open: number[] = [];
  private openStart = 0;
  private readonly done = new Set<number>();

  constructor(
    cursor: number,
    readonly lanes: number,
  ) {
    this.base = cursor;
    this.readTo = cursor;
    this.queues = Array.from({ length: lanes }, () => []);
    this.busy = new Array<boolean>(lanes).fill(false);
  }

  /** How many events were read and are not acknowledged yet. */
  get size(): number {
    return this.open.length - this.openStart;
  }

  /** Adds events read after {@link readTo}, in id order. */
  add(events: readonly Outgoing[]): void {
    for (const event of events) {
      this.readTo = event.id;
      this.open.push(event.id);
      if (event.body === null) this.done.add(event.id);
      else this.queues[laneOf(event.requestId, this.lanes)]!.push(event);
    }
    this.advance();
  }

  /** The next batch (up to `max` events, oldest first) of an idle lane with events queued, or null when none. */
  take(max: number): Batch | null {
    for (let lane = 0; lane < this.lanes; lane++) {
      const queue = this.queues[lane]!;
      if (this.busy[lane] || !queue.length) continue;
      this.busy[lane] = true;
      return { lane, events: queue.slice(0, max) };
    }
    return null;
  }

  /** The receiver took `batch`: its events leave the lane, and {@link base} moves past what is now contiguous. */
  acknowledge(batch: Batch): void {
    this.queues[batch.lane]!.splice(0, batch.events.length);
    this.busy[batch.lane] = false;
    for (const event of batch.events) this.done.add(event.id);
    this.advance();
  }

  /** `batch` failed: it stays at the head of its lane, to be taken again first. */
  release(batch: Batch): void {
    this.busy[batch.lane] = false;
  }

  private advance(): void {
    while (this.openStart < this.open.length && this.done.has(this.open[this.openStart]!)) {
      const id = this.open[this.openStart++]!;
      this.done.delete(id);
      this.base = id;
    }
    // Drop the consumed front now and then rather than shifting on every acknowledgement.
    if (this.openStart > 1024 && this.openStart * 2 > this.open.length) {
      this.open.splice(0, this.openStart);
      this.openStart = 0;
    }
  }
}
