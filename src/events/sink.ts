/**
 * @module events/sink
 * Delivers the event stream to one webhook sink: events after the sink's cursor, in id order, each POSTed as a
 * structured CloudEvent signed with `tollgate-signature: t=<unix>,v1=<hex hmac-sha256("<t>.<body>")>`; the cursor moves
 * only past what the sink answered 2xx to (at least once). A sink that fails is retried with backoff (1 s doubling to
 * 60 s) and its backlog kept — up to `max_backlog` events, past which the oldest are skipped and counted. Changes of
 * someone's away status (`people_away`, not a request's events) follow with a cursor of their own, the same way.
 */
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { assertCallbackTarget } from '../utils/callback-target.js';
import { describeError } from '../api/errors.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { AWAY_CHANGED_TYPE, awayCloudEvent, STREAMED, toCloudEvent } from './cloud.js';
import type { AwayStore } from '../people/away-book.js';
import { toolAdmitted, type SinkConfig } from './config.js';
import type { EventLog } from './types.js';

/** What `/readyz` and `/metrics` show of a sink. */
export interface SinkState {
  name: string;
  delivered: number;
  failures: number;
  skipped: number;
  backlog: number;
  lastError: string | null;
}

/** What a sink reads besides the log: the request of an event (its tool, and the `data.request`). */
export interface SinkDeps {
  log: EventLog;
  request(id: string): Promise<ConfirmationRequest | null>;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** CloudEvents `source` (the public URL, else `tollgate`). */
  source: string;
  callbackAllow: readonly string[];
  now(): number;
  /** Changes of away status, sent as `dev.tollgate.person.away_changed` (absent: none). */
  away?: Pick<AwayStore, 'after' | 'head'>;
}

const BATCH = 100;

/** The CloudEvents type of a published audit head. */
export const ANCHOR_TYPE = 'dev.tollgate.audit.head';

/** Computes the signature header for `body` at `unixSeconds`. */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

/** One sink's delivery loop. */
export class EventSink {
  readonly state: SinkState;
  private backoffMs = 0;
  private retryAt = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private anchored = -1;

  constructor(
    private readonly config: SinkConfig,
    private readonly deps: SinkDeps,
  ) {
    this.state = { name: config.name, delivered: 0, failures: 0, skipped: 0, backlog: 0, lastError: null };
  }

  /** The cursor's name in `audit_marks`. */
  get mark(): string {
    return `sink:${this.config.url}`;
  }

  /** Delivers what is waiting (one run at a time; a kick during a run runs once more after it). */
  kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        if (this.deps.now() < this.retryAt) return;
        await this.deps.log.exclusive(this.mark, () => this.drain()).catch((error: unknown) => this.failed(error));
      } while (this.again);
    })().finally(() => (this.running = null));
    return this.running;
  }

  private async drain(): Promise<void> {
    const { log } = this.deps;
    const head = await log.head();
    // A new sink starts at the present: it is sent what happens from now on (GET /v1/events pages the past).
    let cursor = (await log.cursor(this.mark)) ?? (await log.advance(this.mark, head), head);
    if (head - cursor > this.config.maxBacklog) {
      const skipTo = head - this.config.maxBacklog;
      this.state.skipped += skipTo - cursor;
      this.deps.logger.warn({ sink: this.config.name, skipped: skipTo - cursor }, 'events: sink backlog over max_backlog; the oldest events were skipped');
      await log.advance(this.mark, skipTo);
      cursor = skipTo;
    }
    for (;;) {
      const events = await log.after(cursor, BATCH, STREAMED);
      this.state.backlog = Math.max(0, head - cursor);
      if (!events.length) break;
      await assertCallbackTarget(this.config.url, this.deps.callbackAllow);
      let acknowledged = cursor;
      try {
        for (const event of events) {
          const request = await this.deps.request(event.requestId);
          const cloud = toCloudEvent(event, request, this.deps.source);
          if ((!this.config.types || this.config.types.has(cloud.type)) && toolAdmitted(this.config.tools, request?.toolName ?? '')) await this.post(cloud);
          acknowledged = event.id;
        }
      } finally {
        // One cursor write per batch (and where a delivery failed), not one per event: each is a durable commit, and
        // per event they held a busy gateway's sink to a few events a second. A crash inside a batch repeats at most
        // that batch, which at-least-once allows (consumers deduplicate on the id).
        if (acknowledged > cursor) {
          cursor = acknowledged;
          await log.advance(this.mark, cursor);
        }
      }
    }
    await this.drainAway();
    this.state.backlog = 0;
    this.backoffMs = 0;
    this.state.lastError = null;
  }

  /**
   * Sends the changes of away status after the sink's own cursor on them (`people:<url>`), starting at the present
   * for a new sink. A sink filtering by tool gets none: they concern no tool.
   */
  private async drainAway(): Promise<void> {
    const { log, away } = this.deps;
    if (!away || this.config.tools || (this.config.types && !this.config.types.has(AWAY_CHANGED_TYPE))) return;
    const mark = `people:${this.config.url}`;
    let cursor = await log.cursor(mark);
    if (cursor === null) {
      cursor = await away.head();
      await log.advance(mark, cursor);
    }
    for (;;) {
      const changes = await away.after(cursor, BATCH);
      if (!changes.length) return;
      await assertCallbackTarget(this.config.url, this.deps.callbackAllow);
      for (const change of changes) {
        await this.post(awayCloudEvent(change, this.deps.source));
        cursor = change.id!;
        await log.advance(mark, cursor);
      }
    }
  }

  private async post(cloud: { id: string; type: string }): Promise<void> {
    const body = JSON.stringify(cloud);
    const res = await fetch(this.config.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/cloudevents+json; charset=utf-8',
        'tollgate-signature': signatureHeader(this.config.secret, Math.floor(this.deps.now() / 1000), body),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status < 200 || res.status > 299) throw new Error(`${this.config.url} answered ${res.status}`);
    this.state.delivered++;
  }

  /**
   * Posts the audit chain's signed head (`dev.tollgate.audit.head`), if the sink takes that type and the head moved
   * since the last one it got: an anchor kept where the database's writers cannot reach. Best effort, never retried
   * (the next one follows); only the replica delivering the sink sends it.
   */
  async anchor(head: { event_id: number; hash: string; at: string; signature: string | null }): Promise<void> {
    if ((this.config.types && !this.config.types.has(ANCHOR_TYPE)) || head.event_id === this.anchored) return;
    const cloud = { specversion: '1.0', id: `head_${head.event_id}`, source: this.deps.source, type: ANCHOR_TYPE, subject: String(head.event_id), time: head.at, datacontenttype: 'application/json', data: head };
    await this.deps.log
      .exclusive(this.mark, async () => {
        await assertCallbackTarget(this.config.url, this.deps.callbackAllow);
        await this.post(cloud);
        this.anchored = head.event_id;
      })
      .catch((error: unknown) => this.deps.logger.warn({ sink: this.config.name, err: describeError(error) }, 'events: the audit head was not delivered; the next one follows'));
  }

  private failed(error: unknown): void {
    this.state.failures++;
    this.state.lastError = describeError(error);
    this.backoffMs = Math.min(60_000, this.backoffMs ? this.backoffMs * 2 : 1000);
    this.retryAt = this.deps.now() + this.backoffMs;
    this.deps.logger.warn({ sink: this.config.name, err: this.state.lastError, retryInMs: this.backoffMs }, 'events: delivery failed; the backlog is kept and retried');
  }
}
