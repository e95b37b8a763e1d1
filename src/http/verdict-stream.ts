/**
 * @module http/verdict-stream
 * `POST /v1/requests/verdicts`: one server-sent event stream carrying the verdicts of many requests, so a caller
 * waiting for a thousand requests holds one connection instead of a thousand long-polls. Each listed request's final
 * row is sent once (`event: verdict`), at once for those already final; the stream ends when all are sent.
 *
 * What a stream costs does not grow with a subscription per id: the gateway's streams share one observer and one
 * change-feed subscription (`verdict-index.ts`, which hands a change to its stream by one map lookup from the id);
 * each stream holds one deadline timer (at the earliest deadline still pending) and one heartbeat, plus its ids and
 * their deadlines in flat arrays. A change committed in this process hands the stream the final row itself; a change
 * heard over the feed (another replica's) is read back. At a deadline the stream reads the row, which expires it (the deadline
 * belongs to the row, see `gateway/reads.ts`) even when the timer that should have is late or gone.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { ClockTimer } from '../utils/clock.js';
import { NotFoundError } from '../api/errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { toApiRequest } from '../requests/serialize.js';
import type { ConfirmationRequest } from '../requests/types.js';
import type { Principal } from '../tokens/scopes.js';
import { parseInput } from '../api/validation.js';
import { VerdictIndex, type VerdictListener } from './verdict-index.js';

/** The most ids one stream takes: 5,000 ids fit well inside the 256 KB body limit. */
export const MAX_VERDICT_IDS = 5000;

/** `POST /v1/requests/verdicts` body: the request ids to stream the verdicts of. */
export const verdictsSchema = z.strictObject({
  ids: z
    .array(z.string().regex(/^[0-9a-f-]{36}$/i, 'expected a request id (UUID)'))
    .min(1)
    .max(MAX_VERDICT_IDS),
});

/**
 * Ids read in one `getMany` when a stream opens: one query instead of one each. Small, because 100 streams opening
 * together each hold a batch of whole rows across their awaits: at 1,000 that was 100,000 rows at once (the gateway's
 * RSS rose 91 MB over the open, against 26 MB reading one id at a time).
 */
const READ_BATCH = 100;

/** How soon the stream looks again at a row this clock calls overdue that the database's clock left pending. */
const OVERDUE_RECHECK_MS = 250;

/** Checks that the caller may read a request; throws the same 404 a single read would (see `requests-routes.ts`). */
export type ReadCheck = (request: ConfirmationRequest, principal: Principal) => ConfirmationRequest;

/**
 * Answers `POST /v1/requests/verdicts`: validates the body, reads every listed request (refusing the whole call, before
 * anything is streamed, with the 404 of the first id the token may not read), then streams verdicts until all are sent
 * or the client leaves.
 */
export async function streamVerdicts(
  gateway: Gateway,
  principal: Principal,
  rawBody: unknown,
  check: ReadCheck,
  res: ServerResponse,
): Promise<void> {
  const { ids } = parseInput(verdictsSchema, rawBody ?? {}, 'body');
  const stream = new VerdictStream(gateway, res, ids);
  // The response closes when the client goes away (a POST's request may close as soon as its body is read).
  res.once('close', () => stream.finish());
  await stream.start((row) => check(row, principal));
}

/**
 * One open verdict stream. Per awaited id it holds the id's entry in the gateway's {@link VerdictIndex} (which is
 * how it learns the id changed, and whether its verdict is still owed), a slot in `ids` and, while pending, its
 * deadline in `deadlines`: no row, closure, timer or set of its own per id.
 */
class VerdictStream implements VerdictListener {
  private readonly index: VerdictIndex;
  /** Every listed id, once: before the first reads in the order listed, after them the pending ones by deadline first. */
  private ids: string[];
  /** The deadline of `ids[i]` for each pending one (epoch ms), earliest first; `next` is the first not yet looked at. */
  private deadlines = new Float64Array(0);
  private next = 0;
  /** How many verdicts are still to be sent. */
  private left = 0;
  /** Before the stream opens: ids that changed while the first reads ran, read again once it is open. */
  private early: Set<string> | null = new Set();
  private timer: ClockTimer | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private closed = false;
  /** Whether writes are held until the end of this tick (see `send`). */
  private corked = false;

  constructor(
    private readonly gateway: Gateway,
    private readonly res: ServerResponse,
    listed: readonly string[],
  ) {
    this.index = VerdictIndex.of(gateway);
    this.index.open();
    // Registered before the first reads, so a change between a read and the stream opening is not missed.
    this.ids = [];
    for (const raw of listed) {
      const id = raw.toLowerCase();
      if (this.index.add(id, this)) this.ids.push(id);
    }
    this.left = this.ids.length;
  }

