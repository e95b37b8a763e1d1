/**
 * The SQLite store against the shared store contract: a migrated database file in a fresh temp dir per test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyMigrations, openDatabase } from '../../src/stores/sqlite/database.js';
import { SqliteConfirmationStore } from '../../src/stores/sqlite/store.js';
import { runStoreContract } from './store.contract.js';

runStoreContract({
  name: 'sqlite',
  async newStore() {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-store-'));
    const open = openDatabase(join(dir, 'tollgate.db'));
    applyMigrations(open);
    const store = new SqliteConfirmationStore(open);
    return {
      store,
      async cleanup() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
