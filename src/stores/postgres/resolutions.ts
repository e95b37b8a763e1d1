/**
 * @module stores/postgres/resolutions
 * The people directory's email look-ups on PostgreSQL (`directory_resolutions`): one answer per channel and address,
 * shared by every replica, so a deployment asks Slack or Feishu once per TTL rather than once per replica.
 */
import type { Resolution, ResolutionCache } from '../../people/email-resolution.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';

/** Email resolutions shared by the replicas on one PostgreSQL database. */
export class PostgresResolutionCache implements ResolutionCache {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async get(channel: string, email: string): Promise<Resolution | null> {
    return withPostgresErrors(async () => {
      const { rows } = await this.open.pool.query<{ account: string | null; error: string | null; resolved_at: Date }>(
        'SELECT account, error, resolved_at FROM directory_resolutions WHERE channel = $1 AND email = $2',
        [channel, email],
      );
      const row = rows[0];
      return row ? { channel, email, account: row.account, error: row.error, resolvedAt: row.resolved_at } : null;
    });
  }

  async put(r: Resolution): Promise<void> {
    await withPostgresErrors(() =>
      this.open.pool.query(
        `INSERT INTO directory_resolutions (channel, email, account, error, resolved_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (channel, email) DO UPDATE SET account = EXCLUDED.account, error = EXCLUDED.error, resolved_at = EXCLUDED.resolved_at`,
        [r.channel, r.email, r.account, r.error, r.resolvedAt],
      ),
    );
  }
}
