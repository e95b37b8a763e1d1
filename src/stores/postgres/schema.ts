/**
 * @module stores/postgres/schema
 * The drizzle schema on PostgreSQL: the same tables and column names as SQLite's (`../sqlite/schema.ts`), so the
 * auditors' SQL reads alike on both, with PostgreSQL's own types: `timestamptz` (millisecond precision, the
 * precision of a JS `Date`, so a row reads back exactly as written), `jsonb` for structured columns and `boolean`
 * for `allowed`. Here the tables of a request's life, as on SQLite; re-exported, those of access
 * (`schema-access.ts`), the audit chain's proof (`schema-proof.ts`) and insights (`schema-insights.ts`).
 * `drizzle-kit generate --config drizzle.postgres.config.ts` turns this file (and what it re-exports) into
 * `migrations/postgres/`.
 *
 * Why the tables are written twice, once a dialect, and not built from one description: see `../sqlite/schema.ts`
 * (issue 56). In short, only the names are the same; types, indexes and tables differ, drizzle's builders and the
 * stores' row types are per dialect, and drizzle-kit reads these files as a reviewer does.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { RECEIPT_TYPES_SQL } from '../../requests/receipts.js';
import type { AgentContext } from '../../requests/types.js';
import type { CallSummary } from '../../summaries/types.js';
import { at } from './schema-columns.js';

export * from './schema-access.js';
export * from './schema-insights.js';
export * from './schema-proof.js';

/** The statuses a request ends in (`FinalStatus`), each with a partial index of its rows by time. */
const FINAL_STATUSES = ['approved', 'denied', 'expired', 'cancelled'] as const;

/** One row per confirmation request. */
export const confirmationRequests = pgTable(
  'confirmation_requests',
  {
    id: text('id').primaryKey(),
    status: text('status').notNull(),
    toolName: text('tool_name').notNull(),
    toolArgs: jsonb('tool_args').$type<Record<string, unknown>>().notNull(),
    approvedArgs: jsonb('approved_args').$type<Record<string, unknown>>(),
    prompt: text('prompt'),
    options: jsonb('options').$type<string[]>().notNull(),
    agentId: text('agent_id'),
    userId: text('user_id'),
    sessionId: text('session_id'),
    toolCallId: text('tool_call_id'),
    /** The coding agent that asked (`tollgate hook <agent>`). */
    agentKind: text('agent_kind'),
    /** Where it was working (`{session_id, cwd, repo, branch, model}`). */
    context: jsonb('context').$type<AgentContext>(),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
    channels: jsonb('channels').$type<{ type: string; target?: string }[]>().notNull(),
    approvers: jsonb('approvers').$type<string[]>().notNull(),
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
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    updatedAt: at('updated_at').notNull(),
    respondedAt: at('responded_at'),
    respondedBy: text('responded_by'),
    respondedVia: text('responded_via'),
    /** The person (directory id) behind `responded_by`: four eyes are counted by person, not by account. */
    respondedByPerson: text('responded_by_person'),
    decisionOption: text('decision_option'),
    reason: text('reason'),
    /** true = the tool may run, false = it may not, NULL = pending. */
    allowed: boolean('allowed'),
    /** The absentee a delegate decided for (`responded_by_person` is the delegate); null when nobody was stood in for. */
    onBehalfOf: text('on_behalf_of'),
    /** What the call will do and how risky it looks (`CallSummary`, `summaries/`); null for rows from before it. */
    summary: jsonb('summary').$type<CallSummary>(),
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
    index('confirmation_requests_person').on(t.respondedByPerson, t.createdAt),
    // As on SQLite: by status newest first (the inbox's pending list, `?status=`), and by approver (`?responded_by=`).
    index('confirmation_requests_status_created').on(t.status, t.createdAt, t.id),
    index('confirmation_requests_responded_by').on(t.respondedBy, t.createdAt),
    // A tool's requests of one status (`?tool_name=&status=`): with only the tool's or the status's index, a rare or absent
    // pair walked every row of the other (seconds on a seeded history).
    index('confirmation_requests_tool_status').on(t.toolName, t.status, t.createdAt, t.id),
    // The hook routes' same-call lookup (`sameCall`, on every hook call): the agent and tool's newest rows in order, read
    // from the index alone (session and hash included), so no table row is read and nothing is sorted to cut the window.
    index('confirmation_requests_same_call').on(t.agentId, t.toolName, t.createdAt, t.id, t.sessionId, t.argsSha256),
    // A final status's rows newest first (`?status=denied`), one partial index each. With only status_created the planner
    // walked confirmation_requests_created newest first and filtered (its rows lie in heap order, status_created's do
    // not): 202 rows read for a page of 50 on a seeded history, thousands once the newest rows are another status.
    // Pending keeps status_created (a rare status, which the planner searches there already).
    ...FINAL_STATUSES.map((status) =>
      index(`confirmation_requests_status_created_${status}`)
        .on(t.createdAt, t.id)
        .where(sql.raw(`status = '${status}'`)),
    ),
  ],
);

