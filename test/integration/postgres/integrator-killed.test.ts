/**
 * An integrator killed mid-batch (issue 57's fault): its connection is ended by the server while its batch's
 * `UPDATE` is under way, before commit — as a replica killed or cut off from the database leaves it. The batch is
 * one transaction, so nothing of it stays: every event is still pending, the head has not moved, no checkpoint was
 * signed. Another replica's integrator then places every event exactly once, gap-free, and the trail verifies.
 * The kill is made deterministic: a trigger the test installs stalls the batch's last statement, and its connection
 * is ended there.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Integrator, planBatch } from '../../../src/audit/integrator.js';
import { openStores, type OpenStores } from '../../../src/stores/open-store.js';
import { file } from '../../contracts/store-fixtures.js';
import { freshKey, witness } from '../audit/witnessed.js';
import { freshDatabase, type FreshDatabase } from './fresh-database.js';

let db: FreshDatabase;
let a: OpenStores;
let b: OpenStores;
beforeAll(async () => {
  db = await freshDatabase({ migrate: true });
  a = await openStores(db.url);
  b = await openStores(db.url);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

const count = async (sql: string) => Number((await b.postgres!.pool.query<{ n: string }>(sql)).rows[0]!.n);

it('leaves every event pending when killed mid-batch; another replica places each exactly once', async () => {
  const key = await freshKey();
  const replicaA = await witness(a, { key });
  const replicaB = await witness(b, { key });
  // 100 at a time, committed together (the store's group commit), not 600 commits one after another.
  for (let i = 0; i < 600; i += 100)
    await Promise.all(
      Array.from({ length: 100 }, (_, j) =>
        file(a.store, { toolName: 'deploy', toolArgs: { build: i + j } }, new Date()),
      ),
    );
  const pending = await count('SELECT count(*) AS n FROM confirmation_events WHERE seq IS NULL');
  expect(pending).toBeGreaterThanOrEqual(600);

  // A's batch is made to stop inside its last statement (a trigger on the head sleeps), and its connection is ended
  // there, before its commit.
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(`CREATE FUNCTION test_stall() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$`);
  await admin.query('CREATE TRIGGER test_stall BEFORE UPDATE ON chain_head FOR EACH ROW EXECUTE FUNCTION test_stall()');
  const batch = a.integration.integrate(1000, (head, events) =>
    planBatch(head, events, replicaA.witness, new Date(), { batch: 1000 }),
  );
  let pid: number | undefined;
  for (let tries = 0; tries < 400 && pid === undefined; tries++) {
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'WITH placed AS%'",
    );
    pid = rows[0]?.pid;
    if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(pid).toBeDefined();
  await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  await expect(batch).rejects.toThrow();
  await admin.query('DROP TRIGGER test_stall ON chain_head');
  await admin.end();

  // Nothing of the batch stayed.
  expect(await count('SELECT count(*) AS n FROM confirmation_events WHERE seq IS NULL')).toBe(pending);
  expect(await count('SELECT size AS n FROM chain_head WHERE id = 1')).toBe(0);
  expect(await count('SELECT count(*) AS n FROM chain_checkpoints')).toBe(0);

  // Another replica integrates for everyone: each event once, seq 1…N without a gap, and a clean verify.
  await new Integrator(b.integration, replicaB.witness).runOnce();
  expect(await count('SELECT count(*) AS n FROM confirmation_events WHERE seq IS NULL')).toBe(0);
  expect(
    await count('SELECT count(DISTINCT seq) AS n FROM confirmation_events WHERE seq BETWEEN 1 AND ' + String(pending)),
  ).toBe(pending);
  expect((await replicaB.verify()).ok).toBe(true);
  // And A, restarted on the same database, finds nothing left to do.
  await replicaA.integrate();
  expect(await count('SELECT size AS n FROM chain_head WHERE id = 1')).toBe(pending);
});
