/** The Web Push suite on SQLite (a fresh file per test). */
import { pushSuite } from './push-suite.js';

pushSuite('SQLite', { fresh: async () => ({ drop: async () => {} }), manualDeadlines: true });
