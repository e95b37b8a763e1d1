/**
 * PostgreSQL's insights against the insights, rollup and suggestions contracts, on the real server at 127.0.0.1:5432 (a fresh database for
 * this file, dropped after). Votes are judged by the callers' (fixed) times, as in the store contract.
 */
import { openPostgres } from '../../src/stores/postgres/database.js';
import { PostgresInsights } from '../../src/stores/postgres/insights.js';
import { PostgresConfirmationStore } from '../../src/stores/postgres/store.js';
import { freshDatabase } from '../integration/postgres/fresh-database.js';
import { runInsightsContract } from './insights.contract.js';
import { runInsightsRollupContract } from './insights-rollup.contract.js';
import { runSuggestionsContract } from './suggestions.contract.js';

async function newStore() {
  const fresh = await freshDatabase({ migrate: true });
  const open = openPostgres(fresh.url, { poolSize: 4 });
  const store = new PostgresConfirmationStore(open, { deadlineClock: 'caller' });
  return {
    store,
    insights: new PostgresInsights(open),
    async cleanup() {
      await store.close();
      await fresh.drop();
    },
  };
}

runInsightsContract('postgres', newStore);
runInsightsRollupContract('postgres', newStore);
runSuggestionsContract('postgres', newStore);
