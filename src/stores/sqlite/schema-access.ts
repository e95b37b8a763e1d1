/**
 * @module stores/sqlite/schema-access
 * The SQLite tables of who may act and as whom: API tokens, run-time away windows (and their delegates), expiring
 * marks (sign-outs), and the deployment's own secrets. None refers to a request. Re-exported by `schema.ts`, so
 * `drizzle-kit generate` sees them.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * API tokens created over `POST /v1/tokens`. Only the SHA-256 of each secret is kept: secrets are 256 random bits, so
 * a fast hash is enough (no dictionary to guess from) and lets one indexed lookup find the token.
 */
export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    secretSha256: text('secret_sha256').notNull(),
    /** JSON array of scopes, e.g. `["request:create","request:read"]`. */
    scopes: text('scopes').notNull(),
    /** The approver identity a `request:decide` token decides as (`web:alice`). */
    asIdentity: text('as_identity'),
    /** The person (directory id) the token speaks for, for the self-approval rule. */
    person: text('person'),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at'),
    revokedAt: text('revoked_at'),
    /** The writing gateway's Ed25519 signature over the row (`audit/witnessed-rows.ts`); null: not witnessed. */
    signature: text('signature'),
    /** The key that made `signature`. */
    kid: text('kid'),
  },
  (t) => [uniqueIndex('api_tokens_name').on(t.name), uniqueIndex('api_tokens_secret').on(t.secretSha256)],
);

/**
 * Away windows set at run time (`PUT /v1/people/…/away`), append-only: each change is a row, and a person's newest row
 * is in force over the config file's window (a row with no `away_from` says "not away", overriding the config too).
 * Every replica reads the same rows, and the rows are the record of who changed whose status when.
 */
export const peopleAway = sqliteTable(
  'people_away',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    person: text('person').notNull(),
    awayFrom: text('away_from'),
    awayUntil: text('away_until'),
    /** The delegate's person id. */
    delegate: text('delegate'),
    note: text('note'),
    /** Who changed it: `person:alice` (herself), `api:<token name>` (an admin). */
    setBy: text('set_by').notNull(),
    at: text('at').notNull(),
    /** The writing gateway's Ed25519 signature over the row (`audit/witnessed-rows.ts`); null: not witnessed. */
    signature: text('signature'),
    /** The key that made `signature`. */
    kid: text('kid'),
  },
  (t) => [index('people_away_person').on(t.person, t.id)],
);

/**
 * Expiring marks (`src/contracts/shared-marks.ts`), as on PostgreSQL: on SQLite, the web sessions signed out before their expiry,
 * so a sign-out outlives a restart. A mark is gone once `expires_at` (ISO-8601 UTC text) has passed.
 */
export const sharedMarks = sqliteTable(
  'shared_marks',
  {
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] }), index('shared_marks_expires').on(t.expiresAt)],
);

/**
 * Per-deployment secrets (the web session key, the email link key, the verdict signing key): generated once and kept
 * here, so sessions and links outlive a restart. An environment variable set by hand still wins.
 */
export const deploymentSecrets = sqliteTable('deployment_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: text('created_at').notNull(),
});