/** Append-only audit trail: one row per thing that happened to a request. */
export const confirmationEvents = pgTable(
  'confirmation_events',
  {
    /**
     * From the column's identity sequence (migration 0023): writers take no chain-wide lock, so ids follow no commit
     * order; the one order is `seq`, given by the integrator after commit (`audit/integrator.ts`). A row given an id
     * (a copy from SQLite) keeps it.
     */
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    requestId: text('request_id')
      .notNull()
      .references(() => confirmationRequests.id),
    type: text('type').notNull(),
    actor: text('actor'),
    channel: text('channel'),
    detail: jsonb('detail')
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    at: at('at').notNull(),
    /** The previous event's `hash` in `seq` order (64 zeros for the first): set by the integrator (docs/audit.md). */
    prevHash: text('prev_hash'),
    /** The chain hash at `seq` (`audit/leaf.ts`): set by the integrator. */
    hash: text('hash'),
    /** The event's place in the one order, gap-free from 1: null until the integrator reaches it. */
    seq: bigint('seq', { mode: 'number' }),
    /** The event's digest as its writer witnessed it (`audit/leaf.ts`), covered by its receipt. */
    leaf: text('leaf'),
    /** The batch receipt (`audit_receipts`) of the transaction that wrote it; null when written without a key. */
    receiptId: text('receipt_id'),
  },
  (t) => [
    index('confirmation_events_request').on(t.requestId, t.id),
    uniqueIndex('confirmation_events_seq').on(t.seq),
    // The integrator's queue: only events still waiting for their place, oldest id first.
    index('confirmation_events_pending')
      .on(t.id)
      .where(sql`${t.seq} IS NULL`),
    index('confirmation_events_type').on(t.type, t.at),
    // Execution receipts only, by request (exports join each row's latest): through the request index every event of
    // every exported row was read to find out it had none. Receipts are few, so nothing else pays for it.
    index('confirmation_events_receipts').on(t.requestId, t.id).where(sql.raw(RECEIPT_TYPES_SQL)),
    // Deliveries only, by request and time: insights time each decision from its request's first delivery
    // (`insights.ts`), one index entry read per request instead of every event of each.
    index('confirmation_events_delivered').on(t.requestId, t.at).where(sql.raw("type = 'delivered'")),
  ],
);

/** One row per card: where it went and what the platform called it. */
export const channelMessages = pgTable(
  'channel_messages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    requestId: text('request_id')
      .notNull()
      .references(() => confirmationRequests.id),
    channel: text('channel').notNull(),
    target: text('target').notNull(),
    messageRef: text('message_ref'),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('channel_messages_target').on(t.requestId, t.channel, t.target),
    index('channel_messages_status').on(t.status),
  ],
);

/**
 * Standing grants ("approve for 1 hour"), as on SQLite: a later request its `rule` matches, with the values in `scope`
 * for the scoped fields, is approved at once by `grant:<id>`. Never used after `expires_at` or once `revoked_at` is set.
 */
export const grants = pgTable(
  'grants',
  {
    id: text('id').primaryKey(),
    rule: text('rule').notNull(),
    label: text('label').notNull(),
    /** Scoped field → value (`{"tool_name":"deploy","agent_id":"release-bot"}`). */
    scope: jsonb('scope').$type<Record<string, unknown>>().notNull(),
    /** The request whose approval created it. */
    requestId: text('request_id')
      .notNull()
      .references(() => confirmationRequests.id),
    createdBy: text('created_by').notNull(),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    revokedAt: at('revoked_at'),
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
 * Microsoft Teams conversation references (channels/teams), as on SQLite: learned by whichever replica received the
 * install activity, read by every replica that sends a card.
 */
export const teamsConversations = pgTable('teams_conversations', {
  conversationId: text('conversation_id').primaryKey(),
  serviceUrl: text('service_url').notNull(),
  tenantId: text('tenant_id'),
  updatedAt: at('updated_at').notNull(),
});

/**
 * Who voted on which request without settling it, keyed for `?person=` / `?group=`: as on SQLite (see
 * `../sqlite/schema.ts`, `confirmationVoters`, for why a table and not an expression index on the events).
 */
export const confirmationVoters = pgTable(
  'confirmation_voters',
  {
    person: text('person').notNull(),
    /** The request's `created_at`. */
    requestCreatedAt: at('request_created_at').notNull(),
    requestId: text('request_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.person, t.requestCreatedAt, t.requestId] }),
    index('confirmation_voters_request').on(t.requestId),
  ],
);
