/**
 * @module stores/sqlite/schema
 * The drizzle schema of the three tables auditors query with plain SQL (contract: column names).
 * Timestamps are ISO-8601 UTC text (`2026-11-22T10:00:00.000Z`), so they sort and compare as written;
 * JSON columns hold JSON text. `drizzle-kit generate` turns this file into `migrations/`.
 */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { RECEIPT_TYPES_SQL } from '../../requests/receipts.js';

export * from './schema-proof.js';

/** One row per confirmation request. */
export const confirmationRequests = sqliteTable(
  'confirmation_requests',
  {
    id: text('id').primaryKey(),
    status: text('status').notNull(),
    toolName: text('tool_name').notNull(),
    toolArgs: text('tool_args').notNull(),
    approvedArgs: text('approved_args'),
    prompt: text('prompt'),
    options: text('options').notNull(),
    agentId: text('agent_id'),
    userId: text('user_id'),
    sessionId: text('session_id'),
    toolCallId: text('tool_call_id'),
    /** The coding agent that asked (`tollgate hook <agent>`). */
    agentKind: text('agent_kind'),
    /** Where it was working (JSON `{session_id, cwd, repo, branch, model}`). */
    context: text('context'),
    metadata: text('metadata').notNull(),
    channels: text('channels').notNull(),
    approvers: text('approvers').notNull(),
    requiredApprovals: integer('required_approvals').notNull().default(1),
    onTimeout: text('on_timeout').notNull().default('deny'),
    idempotencyKey: text('idempotency_key'),
    argsSha256: text('args_sha256').notNull(),
    callbackUrl: text('callback_url'),
    /** Name of the API token that filed the request (null for in-process callers). */
    filedBy: text('filed_by'),
    /** The person the filing token speaks for (`tollgate token create --person`), for the self-approval rule. */
    filedByPerson: text('filed_by_person'),
    nonce: text('nonce').notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    respondedAt: text('responded_at'),
    respondedBy: text('responded_by'),
    respondedVia: text('responded_via'),
    /** The person (directory id) behind `responded_by`: four eyes are counted by person, not by account. */
    respondedByPerson: text('responded_by_person'),
    decisionOption: text('decision_option'),
    reason: text('reason'),
    /** 1 = the tool may run, 0 = it may not, NULL = pending. */
    allowed: integer('allowed'),
    /** The absentee a delegate decided for (`responded_by_person` is the delegate); null when nobody was stood in for. */
    onBehalfOf: text('on_behalf_of'),
    /** What the call will do and how risky it looks (JSON `CallSummary`, `summaries/`); null for rows from before it. */
    summary: text('summary'),
  },
  (t) => [
    // An idempotency key belongs to the token that filed (issue 58): another token's key names another request. In-process
    // callers file with no token (NULL), one scope of their own; COALESCE keeps NULLs from being distinct there.
    uniqueIndex('confirmation_requests_filer_idempotency_key').on(sql`coalesce(${t.filedBy}, '')`, t.idempotencyKey),
    index('confirmation_requests_status_expires').on(t.status, t.expiresAt),
    index('confirmation_requests_created').on(t.createdAt, t.id),
    index('confirmation_requests_tool').on(t.toolName, t.createdAt),
    index('confirmation_requests_agent').on(t.agentId, t.createdAt),
    // The audit query by coding agent (`?agent_kind=`), newest first.
    index('confirmation_requests_agent_kind').on(t.agentKind, t.createdAt),
    // Decided rows only (migration 0020): `?person=` and `?responded_by=` look for a value, which implies NOT NULL, so the
    // partial index serves them; a pending row has neither, and writing its null entry cost every create a page.
    index('confirmation_requests_person')
      .on(t.respondedByPerson, t.createdAt)
      .where(sql.raw('responded_by_person IS NOT NULL')),
    // The audit query by status (the inbox's pending list, `?status=approved`) newest first, without sorting every row of
    // that status; and by approver (`?responded_by=`). test/integration/history/query-plans.test.ts holds these to it.
    index('confirmation_requests_status_created').on(t.status, t.createdAt, t.id),
    index('confirmation_requests_responded_by')
      .on(t.respondedBy, t.createdAt)
      .where(sql.raw('responded_by IS NOT NULL')),
    // A tool's requests of one status (`?tool_name=&status=`): with only the tool's or the status's index, a rare or absent
    // pair walked every row of the other (seconds on a seeded history).
    index('confirmation_requests_tool_status').on(t.toolName, t.status, t.createdAt, t.id),
    // The hook routes' same-call lookup (`sameCall`, on every hook call): the agent and tool's newest rows in order, read
    // from the index alone (session and hash included), so no table row is read and nothing is sorted to cut the window.
    index('confirmation_requests_same_call').on(t.agentId, t.toolName, t.createdAt, t.id, t.sessionId, t.argsSha256),
  ],
);