  /** Reads every id (throwing on the first the caller may not read), opens the stream and sends what is final. */
  async start(readable: (row: ConfirmationRequest) => ConfirmationRequest): Promise<void> {
    const finals: string[] = [];
    const pending: string[] = [];
    const at: number[] = [];
    try {
      for (let from = 0; from < this.ids.length; from += READ_BATCH) {
        if (this.closed) return;
        const batch = this.ids.slice(from, from + READ_BATCH);
        const rows = new Map((await this.gateway.getMany(batch)).map((row) => [row.id, row]));
        for (const id of batch) {
          const found = rows.get(id);
          if (!found) throw new NotFoundError(`no request with id ${id}`);
          const row = readable(found);
          if (row.status !== 'pending') finals.push(id);
          else {
            pending.push(id);
            at.push(row.expiresAt.getTime());
          }
        }
      }
    } catch (error) {
      this.finish();
      throw error;
    }
    if (this.closed) return;
    const order = pending.map((_, i) => i).sort((a, b) => at[a]! - at[b]!);
    this.ids = [...order.map((i) => pending[i]!), ...finals];
    this.deadlines = Float64Array.from(order, (i) => at[i]!);
    this.res.statusCode = 200;
    this.res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('cache-control', 'no-cache, no-transform');
    this.res.setHeader('x-accel-buffering', 'no');
    this.res.flushHeaders();
    this.heartbeat = setInterval(() => this.res.write(': keep-alive\n\n'), 15_000);
    this.heartbeat.unref();
    const changed = [...finals, ...this.early!];
    this.early = null;
    this.arm(0);
    // Final rows are read again rather than held from the first pass: 5,000 rows stay out of memory meanwhile.
    for (const id of changed) if (!this.closed) await this.read(id);
    if (this.left === 0) this.finish();
  }

  /** Ends the stream and lets go of everything it holds (idempotent). */
  finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of this.ids) this.index.delete(id, this);
    this.index.close();
    this.timer?.cancel();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.ids = [];
    this.deadlines = new Float64Array(0);
    // Node 24 drops what is still corked when the response ends: the verdicts of this tick leave first.
    this.uncork();
    // Before the stream opened, the answer is the route's (a problem+json for a refused id): leave it to the route.
    if (this.early === null && !this.res.writableEnded) this.res.end();
  }

  /** Lets the writes held since `send` corked the response go (once per cork). */
  private uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    this.res.uncork();
  }

  /** A listed request left `pending`: send its row (given, or read back), or note it while the first reads run. */
  changed(id: string, row?: ConfirmationRequest): void {
    if (this.early) this.early.add(id);
    else if (row) this.send(row);
    else void this.read(id);
  }

  private async read(id: string): Promise<void> {
    try {
      const row = await this.gateway.get(id);
      if (row && row.status !== 'pending') this.send(row);
    } catch {
      // A failed read ends the stream: the client reconnects with the ids it has no verdict for.
      this.finish();
    }
  }

  private send(row: ConfirmationRequest): void {
    if (this.closed || !this.index.delete(row.id, this)) return;
    this.left--;
    // Verdicts sent in one tick leave in one write: the finals sent on opening (up to 5,000, read without waiting on
    // I/O) or a group commit's decisions are one syscall, not one each. The tick ends before any I/O: no delay.
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      process.nextTick(() => this.uncork());
    }
    this.res.write(`event: verdict\ndata: ${JSON.stringify(toApiRequest(row))}\n\n`);
    if (this.left === 0) this.finish();
  }

  /** Arms the one timer at the earliest deadline still pending (no sooner than `minMs`). */
  private arm(minMs: number): void {
    this.timer?.cancel();
    this.timer = null;
    while (this.next < this.deadlines.length && !this.index.holds(this.ids[this.next]!, this)) this.next++;
    if (this.next >= this.deadlines.length || this.closed) return;
    this.timer = this.gateway.clock.setTimeout(
      () => void this.atDeadline(),
      Math.max(this.deadlines[this.next]! - this.gateway.now(), minMs),
    );
  }

  /** Reads every request whose deadline has come (the read expires it), then arms for the next deadline. */
  private async atDeadline(): Promise<void> {
    const now = this.gateway.now();
    const due: string[] = [];
    const from = this.next;
    while (this.next < this.deadlines.length && this.deadlines[this.next]! <= now) due.push(this.ids[this.next++]!);
    // The next deadline is armed before the reads, so a clock that moves on meanwhile still finds it.
    this.arm(0);
    await Promise.all(due.filter((id) => this.index.holds(id, this)).map((id) => this.read(id)));
    if (this.closed || !due.some((id) => this.index.holds(id, this))) return;
    // Still pending past its deadline by this clock: the database's clock (PostgreSQL) is behind; look again shortly.
    this.next = from;
    this.arm(OVERDUE_RECHECK_MS);
  }
}
