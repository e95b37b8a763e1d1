/**
 * @module audit/types
 * The `AuditChain` contract: what the verifier reads of one database's audit trail (docs/audit.md, "The proof").
 * Each dialect answers with the rows' stored text forms (SQLite's text; PostgreSQL's `detail::text` and ISO times),
 * the forms the leaves were computed from.
 *
 * @remarks Left out: writing. Writers witness (`witness.ts`), the integrator orders (`integrator.ts`).
 */
import type { Receipt, SignedCheckpoint } from './witness.js';
import type { GrantAudit } from './witnessed-grants.js';
import type { SignedRowAudit } from './witnessed-rows.js';

/**
 * One integrated event: `[seq, id, prev_hash, hash, leaf, receipt_id, request_id, type, actor, channel, detail, at,
 * …for a created event its request's nine fields (`leaf.ts`)]`.
 */
export type ChainRow = [
  seq: number,
  id: number,
  prevHash: string | null,
  hash: string | null,
  leaf: string | null,
  receiptId: string | null,
  ...columns: (string | number | null)[],
];

/** The newest integrated event: what an anchor publishes (`eventId` is its `seq`, its place in the one order). */
export interface ChainHead {
  eventId: number;
  hash: string;
  at: string;
}

/**
 * Where the chain starts after `tollgate prune` deleted its oldest events: the last deleted event's place (`eventId`
 * is its `seq`), hash and time, and a JWS over the three (the anchor format) by the signing key.
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
 * Where the chain began to cover every column of a request: events up to `eventId` were written before, and requests
 * filed up to `at` may predate their `created` event's digest. Since the fifth stage it is derived from the signed
 * `legacy` checkpoint, never read from an unsigned mark.
 */
export interface CoverageMark {
  eventId: number;
  at: Date;
}

/** Reads one database's audit trail. */
export interface AuditChain {
  /** Up to `limit` integrated events with `seq > afterSeq`, by seq. */
  rows(afterSeq: number, limit: number): Promise<ChainRow[]>;
  /** The receipts of these ids (those that exist). */
  receipts(ids: readonly string[]): Promise<Receipt[]>;
  /** How many receipts there are. */
  receiptCount(): Promise<number>;
  /** Receipt ids after `afterId` (in id order), up to `limit`: to name the receipts no event points to. */
  receiptIds(afterId: string, limit: number): Promise<string[]>;
  /** Whether a pending event (not integrated yet) names receipt `id`. */
  awaitsIntegration(id: string): Promise<boolean>;
  /** Signed checkpoints with `n > afterN`, by n, up to `limit`. */
  checkpoints(afterN: number, limit: number): Promise<SignedCheckpoint[]>;
  /** The newest event id with `seq` at or below `size` (where the legacy part ends). */
  lastIdUpTo(size: number): Promise<number | null>;
  /** Events not yet integrated, and the oldest one's `at`. */
  pending(): Promise<{ events: number; oldestAt: string | null }>;
  /** The last integrated event before `at` (where `audit verify --since` starts), or null when there is none. */
  lastBefore(at: Date): Promise<{ seq: number; hash: string } | null>;
  /** The newest integrated event, or null when there are none. */
  head(): Promise<ChainHead | null>;
  /** The newest prune checkpoint (the chain starts right after it), or null when nothing was ever pruned. */
  checkpoint(): Promise<ChainCheckpoint | null>;
  /** Grant rows with `id > afterId`, by id, up to `limit`, each with the events naming it (`witnessed-grants.ts`). */
  grants(afterId: string, limit: number): Promise<GrantAudit[]>;
  /**
   * Away rows (`people_away`, ids after the number `afterId`) or token rows (`api_tokens`, ids after the text
   * `afterId`), by id, up to `limit`, each with the bytes its signature must cover (`witnessed-rows.ts`).
   */
  signedRows(kind: SignedRowAudit['kind'], afterId: string, limit: number): Promise<SignedRowAudit[]>;
}
