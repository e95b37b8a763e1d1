/**
 * @module history/prune
 * `tollgate prune --before DATE`: deletes decided requests older than DATE, with their events, cards and grants, in
 * batches, keeping the audit chain verifiable.
 *
 * The chain runs through every integrated event in `seq` order (positions below are `seq`s), so only a *prefix* of it
 * can go: a batch walks the chain from where
 * it starts now (the newest checkpoint, or its first event), checking every link it will delete, and stops at the first
 * event of a request it may not delete (pending, decided on or after DATE, holding a live grant, or with an event on or
 * after DATE) or at the chain's newest event, which stays so new events keep extending the chain. A request whose
 * events straddle the cut is kept, and the cut moves before its first event. The batch then deletes that prefix and its
 * requests and writes a checkpoint (the last deleted event's id, hash and time, signed like an anchor) in one
 * transaction; `audit verify` starts from it. Batches are short transactions with a pause between them, so the
 * gateway's own writes go on meanwhile.
 *
 * @remarks Left out: pruning from the middle of the chain (a request kept near the start holds everything after it
 * until it can go too); the report says which request stopped the prune.
 */
import { GENESIS_HASH } from '../audit/encoding.js';
import { chainHash, leafOfColumns } from '../audit/leaf.js';
import type { ChainCheckpoint, ChainRow } from '../audit/types.js';

/** One transaction of a prune: holds the chain, so no event is inserted while it runs. */
export interface PruneTransaction {
  /** Integrated rows with `seq > afterId`, by seq (the rows `AuditChain.rows` answers). */
  chainRows(afterId: number, limit: number): Promise<ChainRow[]>;
  /** The newest integrated event's `seq`, or null when there are none. */
  headId(): Promise<number | null>;
  /** Of `ids`, the requests that may go: final, decided before `before`, and holding no grant still usable at `now`. */
  prunable(ids: readonly string[], before: Date, now: Date): Promise<Set<string>>;
  /** Each request's newest event `seq` (an event not yet integrated counts as after every other). */
  lastEventIds(ids: readonly string[]): Promise<Map<string, number>>;
  /**
   * Deletes events `afterId < seq <= throughId`, the receipts none of whose events is left, and the requests `ids`
   * with their cards, grants and verdict tokens; counts what went.
   */
  remove(ids: readonly string[], afterId: number, throughId: number): Promise<{ requests: number; events: number }>;
  /** Writes (or, for a later batch of the same run, moves) the run's checkpoint. Returns the row's id. */
  saveCheckpoint(
    checkpoint: ChainCheckpoint & { requests: number; events: number; createdAt: Date },
    runId: number | null,
  ): Promise<number>;
}

