/**
 * @module audit/types
 * The `AuditChain` contract: what the verifier reads of one database's chain. Each dialect answers with the rows'
 * stored text forms (SQLite's text; PostgreSQL's `detail::text` and ISO times), the forms the chain hashed.
 *
 * @remarks Left out: writing. The database chains rows itself, in a trigger, whoever inserts them.
 */

/** One event row as the chain sees it: `[id, prev_hash, hash, …the columns `eventHashOfColumns` takes]`. */
export type ChainRow = [
  id: number,
  prevHash: string | null,
  hash: string | null,
  ...columns: (string | number | null)[],
];

/** The newest event: what an anchor publishes. */
export interface ChainHead {
  eventId: number;
  hash: string;
  at: string;
}

/**
 * Where the chain starts after `tollgate prune` deleted its oldest events: the last deleted event's id, hash and time,
 * and a JWS over the three (the anchor format) by the verdict-signing key.
 */
export interface ChainCheckpoint {
  eventId: number;
  hash: string;
  at: string;
  signature: string;
  /** The `--before` cut-off of the prune that wrote it (ISO-8601). */
  prunedBefore: string;
}

/**
 * Where the chain began to cover every column of a request (migration `chain_coverage`, docs/audit.md): events up to
 * `eventId` were written before, and requests filed up to `at` may predate their `created` event's digest.
 */
export interface CoverageMark {
  eventId: number;
  at: Date;
}

/** Reads one database's audit chain. */
export interface AuditChain {
  /** Up to `limit` rows with `id > afterId`, by id. */
  rows(afterId: number, limit: number): Promise<ChainRow[]>;
  /** The last event before `at` (where `audit verify --from` starts), or null when there is none. */
  lastBefore(at: Date): Promise<{ id: number; hash: string | null } | null>;
  /** The newest chained event, or null when there are no events. */
  head(): Promise<ChainHead | null>;
  /** Up to which event rows were chained after the fact when the chain was added (`chain_started`), and when. */
  started(): Promise<{ eventId: number; at: Date } | null>;
  /** The `coverage_started` mark; null only when someone deleted it, and then every event is held to full coverage. */
  coverage(): Promise<CoverageMark | null>;
  /** The newest prune checkpoint (the chain starts right after it), or null when nothing was ever pruned. */
  checkpoint(): Promise<ChainCheckpoint | null>;
}
