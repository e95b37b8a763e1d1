/**
 * `tollgate migrate` (SQLite → PostgreSQL) carries the push subscriptions with the VAPID key they were made with, so
 * devices keep getting notifications after the move.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations, openDatabase } from '../../../src/stores/sqlite/database.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { copySqliteToPostgres } from '../../../src/stores/postgres/copy-from-sqlite.js';
import { SqlitePushSubscriptions } from '../../../src/stores/sqlite/push-subscriptions.js';
import { PostgresPushSubscriptions } from '../../../src/stores/postgres/push-subscriptions.js';
import { SqliteSecrets } from '../../../src/stores/sqlite/secrets.js';
import { PostgresSecrets } from '../../../src/stores/postgres/secrets.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

describe('push subscriptions move from SQLite to PostgreSQL', () => {
  let fresh: FreshDatabase | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await fresh?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('with the VAPID secret they were made with', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-push-copy-'));
    const source = openDatabase(join(dir, 'source.db'));
    applyMigrations(source);
    const device = {
      id: 'd1',
      person: 'alice',
      account: 'web:alice',
      endpoint: 'https://push.example.com/d1',
      p256dh: 'BK'.padEnd(87, 'A'),
      auth: 'AAAAAAAAAAAAAAAAAAAAAA',
      createdAt: new Date('2026-11-01T00:00:00Z'),
    };
    await new SqlitePushSubscriptions(source.sqlite).save(device);
    const vapid = await new SqliteSecrets(source.sqlite).get('vapid');
    fresh = await freshDatabase({ migrate: true });
    const target = openPostgres(fresh.url, { poolSize: 1 });
    try {
      await copySqliteToPostgres(source, target);
      expect(await new PostgresPushSubscriptions(target).ofPerson('alice')).toEqual([device]);
      expect(await new PostgresSecrets(target).get('vapid')).toBe(vapid);
    } finally {
      source.close();
      await target.close();
    }
  });
});