/** Append-only audit trail: one row per thing that happened to a request. */
export const confirmationEvents = sqliteTable(
  'confirmation_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    requestId: text('request_id')
      .notNull()
      .references(() => confirmationRequests.id),
    type: text('type').notNull(),
    actor: text('actor'),
    channel: text('channel'),
    detail: text('detail')
      .notNull()
      .default(sql`'{}'`),
    at: text('at').notNull(),
    /** The previous event's `hash` (64 zeros for the first): set by the integrator (`audit/integrator.ts`). */
    prevHash: text('prev_hash'),
    /** The chain hash at `seq` (`audit/leaf.ts`); before the fifth stage, the first chain's (`audit/encoding.ts`). */
    hash: text('hash'),
    /** Position in the one audit order, gap-free from 1: assigned after commit by the integrator; null while pending. */
    seq: integer('seq'),
    /** The event's digest as its writer witnessed it (`audit/leaf.ts`), covered by its receipt. */
    leaf: text('leaf'),
    /** The batch receipt (`audit_receipts`) of the transaction that wrote it; null before the fifth stage. */
    receiptId: text('receipt_id'),
  },
  (t) => [
    index('confirmation_events_request').on(t.requestId, t.id),
    uniqueIndex('confirmation_events_seq').on(t.seq),
    // The integrator's queue: events not yet given a place in the order (a handful at any time).
    index('confirmation_events_pending')
      .on(t.id)
      .where(sql`${t.seq} IS NULL`),
    // No (type, at) index since migration 0019: no query searches by it (the store's reads add `+type` to stay off it),
    // and each event inserted wrote an entry, a page of it into every commit's WAL frames.
    // Execution receipts only, by request (exports join each row's latest): most requests have none, and through the
    // request index every row's events were read to find that out (~2 µs a row, a fifth of an export's CPU). Receipts
    // are few, so the index costs writes nothing else (`export-pages.ts`).
    index('confirmation_events_receipts').on(t.requestId, t.id).where(sql.raw(RECEIPT_TYPES_SQL)),
    // Deliveries only, by request and time: insights time each decision from its request's first delivery
    // (`insights.ts`), one index entry read per request instead of every event of each.
    index('confirmation_events_delivered').on(t.requestId, t.at).where(sql.raw("type = 'delivered'")),
  ],
);

/** One row per card: where it went and what the platform called it. */
export const channelMessages = sqliteTable(
  'channel_messages',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    requestId: text('request_id')
      .notNull()
      .references(() => confirmationRequests.id),
    channel: text('channel').notNull(),
    target: text('target').notNull(),
    messageRef: text('message_ref'),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('channel_messages_target').on(t.requestId, t.channel, t.target),
    index('channel_messages_status').on(t.status),
  ],
);

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
 * Standing grants ("approve for 1 hour"): a later request its `rule` matches, with the values in `scope` for the
 * scoped fields, is approved at once by `grant:<id>`. Never used after `expires_at` or once `revoked_at` is set.
 */
