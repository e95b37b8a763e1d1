/**
 * @module stores/sqlite/schema-proof
 * The audit chain's tables on SQLite besides its events: the fifth stage's proof (docs/audit.md, "The proof") —
 * batch receipts signed by the writer, the integrator's one-row head, signed checkpoints, and verdict tokens minted
 * when a request settled — and the chain's marks and prune checkpoints from before it. Re-exported by `schema.ts`, so
 * `drizzle-kit generate` sees them.
 */
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** One row per write transaction that added events: the leaves it added, signed by the process that committed it. */
export const auditReceipts = sqliteTable('audit_receipts', {
  id: text('id').primaryKey(),
  kid: text('kid').notNull(),
  at: text('at').notNull(),
  /** The leaves, comma-separated, in the order the transaction inserted them. */
  leaves: text('leaves').notNull(),
  signature: text('signature').notNull(),
});

/** The integrator's head: one row (id 1), locked while a batch is integrated. */
export const chainHead = sqliteTable('chain_head', {
  id: integer('id').primaryKey(),
  /** Events integrated: the `seq` of the newest. */
  size: integer('size').notNull(),
  /** The chain hash at `size`. */
  hash: text('hash').notNull(),
  /** The newest checkpoint's number (0: none yet), and its time (ISO-8601). */
  checkpoint: integer('checkpoint').notNull(),
  checkpointAt: text('checkpoint_at'),
  checkpointSize: integer('checkpoint_size').notNull(),
  /**
   * The newest event id written before the fifth stage, set by the upgrade's migration: those events are integrated
   * first, under a signed `legacy` checkpoint (n = 1). Read only until the first checkpoint exists.
   */
  legacy: integer('legacy'),
});

/** Signed checkpoints `{n, size, head, at, kind}` (`audit/leaf.ts`). */
export const chainCheckpoints = sqliteTable('chain_checkpoints', {
  n: integer('n').primaryKey(),
  size: integer('size').notNull(),
  head: text('head').notNull(),
  at: text('at').notNull(),
  kind: text('kind').notNull(),
  kid: text('kid').notNull(),
  signature: text('signature').notNull(),
});

/** The verdict token minted in the transaction that settled each request, returned as stored. */
export const verdictTokens = sqliteTable('verdict_tokens', {
  requestId: text('request_id').primaryKey(),
  token: text('token').notNull(),
});

/**
 * Marks on the audit chain (docs/audit.md): `chain_started` records the last event that existed when the chain was
 * added to this database (those rows were chained then, in id order, so nothing proves what happened to them before).
 */
export const auditMarks = sqliteTable('audit_marks', {
  name: text('name').primaryKey(),
  eventId: integer('event_id'),
  at: text('at').notNull(),
});

/**
 * Where the audit chain starts after `tollgate prune` deleted its oldest events (docs/audit.md): the last pruned event's
 * id, hash and time, signed with the verdict-signing key like an anchor. `audit verify` starts from the newest one.
 */
export const auditCheckpoints = sqliteTable('audit_checkpoints', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  /** The last event deleted: the first event kept has `prev_hash` = `hash`. */
  eventId: integer('event_id').notNull(),
  hash: text('hash').notNull(),
  /** The deleted event's `at`, as the chain encodes it (ISO-8601 UTC with milliseconds). */
  at: text('at').notNull(),
  /** A compact JWS (the anchor format, docs/audit.md) over `event_id`, `hash` and `at`. */
  signature: text('signature').notNull(),
  /** The `--before` cut-off of the prune that wrote it. */
  prunedBefore: text('pruned_before').notNull(),
  /** Requests and events that prune run deleted (up to this checkpoint). */
  requests: integer('requests').notNull(),
  events: integer('events').notNull(),
  createdAt: text('created_at').notNull(),
});
