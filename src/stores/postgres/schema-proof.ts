/**
 * @module stores/postgres/schema-proof
 * The audit chain's tables on PostgreSQL besides its events, as on SQLite (`../sqlite/schema-proof.ts`): the fifth
 * stage's proof (docs/audit.md, "The proof") — batch receipts signed by the writer, the integrator's one-row head,
 * signed checkpoints, and verdict tokens minted when a request settled — and the chain's marks and prune checkpoints
 * from before it. Times that a signature covers are kept as the text signed (`at`), not as `timestamptz`, so they
 * read back byte for byte. Re-exported by `schema.ts`, so `drizzle-kit generate` sees them.
 */
import { bigint, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from './schema-columns.js';

/** One row per write transaction that added events: the leaves it added, signed by the process that committed it. */
export const auditReceipts = pgTable('audit_receipts', {
  id: text('id').primaryKey(),
  kid: text('kid').notNull(),
  at: text('at').notNull(),
  /** The leaves, comma-separated, in the order the transaction inserted them. */
  leaves: text('leaves').notNull(),
  signature: text('signature').notNull(),
});

/** The integrator's head: one row (id 1), locked (`FOR UPDATE SKIP LOCKED`) while a batch is integrated. */
export const chainHead = pgTable('chain_head', {
  id: integer('id').primaryKey(),
  /** Events integrated: the `seq` of the newest. */
  size: bigint('size', { mode: 'number' }).notNull(),
  /** The chain hash at `size`. */
  hash: text('hash').notNull(),
  /** The newest checkpoint's number (0: none yet), and its time (ISO-8601, as signed). */
  checkpoint: integer('checkpoint').notNull(),
  checkpointAt: text('checkpoint_at'),
  checkpointSize: bigint('checkpoint_size', { mode: 'number' }).notNull(),
  /**
   * The newest event id written before the fifth stage, set by the upgrade's migration: those events are integrated
   * first, under a signed `legacy` checkpoint (n = 1). Read only until the first checkpoint exists.
   */
  legacy: bigint('legacy', { mode: 'number' }),
});

/** Signed checkpoints `{n, size, head, at, kind}` (`audit/leaf.ts`). */
export const chainCheckpoints = pgTable('chain_checkpoints', {
  n: integer('n').primaryKey(),
  size: bigint('size', { mode: 'number' }).notNull(),
  head: text('head').notNull(),
  at: text('at').notNull(),
  kind: text('kind').notNull(),
  kid: text('kid').notNull(),
  signature: text('signature').notNull(),
});

/** The verdict token minted in the transaction that settled each request, returned as stored. */
export const verdictTokens = pgTable('verdict_tokens', {
  requestId: text('request_id').primaryKey(),
  token: text('token').notNull(),
});

/**
 * Marks on the audit chain (docs/audit.md): `chain_started` records the last event that existed when the chain was
 * added to this database (those rows were chained then, in id order, so nothing proves what happened to them before).
 */
export const auditMarks = pgTable('audit_marks', {
  name: text('name').primaryKey(),
  eventId: bigint('event_id', { mode: 'number' }),
  at: at('at').notNull(),
});

/** Where the audit chain starts after `tollgate prune` (see `../sqlite/schema-proof.ts`). `at` is the chain's text form of the time. */
export const auditCheckpoints = pgTable('audit_checkpoints', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  eventId: bigint('event_id', { mode: 'number' }).notNull(),
  hash: text('hash').notNull(),
  at: text('at').notNull(),
  signature: text('signature').notNull(),
  prunedBefore: at('pruned_before').notNull(),
  requests: integer('requests').notNull(),
  events: integer('events').notNull(),
  createdAt: at('created_at').notNull(),
});
