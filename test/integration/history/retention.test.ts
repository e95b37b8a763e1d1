/**
 * Configured retention (`TOLLGATE_RETENTION_DAYS`) on the running gateway, on SQLite and PostgreSQL, on a ManualClock:
 * nothing goes at start; a minute in, requests decided before the cut-off go (with their events), pending ones never,
 * and `GET /v1/audit/verify` still verifies, from the signed checkpoint; it runs again after the interval. On
 * PostgreSQL a replica that finds the retention lock held skips the run. A bad value stops the start, naming the
 * variable.
 */
import { Database } from '../../../src/stores/sqlite/driver.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { loadConfig } from '../../../src/config.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresEventLog } from '../../../src/stores/postgres/event-log.js';
import { withClient } from '../postgres/fresh-database.js';
import { seededHistory, type HistoryCopy, type SeededHistory } from './seeded-history.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const ROWS = 2000;
const DAY = 86_400_000;
const DAYS = 100;

/** A request as the database holds it. */
interface Row {
  id: string;
  status: string;
  responded_at: string | null;
}

/** Every request, by the query an auditor would run. */
type ReadRows = () => Promise<Map<string, Row>>;

let history: SeededHistory;

beforeAll(() => {
  history = seededHistory(ROWS);
}, 60_000);
afterAll(() => history.close());

it('TOLLGATE_RETENTION_DAYS: a bad value names the variable and what it takes; unset keeps everything', () => {
  for (const bad of ['0', '-3', '1.5', 'a year', '30d']) {
    expect(() => loadConfig({}, { TOLLGATE_RETENTION_DAYS: bad })).toThrow(
      /TOLLGATE_RETENTION_DAYS: expected a whole number of days, 1 or more/,
    );
  }
  expect(loadConfig({}, { TOLLGATE_RETENTION_DAYS: ' 90 ' }).retentionDays).toBe(90);
  expect(loadConfig({}, {}).retentionDays).toBeNull();
  expect(loadConfig({}, { TOLLGATE_RETENTION_DAYS: '' }).retentionDays).toBeNull();
});

/** A gateway of one test, on its own copy of the seeded rows and its own clock. */
interface Started {
  t: TestServer;
  clock: ManualClock;
  rows: ReadRows;
  db: string;
}

/**
 * Each test starts a gateway on a copy of the seeded rows of its own (closed and dropped when it ends): what one run
 * of retention deleted, and where its clock stands, are no other test's starting point.
 */
function retentionSuite(
  name: string,
  copy: () => Promise<HistoryCopy>,
  readRows: (db: string) => ReadRows,
  extra?: (start: () => Promise<Started>) => void,
) {
  describe(`retention on ${name}`, () => {
    // The first copy builds the dialect's seeded rows (seconds on a busy machine): not in a test's time.
    beforeAll(() => copy().then((c) => c.drop()), 120_000);

    async function start(): Promise<Started> {
      const c = await copy();
      const clock = new ManualClock(Date.now());
      const t = await startTestServer({ dbPath: c.db, clock, env: { TOLLGATE_RETENTION_DAYS: String(DAYS) } }).catch(
        async (error: unknown) => {
          await c.drop();
          throw error;
        },
      );
      // The gateway first: PostgreSQL drops a database only once nobody is connected (FORCE ends them, not cleanly).
      onTestFinished(async () => {
        await t.close();
        await c.drop();
      });
      return { t, clock, rows: readRows(c.db), db: c.db };
    }

    it('prunes requests decided before the cut-off a minute in, never a pending one, and the chain still verifies', async () => {
      const { t, clock, rows } = await start();
      const before = await rows();
      // Nothing at start: the first run is a minute in.
      await clock.advance(59_000);
      await t.server.retention!.whenIdle();
      expect(t.server.retention!.last).toBeNull();
      expect((await rows()).size).toBe(before.size);

      await clock.advance(1_000);
      await t.server.retention!.whenIdle();
      const report = t.server.retention!.last?.report;
      expect(report?.requests).toBeGreaterThan(100);
      const cutoff = new Date(clock.now() - DAYS * DAY).toISOString();
      const after = await rows();
      const gone = [...before.values()].filter((r) => !after.has(r.id));
      expect(gone).toHaveLength(report!.requests);
      for (const r of gone) {
        expect(r.status).not.toBe('pending');
        expect(
          new Date(r.responded_at!).toISOString() < cutoff,
          `${r.id} decided ${r.responded_at}, cut-off ${cutoff}`,
        ).toBe(true);
      }
      for (const r of before.values()) if (r.status === 'pending') expect(after.has(r.id)).toBe(true);

      const verified = (await (await t.api('/v1/audit/verify')).json()) as {
        ok: boolean;
        checkpoint: { event_id: number; signature_checked: boolean } | null;
      };
      expect(verified).toMatchObject({
        ok: true,
        checkpoint: { event_id: report!.checkpoint!.eventId, signature_checked: true },
      });
    });

    it('runs again after the interval (an hour)', async () => {
      const { t, clock } = await start();
      await clock.advance(60_000);
      await t.server.retention!.whenIdle();
      const first = t.server.retention!.last!.at.getTime();
      await clock.advance(3_599_000);
      await t.server.retention!.whenIdle();
      expect(t.server.retention!.last!.at.getTime()).toBe(first);
      await clock.advance(1_000);
      await t.server.retention!.whenIdle();
      expect(t.server.retention!.last!.at.getTime()).toBe(first + 3_600_000);
      expect(t.server.retention!.last!.report).not.toBeNull();
      expect(((await (await t.api('/v1/audit/verify')).json()) as { ok: boolean }).ok).toBe(true);
    });

    extra?.(start);
  });
}

retentionSuite(
  'SQLite',
  () => history.sqliteCopy(),
  (file) => async () => {
    const db = new Database(file, { readonly: true });
    try {
      return new Map(
        (db.prepare('SELECT id, status, responded_at FROM confirmation_requests').all() as Row[]).map((r) => [r.id, r]),
      );
    } finally {
      db.close();
    }
  },
);

retentionSuite(
  'PostgreSQL',
  () => history.postgresCopy(),
  (url) => () =>
    withClient(url, async (c) => {
      const { rows: all } = await c.query<{ id: string; status: string; responded_at: Date | null }>(
        'SELECT id, status, responded_at FROM confirmation_requests',
      );
      return new Map(
        all.map((r) => [r.id, { id: r.id, status: r.status, responded_at: r.responded_at?.toISOString() ?? null }]),
      );
    }),
  (start) => {
    it('skips a run while another replica holds the retention lock', async () => {
      const { t, clock, rows, db } = await start();
      const other = openPostgres(db, { poolSize: 2 });
      try {
        const held = await new PostgresEventLog(other).exclusive('retention', async () => {
          const before = (await rows()).size;
          // The first run, a minute in, finds the lock held.
          await clock.advance(60_000);
          await t.server.retention!.whenIdle();
          expect(t.server.retention!.last).toMatchObject({ at: new Date(clock.now()), report: null });
          expect((await rows()).size).toBe(before);
        });
        expect(held).toBe(true);
      } finally {
        await other.close();
      }
    });
  },
);
