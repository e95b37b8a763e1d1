/**
 * @module events/stream
 * The event stream: its webhook sinks, woken when this process's audit integrator places events, shortly after
 * committed changes (in any replica, through the change feed) and once a second for retries, and the pull API's pages
 * (`GET /v1/events?after=<id>`) over the same events.
 */
import { STREAMED, toCloudEvent } from './cloud.js';
import { EventSink, type SinkDeps, type SinkState } from './sink.js';
import type { SinkConfig } from './config.js';

/** A `/readyz` check (the shape `http/app` takes; declared here so this floor does not import the HTTP one). */
type ReadinessCheck = () => Promise<{ ready: boolean; detail?: string }>;

/** An audit anchor as `AuditService.head()` publishes it. */
type AnchorHead = { event_id: number; hash: string; at: string; signature: string | null };

/**
 * How long after a committed change the sinks look for its events, once for every change in that time. A change is
 * not readable by the sinks when it commits: its events wait for their place (`seq`), which an integrator gives them
 * within its interval (100 ms). The placements of this process wake the sinks themselves; this wake is for those made
 * by another replica's integrator. Waking on every change instead started a drain (the head, the cursor, the events
 * after it, the away changes) whenever the sink was idle, to find nothing placed: under the bench's sustained load,
 * 458 sink queries per 1,000 events against 128 now (docs/performance-log.md, fifth stage, third session).
 */
export const CHANGE_WAKE_MS = 100;

/** What wakes the sinks (`start`); each returns its unsubscribe function. */
export interface StreamWakes {
  /** Events were placed in this process: the sinks read them at once. */
  placed(listener: () => void): () => void;
  /** A change committed in some process: the sinks look {@link CHANGE_WAKE_MS} later. */
  changes(listener: () => void): () => void;
}

/** One page of the stream. */
export interface EventPage {
  items: ReturnType<typeof toCloudEvent>[];
  /** Pass as `after` for the next page; equal to the `after` asked when nothing is newer. */
  next_after: number;
}

/** The sinks and the pull API over one database's events. */
export class EventStream {
  private readonly sinks: EventSink[];
  private timer: NodeJS.Timeout | null = null;
  private anchorTimer: NodeJS.Timeout | null = null;
  private changeTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    sinks: readonly SinkConfig[],
    private readonly deps: SinkDeps,
  ) {
    this.sinks = sinks.map((config) => new EventSink(config, deps));
  }

  /**
   * Starts delivering: on each of `wakes`, and every `everyMs` (retries, backoff). With `anchors`, the audit chain's
   * signed head is also sent to the sinks every `anchors.everyMs` (when it moved).
   */
  start(wakes: StreamWakes, everyMs = 1000, anchors?: { head(): Promise<AnchorHead | null>; everyMs: number }): void {
    if (!this.sinks.length) return;
    const kick = () => {
      for (const sink of this.sinks) void sink.kick();
    };
    const offPlaced = wakes.placed(kick);
    const offChanges = wakes.changes(() => {
      if (this.changeTimer) return;
      this.changeTimer = setTimeout(() => {
        this.changeTimer = null;
        kick();
      }, CHANGE_WAKE_MS);
      this.changeTimer.unref();
    });
    this.unsubscribe = () => {
      offPlaced();
      offChanges();
    };
    this.timer = setInterval(kick, everyMs);
    this.timer.unref();
    kick();
    if (anchors) {
      this.anchorTimer = setInterval(() => void this.publishHead(anchors.head), anchors.everyMs);
      this.anchorTimer.unref();
    }
  }

  /** Sends the current audit head to every sink that takes it, after the events it covers. */
  async publishHead(head: () => Promise<AnchorHead | null>): Promise<void> {
    await this.flush().catch(() => undefined);
    const anchor = await head().catch(() => null);
    if (anchor) await Promise.all(this.sinks.map((s) => s.anchor(anchor)));
  }

  /** Stops waking the sinks and waits for deliveries under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.anchorTimer) clearInterval(this.anchorTimer);
    if (this.changeTimer) clearTimeout(this.changeTimer);
    this.changeTimer = null;
    this.unsubscribe?.();
    this.timer = null;
    await Promise.all(this.sinks.map((s) => s.kick().catch(() => undefined)));
  }

  /** Delivers what waits now (tests, and a final flush). */
  async flush(): Promise<void> {
    await this.deps.place?.();
    await Promise.all(this.sinks.map((s) => s.kick()));
  }

  states(): SinkState[] {
    return this.sinks.map((s) => ({ ...s.state }));
  }

  /** One `/readyz` check per sink: always ready (the gateway serves without them), its state in the detail. */
  readiness(): Record<string, ReadinessCheck> {
    return Object.fromEntries(
      this.sinks.map((s) => [
        `events ${s.state.name}`,
        async () => ({
          ready: true,
          detail: s.state.lastError
            ? `failing (${s.state.lastError}); ${s.state.backlog} events behind`
            : `delivering; ${s.state.delivered} delivered`,
        }),
      ]),
    );
  }

  /** Events after `after`, oldest first, as CloudEvents. */
  async page(after: number, limit: number): Promise<EventPage> {
    await this.deps.place?.();
    const events = await this.deps.log.after(after, limit, STREAMED);
    const requests = new Map(
      (await this.deps.requests([...new Set(events.map((e) => e.requestId))])).map((r) => [r.id, r]),
    );
    return {
      items: events.map((e) => toCloudEvent(e, requests.get(e.requestId) ?? null, this.deps.source)),
      next_after: events.at(-1)?.position ?? after,
    };
  }
}
