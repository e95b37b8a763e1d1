/**
 * The PostgreSQL integrator against the audit integration contract, on the real server at 127.0.0.1:5432: one fresh
 * database for this file (dropped after), its events, checkpoints and head reset before each test. The head is one row
 * taken `FOR UPDATE SKIP LOCKED`, so another holder is a second connection holding that row `FOR UPDATE`.
 */
import pg from 'pg';
import { afterAll } from 'vitest';
import { openStores } from '../../src/stores/open-store.js';
import { freshDatabase, withClient, type FreshDatabase } from '../integration/postgres/fresh-database.js';
import { runAuditIntegrationContract } from './audit-integration.contract.js';

let database: Promise<FreshDatabase> | undefined;

afterAll(async () => {
  await (await database)?.drop();
});

runAuditIntegrationContract({
  name: 'postgres',
  async open() {
    const { url } = await (database ??= freshDatabase({ migrate: true }));
    await withClient(url, async (c) => {
      await c.query(
        'TRUNCATE confirmation_events, channel_messages, confirmation_requests, audit_receipts, chain_checkpoints, verdict_tokens RESTART IDENTITY CASCADE',
      );
      await c.query(
        "UPDATE chain_head SET size = 0, hash = repeat('0', 64), checkpoint = 0, checkpoint_at = NULL, checkpoint_size = 0, legacy = NULL",
      );
    });
    const stores = await openStores(url);
    return {
      stores,
      async holdHead() {
        const other = new pg.Client({ connectionString: url });
        await other.connect();
        await other.query('BEGIN');
        await other.query('SELECT 1 FROM chain_head WHERE id = 1 FOR UPDATE');
        return async () => {
          await other.query('ROLLBACK');
          await other.end();
        };
      },
      cleanup: () => stores.close(),
    };
  },
});