/** A database a prune works on (one per dialect: `requests/<dialect>/prune-store.ts`). */
export interface PruneStore {
  /** Whether any event has a place in the chain yet; a prune refuses to run before (nothing could go). */
  chained(): Promise<boolean>;
  /** The newest checkpoint, or null. */
  checkpoint(): Promise<ChainCheckpoint | null>;
  /** Runs `fn` in one transaction holding the chain; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: PruneTransaction) => Promise<T>): Promise<T>;
}

/** Why a prune refused: the chain could not be kept verifiable. Nothing of the refused batch was deleted. */
export class PruneRefusedError extends Error {
  readonly code = 'tollgate_prune_refused';
}

/** Options of {@link prune}. */
export interface PruneOptions {
  /** Requests decided before this instant go. */
  before: Date;
  /** Signs a checkpoint (the anchor format, `VerdictSigner.signAnchor`). */
  sign(claims: { event_id: number; hash: string; at: string }): Promise<string>;
  /** Requests per transaction (default 1,000). */
  batchSize?: number;
  /** Count what would go, delete nothing. */
  dryRun?: boolean;
  /** Pause between batches (default `setImmediate`): the gateway's writes run there. */
  pause?: () => Promise<void>;
  /** Asked after each pause: true ends the prune there (a gateway shutting down); the report covers what went. */
  shouldStop?: () => boolean;
  now?: Date;
}

/** What a prune did (or, dry, would do). */
export interface PruneReport {
  requests: number;
  events: number;
  batches: number;
  /** The last event deleted (the checkpoint), or null when nothing went. */
  checkpoint: { eventId: number; hash: string; at: string } | null;
  /** The chain's first event now (after the checkpoint), or null when the chain is empty. */
  chainStartsAt: number | null;
  /** Why the prune stopped before every old enough request was gone: the request in the way, or null. */
  stoppedAt: { requestId: string; eventId: number; reason: string } | null;
  dryRun: boolean;
}

const PAGE = 2000;

/** What one batch found: the prefix to cut and its requests. */
interface Cut {
  ids: string[];
  through: { id: number; hash: string; at: string } | null;
  events: number;
  stoppedAt: PruneReport['stoppedAt'];
  /** The chain's next event after the cut (walked), if any. */
  nextId: number | null;
}

/**
 * Finds the next cut after `start`: up to `batchSize` requests whose events are all in one prefix of the chain.
 * @throws PruneRefusedError when a link it would delete is broken (deleting it would hide the tampering).
 */
async function findCut(
  tx: PruneTransaction,
  start: { eventId: number; hash: string },
  before: Date,
  now: Date,
  batchSize: number,
): Promise<Cut> {
  const head = await tx.headId();
  const beforeIso = before.toISOString();
  const walked: { id: number; hash: string; at: string; requestId: string }[] = [];
  const firstEvent = new Map<string, number>();
  const verdicts = new Map<string, boolean>();
  let stoppedAt: Cut['stoppedAt'] = null;
  let prev = start.hash;
  let nextId: number | null = null;
  let afterId = start.eventId;
  walk: for (;;) {
    const rows = await tx.chainRows(afterId, PAGE);
    if (rows.length === 0) break;
    const unknown = [...new Set(rows.map((r) => r[6] as string))].filter((id) => !verdicts.has(id));
    const ok = unknown.length ? await tx.prunable(unknown, before, now) : new Set<string>();
    for (const id of unknown) verdicts.set(id, ok.has(id));
    for (const [id, , prevHash, hash, leaf, , ...columns] of rows) {
      const requestId = columns[0] as string;
      const at = columns[5] as string;
      nextId = id;
      if (id === head) {
        stoppedAt = {
          requestId,
          eventId: id,
          reason: 'it holds the chain’s newest event, which stays so new events extend the chain',
        };
        break walk;
      }
      if (!verdicts.get(requestId)) {
        stoppedAt = {
          requestId,
          eventId: id,
          reason: 'it is pending, decided on or after the cut-off, or holds a grant still in use',
        };
        break walk;
      }
      if (at >= beforeIso) {
        stoppedAt = { requestId, eventId: id, reason: `its event ${id} is from ${at}, on or after the cut-off` };
        break walk;
      }
      if (!firstEvent.has(requestId) && firstEvent.size >= batchSize) break walk;
      const content = leafOfColumns(columns);
      if (hash === null || prevHash !== prev || leaf !== content || chainHash(prev, content) !== hash) {
        throw new PruneRefusedError(
          `the audit chain is broken at event ${id}: run \`tollgate audit verify\`; prune deletes nothing that would hide it`,
        );
      }
      if (!firstEvent.has(requestId)) firstEvent.set(requestId, id);
      walked.push({ id, hash, at, requestId });
      prev = hash;
      nextId = null;
    }
    afterId = rows[rows.length - 1]![0];
  }
  // A request with events after the cut stays whole: move the cut before its first event, until none straddles it.
  let through = walked.length ? walked[walked.length - 1]!.id : start.eventId;
  const last = walked.length ? await tx.lastEventIds([...firstEvent.keys()]) : new Map<string, number>();
  for (let moved = true; moved;) {
    moved = false;
    for (const [requestId, first] of firstEvent) {
      if (first > through) continue;
      if ((last.get(requestId) ?? 0) > through) {
        through = first - 1;
        moved = true;
        if (!stoppedAt || stoppedAt.eventId > first)
          stoppedAt = {
            requestId,
            eventId: first,
            reason: `it has events after the cut (up to ${last.get(requestId)})`,
          };
      }
    }
  }
  const kept = walked.filter((w) => w.id <= through);
  const ids = [...firstEvent].filter(([, first]) => first <= through).map(([id]) => id);
  const end = kept[kept.length - 1];
  return {
    ids,
    through: end ? { id: end.id, hash: end.hash, at: end.at } : null,
    events: kept.length,
    stoppedAt,
    nextId: kept.length < walked.length ? walked[kept.length]!.id : nextId,
  };
}

/**
 * Prunes `store`: batch after batch until nothing older than `before` can go.
 * @throws PruneRefusedError when the chain is missing or broken, or the checkpoint no longer matches the chain.
 * @example const report = await prune(pruneStore, { before: new Date('2026-01-01'), sign: signer.signAnchor });
 */
export async function prune(store: PruneStore, options: PruneOptions): Promise<PruneReport> {
  if (!(await store.chained()))
    throw new PruneRefusedError(
      'this database has no integrated audit chain yet: start `tollgate serve` on it once (it signs the first checkpoint), then prune',
    );
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? 1000;
  const pause = options.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  const existing = await store.checkpoint();
  let start = existing ? { eventId: existing.eventId, hash: existing.hash } : { eventId: 0, hash: GENESIS_HASH };
  const report: PruneReport = {
    requests: 0,
    events: 0,
    batches: 0,
    checkpoint: null,
    chainStartsAt: null,
    stoppedAt: null,
    dryRun: options.dryRun ?? false,
  };
  let runId: number | null = null;
  const DRY = Symbol('dry run');
  for (;;) {
    let cut: Cut | undefined;
    try {
      await store.transaction(async (tx) => {
        cut = await findCut(tx, start, options.before, now, batchSize);
        if (!cut.through || options.dryRun) throw DRY;
        const { through } = cut;
        const signature = await options.sign({ event_id: through.id, hash: through.hash, at: through.at });
        const removed = await tx.remove(cut.ids, start.eventId, through.id);
        if (removed.events !== cut.events || removed.requests !== cut.ids.length) {
          throw new PruneRefusedError(
            `the chain changed while pruning (deleted ${removed.events} events and ${removed.requests} requests, expected ${cut.events} and ${cut.ids.length}); nothing of this batch was deleted`,
          );
        }
        runId = await tx.saveCheckpoint(
          {
            eventId: through.id,
            hash: through.hash,
            at: through.at,
            signature,
            prunedBefore: options.before.toISOString(),
            requests: report.requests + cut.ids.length,
            events: report.events + cut.events,
            createdAt: now,
          },
          runId,
        );
      });
    } catch (error) {
      if (error !== DRY) throw error;
    }
    if (!cut) break;
    report.stoppedAt = cut.stoppedAt;
    report.chainStartsAt = cut.nextId;
    if (!cut.through) break;
    report.requests += cut.ids.length;
    report.events += cut.events;
    report.batches++;
    report.checkpoint = { eventId: cut.through.id, hash: cut.through.hash, at: cut.through.at };
    start = { eventId: cut.through.id, hash: cut.through.hash };
    await pause();
    if (options.shouldStop?.()) break;
  }
  return report;
}
