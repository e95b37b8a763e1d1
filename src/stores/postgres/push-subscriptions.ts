/**
 * @module stores/postgres/push-subscriptions
 * {@link PushSubscriptionStore} on PostgreSQL (`push_subscriptions`, migration 0018): every replica pushes to every
 * device, and a device removed by one (a 410 from its push service) is gone for all.
 */
import {
  subscriptionFromRow as fromRow,
  type PushSubscriptionRecord,
  type PushSubscriptionRow as Row,
  type PushSubscriptionStore,
} from '../../push/subscriptions.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';

/** Push subscriptions shared by every replica on one PostgreSQL database. */
export class PostgresPushSubscriptions implements PushSubscriptionStore {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async save(record: PushSubscriptionRecord): Promise<PushSubscriptionRecord | null> {
    return withPostgresErrors(async () => {
      // A device subscribing again keeps one row with its newest keys; another person's endpoint is left alone.
      const { rows } = await this.open.pool.query<Row>(
        `INSERT INTO push_subscriptions (id, person, account, endpoint, p256dh, auth, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (endpoint) DO UPDATE SET person = EXCLUDED.person, account = EXCLUDED.account, p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth, created_at = EXCLUDED.created_at
         WHERE push_subscriptions.person = EXCLUDED.person
         RETURNING *`,
        [record.id, record.person, record.account, record.endpoint, record.p256dh, record.auth, record.createdAt],
      );
      return rows[0] ? fromRow(rows[0]) : null;
    });
  }

  async ofPerson(person: string): Promise<PushSubscriptionRecord[]> {
    return withPostgresErrors(async () =>
      (
        await this.open.pool.query<Row>('SELECT * FROM push_subscriptions WHERE person = $1 ORDER BY created_at, id', [
          person,
        ])
      ).rows.map(fromRow),
    );
  }

  async get(id: string): Promise<PushSubscriptionRecord | null> {
    return withPostgresErrors(async () => {
      const { rows } = await this.open.pool.query<Row>('SELECT * FROM push_subscriptions WHERE id = $1', [id]);
      return rows[0] ? fromRow(rows[0]) : null;
    });
  }

  async remove(endpoint: string, person?: string): Promise<boolean> {
    return withPostgresErrors(async () => {
      const { rowCount } =
        person === undefined
          ? await this.open.pool.query('DELETE FROM push_subscriptions WHERE endpoint = $1', [endpoint])
          : await this.open.pool.query('DELETE FROM push_subscriptions WHERE endpoint = $1 AND person = $2', [
              endpoint,
              person,
            ]);
      return (rowCount ?? 0) > 0;
    });
  }
}
