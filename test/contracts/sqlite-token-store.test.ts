/**
 * The SQLite token store against the shared token store contract: a migrated database file in a fresh temp dir per test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyMigrations, openDatabase } from '../../src/stores/sqlite/database.js';
import { SqliteTokenStore } from '../../src/stores/sqlite/token-store.js';
import { runTokenStoreContract } from './token-store.contract.js';

runTokenStoreContract({
  name: 'sqlite',
  async newStore() {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-tokens-'));
    const open = openDatabase(join(dir, 'tollgate.db'));
    applyMigrations(open);
    return {
      store: new SqliteTokenStore(open.sqlite),
      async cleanup() {
        open.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
