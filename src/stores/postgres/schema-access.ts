/**
 * @module stores/postgres/schema-access
 * The PostgreSQL tables of who may act and as whom, as on SQLite (`../sqlite/schema-access.ts`): API tokens,
 * run-time away windows (and their delegates), expiring marks every replica must see, the deployment's own secrets,
 * and, PostgreSQL's only, the people directory's email look-ups shared by the replicas. None refers to a request.
 * Re-exported by `schema.ts`, so `drizzle-kit generate` sees them.
 */
import { bigint, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { at } from './schema-columns.js';

/** API tokens created over `POST /v1/tokens`; only the SHA-256 of each secret is kept (see `../sqlite/schema-access.ts`). */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    secretSha256: text('secret_sha256').notNull(),
    /** JSON array of scopes, e.g. `["request:create","request:read"]`. */
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    /** The approver identity a `request:decide` token decides as (`web:alice`). */
    asIdentity: text('as_identity'),
    /** The person (directory id) the token speaks for, for the self-approval rule. */
    person: text('person'),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at'),
    revokedAt: at('revoked_at'),
    /** The writing gateway's Ed25519 signature over the row (`audit/witnessed-rows.ts`); null: not witnessed. */
    signature: text('signature'),
    /** The key that made `signature`. */
    kid: text('kid'),
  },
  (t) => [uniqueIndex('api_tokens_name').on(t.name), uniqueIndex('api_tokens_secret').on(t.secretSha256)],
);

/** Away windows set at run time, append-only, as on SQLite (`../sqlite/schema-access.ts`, `peopleAway`). */
export const peopleAway = pgTable(
  'people_away',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    person: text('person').notNull(),
    awayFrom: at('away_from'),
    awayUntil: at('away_until'),
    delegate: text('delegate'),
    note: text('note'),
    setBy: text('set_by').notNull(),
    at: at('at').notNull(),
    /** The writing gateway's Ed25519 signature over the row (`audit/witnessed-rows.ts`); null: not witnessed. */
    signature: text('signature'),
    /** The key that made `signature`. */
    kid: text('kid'),
  },
  (t) => [index('people_away_person').on(t.person, t.id)],
);

/**
 * Expiring marks every replica must see (`src/contracts/shared-marks.ts`): unspent one-time web login links and web sessions
 * signed out before their expiry, each keyed by a hash or a random id, never by a secret.
 */
export const sharedMarks = pgTable(
  'shared_marks',
  {
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] }), index('shared_marks_expires').on(t.expiresAt)],
);

/**
 * Per-deployment secrets every replica must share (the web session key, the verdict signing key): the first replica to
 * need one generates it and inserts it here; the others read it. An environment variable set by hand still wins.
 */
export const deploymentSecrets = pgTable('deployment_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: at('created_at').notNull(),
});

/**
 * The people directory's email look-ups (an email → a Slack or Feishu account), cached for every replica, so replicas
 * agree on who an account is. `account` is null when the platform knows no such email (`error` says why).
 */
export const directoryResolutions = pgTable(
  'directory_resolutions',
  {
    channel: text('channel').notNull(),
    email: text('email').notNull(),
    account: text('account'),
    error: text('error'),
    resolvedAt: at('resolved_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channel, t.email] })],
);
