/** The Web Push suite on PostgreSQL (a fresh database per test). */
import { freshDatabase } from '../postgres/fresh-database.js';
import { pushSuite } from './push-suite.js';

pushSuite('PostgreSQL', {
  manualDeadlines: false,
  fresh: async () => {
    const db = await freshDatabase();
    return { dbPath: db.url, drop: () => db.drop() };
  },
});
