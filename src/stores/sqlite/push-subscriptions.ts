/**
 * @module stores/sqlite/push-subscriptions
 * {@link PushSubscriptionStore} on SQLite (`push_subscriptions`, migration 0016). Statements are prepared on first
 * use, so opening an older file without migrating it (`tollgate audit`) does not fail.
 */
import type Database from 'better-sqlite3';
import {
  subscriptionFromRow as fromRow,
  type PushSubscriptionRecord,
  type PushSubscriptionRow as Row,
  type PushSubscriptionStore,
} from '../../push/subscriptions.js';
import { withSqliteErrors } from './errors.js';

/** Push subscriptions kept in the SQLite file. */
export class SqlitePushSubscriptions implements PushSubscriptionStore {
  private statements: ReturnType<SqlitePushSubscriptions['prepare']> | null = null;

  constructor(private readonly sqlite: Database.Database) {}

  private prepare() {
    return {
      // A device subscribing again keeps one row with its newest keys; another person's endpoint is left alone.
      save: this.sqlite.prepare<[string, string, string, string, string, string, string], Row>(
        `INSERT INTO push_subscriptions (id, person, account, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (endpoint) DO UPDATE SET person = excluded.person, account = excluded.account, p256dh = excluded.p256dh, auth = excluded.auth, created_at = excluded.created_at
         WHERE push_subscriptions.person = excluded.person
         RETURNING *`,
      ),
      ofPerson: this.sqlite.prepare<[string], Row>(
        'SELECT * FROM push_subscriptions WHERE person = ? ORDER BY created_at, id',
      ),
      get: this.sqlite.prepare<[string], Row>('SELECT * FROM push_subscriptions WHERE id = ?'),
      remove: this.sqlite.prepare('DELETE FROM push_subscriptions WHERE endpoint = ?'),
      removeOwn: this.sqlite.prepare('DELETE FROM push_subscriptions WHERE endpoint = ? AND person = ?'),
    };
  }

  private get sql() {
    return (this.statements ??= this.prepare());
  }

  async save(record: PushSubscriptionRecord): Promise<PushSubscriptionRecord | null> {
    return withSqliteErrors(() => {
      const row = this.sql.save.get(
        record.id,
        record.person,
        record.account,
        record.endpoint,
        record.p256dh,
        record.auth,
        record.createdAt.toISOString(),
      );
      return row ? fromRow(row) : null;
    });
  }

  async ofPerson(person: string): Promise<PushSubscriptionRecord[]> {
    return withSqliteErrors(() => this.sql.ofPerson.all(person).map(fromRow));
  }

  async get(id: string): Promise<PushSubscriptionRecord | null> {
    return withSqliteErrors(() => {
      const row = this.sql.get.get(id);
      return row ? fromRow(row) : null;
    });
  }

  async remove(endpoint: string, person?: string): Promise<boolean> {
    return withSqliteErrors(
      () =>
        (person === undefined ? this.sql.remove.run(endpoint) : this.sql.removeOwn.run(endpoint, person)).changes > 0,
    );
  }
}
