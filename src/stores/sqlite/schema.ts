/**
 * @module stores/sqlite/schema
 * The drizzle schema on SQLite: here the tables of a request's life (the request, its events, its cards and the Teams
 * conversations they go to, its voters, the grants its approval made), and, re-exported, those of access (`schema-access.ts`), the audit chain's proof
 * (`schema-proof.ts`) and insights (`schema-insights.ts`). Auditors query the tables with plain SQL (contract:
 * column names). Timestamps are ISO-8601 UTC text (`2026-11-22T10:00:00.000Z`), so they sort and compare as written;
 * JSON columns hold JSON text. `drizzle-kit generate` turns this file (and what it re-exports) into `migrations/`.
 *
 * Why PostgreSQL's schema (`../postgres/schema.ts`) repeats these tables instead of both being built from one
 * description (issue 56): the two share table and column names (so auditors' SQL reads alike), and little else. A
 * column's type differs (ISO text or `timestamptz(3)`, JSON text or typed `jsonb`, 0/1 or `boolean`, `autoIncrement`
 * or an identity), so do indexes (partial here, per status there) and tables (`directory_resolutions` is
 * PostgreSQL's only). drizzle's builders are typed per dialect and each store's row types come from its own tables:
 * one description would need a mapping whose types are harder to read than the repetition, and drizzle-kit would
 * read the mapping's output, not the tables a reviewer edits. A schema change edits both files (CONTRIBUTING.md);
 * the store contract suite, run on both, fails where one store uses a column its table lacks.
 */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { RECEIPT_TYPES_SQL } from '../../requests/receipts.js';

export * from './schema-access.js';
export * from './schema-insights.js';
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