export const grants = sqliteTable(
  'grants',
  {
    id: text('id').primaryKey(),
    rule: text('rule').notNull(),
    label: text('label').notNull(),
    /** JSON object: scoped field → value (`{"tool_name":"deploy","agent_id":"release-bot"}`). */
    scope: text('scope').notNull(),
    /** The request whose approval created it. */
    requestId: text('request_id')
      .notNull()
      .references(() => confirmationRequests.id),
    createdBy: text('created_by').notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
    revokedAt: text('revoked_at'),
    revokedBy: text('revoked_by'),
    uses: integer('uses').notNull().default(0),
  },
  (t) => [
    index('grants_rule_expires').on(t.rule, t.expiresAt),
    index('grants_created').on(t.createdAt, t.id),
    // `tollgate prune` deletes a request's grants with it (and the foreign key is checked on every request deleted).
    index('grants_request').on(t.requestId),
  ],
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
 * Microsoft Teams conversation references (channels/teams): where a conversation the bot was installed in lives, so
 * cards can be sent there after a restart and from every process sharing the file.
 */
export const teamsConversations = sqliteTable('teams_conversations', {
  conversationId: text('conversation_id').primaryKey(),
  serviceUrl: text('service_url').notNull(),
  tenantId: text('tenant_id'),
  updatedAt: text('updated_at').notNull(),
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
 * Who voted on which request without settling it (an approval recorded towards a quorum), keyed for the audit query's
 * `?person=` / `?group=`: one person's votes newest first, by the request's creation time, so a page is cut from this
 * index and merged with the person's own verdicts (`confirmation_requests_person`). An expression index on the
 * events' `detail.person` was the other way: it finds the votes but orders them by the event, not by the request, so
 * every page would sort all of a person's votes (10^5 after a year) before cutting 50. Settling votes are not written
 * here (`responded_by_person` has them); the rows are derived from the `approved` events, which stay the record.
 */
export const confirmationVoters = sqliteTable(
  'confirmation_voters',
  {
    /** The voter's person (`detail.person` of the `approved` event). */
    person: text('person').notNull(),
    /** The request's `created_at`, as written there. */
    requestCreatedAt: text('request_created_at').notNull(),
    requestId: text('request_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.person, t.requestCreatedAt, t.requestId] }),
    index('confirmation_voters_request').on(t.requestId),
  ],
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
 * Insights' daily rollup (`insights/rollup.ts`): per UTC filing day, dimension and key, the requests' exact counts,
 * split by the DDSketch bucket of their time to decision (`bucket` null: no time, as for a verdict nobody gave), so
 * counts and percentiles of any window of whole days are sums. Written only by the refresh job, never by a create or a
 * decision. No primary key: `key` and `bucket` may be null, and a refresh replaces whole days.
 */
export const insightsDaily = sqliteTable(
  'insights_daily',
  {
    day: text('day').notNull(),
    dim: text('dim').notNull(),
    key: text('key'),
    bucket: integer('bucket'),
    requests: integer('requests').notNull(),
    approved: integer('approved').notNull(),
    denied: integer('denied').notNull(),
    expired: integer('expired').notNull(),
    cancelled: integer('cancelled').notNull(),
    edited: integer('edited').notNull(),
    humanApprovals: integer('human_approvals').notNull(),
    fast: integer('fast').notNull(),
  },
  (t) => [index('insights_daily_dim_day').on(t.dim, t.day)],
);

/**
 * The rollup's state, one row (`id` 1): when it was refreshed, the first day it does not cover (`through`: the
 * refresh's today, read live), the oldest day a request still pending could change (`open_from`: the next refresh
 * starts there), and the dimensions it holds (a new one means a rebuild).
 */
export const insightsRollupState = sqliteTable('insights_rollup_state', {
  id: integer('id').primaryKey(),
  refreshedAt: text('refreshed_at').notNull(),
  through: text('through').notNull(),
  openFrom: text('open_from').notNull(),
  dims: text('dims').notNull(),
});
