/**
 * SQLite's insights against the insights, rollup and suggestions contracts: a migrated database file in a fresh temp dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyMigrations, openDatabase } from '../../src/stores/sqlite/database.js';
import { SqliteInsights } from '../../src/stores/sqlite/insights.js';
import { SqliteConfirmationStore } from '../../src/stores/sqlite/store.js';
import { runInsightsContract } from './insights.contract.js';
import { runInsightsRollupContract } from './insights-rollup.contract.js';
import { runSuggestionsContract } from './suggestions.contract.js';

async function newStore() {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-insights-'));
  const open = openDatabase(join(dir, 'tollgate.db'));
  applyMigrations(open);
  const store = new SqliteConfirmationStore(open);
  const insights = new SqliteInsights(open);
  return {
    store,
    insights,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

runInsightsContract('sqlite', newStore);
runInsightsRollupContract('sqlite', newStore);
runSuggestionsContract('sqlite', newStore);
