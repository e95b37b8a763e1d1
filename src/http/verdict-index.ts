/**
 * @module http/verdict-index
 * Which open verdict stream (`verdict-stream.ts`) waits for which request id, for every stream of one gateway.
 *
 * 100,000 awaited ids over 100 streams cost one map entry each (the id, pointing at its stream), and a change costs
 * one lookup: the gateway has one observer and one change-feed subscription for all the streams together, not one
 * per stream, so a decision no longer calls every open stream to ask whether the id is one of its own. The index
 * listens only while a stream is open, so a gateway with none pays nothing.
 */
import type { Gateway } from '../gateway/gateway.js';
import type { ConfirmationRequest } from '../requests/types.js';

/** A stream as the index sees it: told when one of its ids leaves `pending`. */
export interface VerdictListener {
  /** `row` is the final row when the change was committed in this process; without it, read the row back. */
  changed(id: string, row?: ConfirmationRequest): void;
}

/** One gateway's index; its streams share it through {@link VerdictIndex.of}. */
export class VerdictIndex {
  private static readonly byGateway = new WeakMap<Gateway, VerdictIndex>();

  /** The listener of each awaited id, or a list of them when several streams await the same id (rare). */
  private readonly byId = new Map<string, VerdictListener | VerdictListener[]>();
  private streams = 0;
  private unobserve: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;

  private constructor(private readonly gateway: Gateway) {}

  /** The index of `gateway`'s streams (made on first use). */
  static of(gateway: Gateway): VerdictIndex {
    let index = VerdictIndex.byGateway.get(gateway);
    if (!index) VerdictIndex.byGateway.set(gateway, (index = new VerdictIndex(gateway)));
    return index;
  }

  /** A stream opens: the first one starts listening to the gateway. Pair with {@link close}. */
  open(): void {
    if (this.streams++ > 0) return;
    this.unobserve = this.gateway.observe((row) => {
      if (row.status !== 'pending') this.dispatch(row.id, row);
    });
    this.unsubscribe = this.gateway.subscribe((change) => {
      if (change.status !== 'pending') this.dispatch(change.requestId);
    });
  }

  /** A stream closed (after removing its ids): the last one stops listening. */
  close(): void {
    if (--this.streams > 0) return;
    this.unobserve?.();
    this.unsubscribe?.();
    this.unobserve = this.unsubscribe = null;
  }

  /** Registers `listener` for `id`; false when it already was (an id listed twice). */
  add(id: string, listener: VerdictListener): boolean {
    const found = this.byId.get(id);
    if (found === undefined) this.byId.set(id, listener);
    else if (found === listener || (Array.isArray(found) && found.includes(listener))) return false;
    else this.byId.set(id, Array.isArray(found) ? [...found, listener] : [found, listener]);
    return true;
  }

  /** Whether `listener` still awaits `id`. */
  holds(id: string, listener: VerdictListener): boolean {
    const found = this.byId.get(id);
    return found === listener || (Array.isArray(found) && found.includes(listener));
  }

  /** Removes `listener` from `id`; false when it was not registered (its verdict was sent already). */
  delete(id: string, listener: VerdictListener): boolean {
    const found = this.byId.get(id);
    if (found === listener) return this.byId.delete(id);
    if (!Array.isArray(found) || !found.includes(listener)) return false;
    const rest = found.filter((l) => l !== listener);
    this.byId.set(id, rest.length === 1 ? rest[0]! : rest);
    return true;
  }

  /** How many ids are awaited (for tests). */
  get size(): number {
    return this.byId.size;
  }

  private dispatch(id: string, row?: ConfirmationRequest): void {
    const found = this.byId.get(id);
    if (found === undefined) return;
    // A copy: a listener sending its verdict removes itself from the list while it is walked.
    if (Array.isArray(found)) for (const listener of [...found]) listener.changed(id, row);
    else found.changed(id, row);
  }
}
