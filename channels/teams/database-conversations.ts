/**
 * @module channels/teams/database-conversations
 * {@link TeamsConversationStore} in the database (`teams_conversations`, migration 0006), so a reference learned by
 * one replica is seen by every other and survives a restart. Both classes take the narrowest handle they need (a
 * better-sqlite3 database, a pg pool), so the adapter does not import the store layer.
 */
import type { TeamsConversationRef, TeamsConversationStore } from './conversations.js';

/** What the SQLite store needs of a better-sqlite3 database. */
export interface SqliteHandle {
  prepare(sql: string): { run(...params: unknown[]): unknown; get(...params: unknown[]): unknown };
}

/** What the PostgreSQL store needs of a pg pool. */
export interface PostgresHandle {
  query(sql: string, params: unknown[]): Promise<{ rows: unknown[] }>;
}

interface Row {
  conversation_id: string;
  service_url: string;
  tenant_id: string | null;
}

function refOf(row: Row | undefined): TeamsConversationRef | null {
  if (!row) return null;
  return {
    conversationId: row.conversation_id,
    serviceUrl: row.service_url,
    ...(row.tenant_id ? { tenantId: row.tenant_id } : {}),
  };
}

/** Conversation references in the SQLite file. */
export class SqliteTeamsConversationStore implements TeamsConversationStore {
  constructor(private readonly sqlite: SqliteHandle) {}

  async save(ref: TeamsConversationRef): Promise<void> {
    // Upsert: Teams may move a conversation to another serviceUrl; the latest activity wins.
    this.sqlite
      .prepare(
        'INSERT INTO teams_conversations (conversation_id, service_url, tenant_id, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (conversation_id) DO UPDATE SET service_url = excluded.service_url, tenant_id = excluded.tenant_id, updated_at = excluded.updated_at',
      )
      .run(ref.conversationId, ref.serviceUrl, ref.tenantId ?? null, new Date().toISOString());
  }

  async get(conversationId: string): Promise<TeamsConversationRef | null> {
    return refOf(
      this.sqlite
        .prepare('SELECT conversation_id, service_url, tenant_id FROM teams_conversations WHERE conversation_id = ?')
        .get(conversationId) as Row | undefined,
    );
  }
}

/** Conversation references shared by every replica on one PostgreSQL database. */
export class PostgresTeamsConversationStore implements TeamsConversationStore {
  constructor(private readonly pool: PostgresHandle) {}

  async save(ref: TeamsConversationRef): Promise<void> {
    await this.pool.query(
      'INSERT INTO teams_conversations (conversation_id, service_url, tenant_id, updated_at) VALUES ($1, $2, $3, now()) ON CONFLICT (conversation_id) DO UPDATE SET service_url = excluded.service_url, tenant_id = excluded.tenant_id, updated_at = excluded.updated_at',
      [ref.conversationId, ref.serviceUrl, ref.tenantId ?? null],
    );
  }

  async get(conversationId: string): Promise<TeamsConversationRef | null> {
    const { rows } = await this.pool.query(
      'SELECT conversation_id, service_url, tenant_id FROM teams_conversations WHERE conversation_id = $1',
      [conversationId],
    );
    return refOf(rows[0] as Row | undefined);
  }
}
