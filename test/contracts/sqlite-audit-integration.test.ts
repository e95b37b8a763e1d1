/**
 * The SQLite integrator against the audit integration contract: a fresh database file in a fresh temp dir per test.
 * The head's lock is the file's write lock, so another holder is a second connection in `BEGIN IMMEDIATE`. While it
 * holds, the stores' connection waits longer than a test may take (its busy timeout, 5 s by default, is raised): a
 * batch that waited for the holder instead of giving way would fail its test, as it never ends on PostgreSQL. (The
 * wait blocks the thread, so the holder, in this thread, could not release meanwhile.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { openStores } from '../../src/stores/open-store.js';
import { Database } from '../../src/stores/sqlite/driver.js';
import { runAuditIntegrationContract } from './audit-integration.contract.js';

/** More than vitest's 30 s test timeout (vitest.config.ts). */
const BEYOND_TEST_TIMEOUT_MS = 31_000;

runAuditIntegrationContract({
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-integration-'));
    const path = join(dir, 'tollgate.db');
    const stores = await openStores(path);
    return {
      stores,
      async holdHead() {
        const other = new Database(path);
        other.exec('BEGIN IMMEDIATE');
        const busyTimeout = stores.sqlite!.pragma('busy_timeout', { simple: true }) as number;
        stores.sqlite!.pragma(`busy_timeout = ${BEYOND_TEST_TIMEOUT_MS}`);
        return async () => {
          // The batch gave way and left the connection's own busy timeout as it was.
          expect(stores.sqlite!.pragma('busy_timeout', { simple: true })).toBe(BEYOND_TEST_TIMEOUT_MS);
          stores.sqlite!.pragma(`busy_timeout = ${busyTimeout}`);
          other.exec('ROLLBACK');
          other.close();
        };
      },
      async cleanup() {
        await stores.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
