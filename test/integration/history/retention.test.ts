/**
 * Configured retention (`TOLLGATE_RETENTION_DAYS`) on the running gateway, on SQLite and PostgreSQL, on a ManualClock:
 * nothing goes at start; a minute in, requests decided before the cut-off go (with their events), pending ones never,
 * and `GET /v1/audit/verify` still verifies, from the signed checkpoint; it runs again after the interval. On
 * PostgreSQL a replica that finds the retention lock held skips the run. A bad value stops the start, naming the
 * variable.
 */
import { Database } from '../../../src/stores/sqlite/driver.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedHistory } from '../../../bench/seed.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { loadConfig } from '../../../src/config.js';
import { copySqliteToPostgres } from '../../../src/stores/postgres/copy-from-sqlite.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresEventLog } from '../../../src/stores/postgres/event-log.js';
import { openDatabase } from '../../../src/stores/sqlite/database.js';
import { freshDatabase, withClient, type FreshDatabase } from '../postgres/fresh-database.js';
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

let dir: string;
let seeded: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-retention-'));
  seeded = join(dir, 'seed.db');
  seedHistory(seeded, { rows: ROWS });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

function retentionSuite(
  name: string,
  setup: () => Promise<{ db: string; rows: ReadRows; close(): Promise<void> }>,
  extra?: (ctx: () => { t: TestServer; clock: ManualClock; rows: ReadRows }) => void,
) {
  describe(`retention on ${name}`, () => {
    let db: string;
    let rows: ReadRows;
    let close: () => Promise<void>;
    let t: TestServer;
    let clock: ManualClock;
    beforeAll(async () => {
      ({ db, rows, close } = await setup());
      clock = new ManualClock(Date.now());
      t = await startTestServer({ dbPath: db, clock, env: { TOLLGATE_RETENTION_DAYS: String(DAYS) } });
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      await close();
    });

    it('prunes requests decided before the cut-off a minute in, never a pending one, and the chain still verifies', async () => {
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

    extra?.(() => ({ t, clock, rows }));
  });
}

retentionSuite('SQLite', async () => {
  const file = join(dir, 'sqlite.db');
  const source = new Database(seeded, { readonly: true });
  await source.backup(file);
  source.close();
  const rows: ReadRows = async () => {
    const db = new Database(file, { readonly: true });
    try {
      return new Map(
        (db.prepare('SELECT id, status, responded_at FROM confirmation_requests').all() as Row[]).map((r) => [r.id, r]),
      );
    } finally {
      db.close();
    }
  };
  return { db: file, rows, close: async () => undefined };
});

let url: string;
retentionSuite(
  'PostgreSQL',
  async () => {
    const fresh: FreshDatabase = await freshDatabase({ migrate: true });
    url = fresh.url;
    const source = openDatabase(seeded);
    const target = openPostgres(fresh.url, { poolSize: 1 });
    try {
      await copySqliteToPostgres(source, target);
    } finally {
      source.close();
      await target.close();
    }
    const rows: ReadRows = () =>
      withClient(fresh.url, async (c) => {
        const { rows: all } = await c.query<{ id: string; status: string; responded_at: Date | null }>(
          'SELECT id, status, responded_at FROM confirmation_requests',
        );
        return new Map(
          all.map((r) => [r.id, { id: r.id, status: r.status, responded_at: r.responded_at?.toISOString() ?? null }]),
        );
      });
    return { db: fresh.url, rows, close: () => fresh.drop() };
  },
  (ctx) => {
    it('skips a run while another replica holds the retention lock', async () => {
      const { t, clock, rows } = ctx();
      const other = openPostgres(url, { poolSize: 2 });
      try {
        const held = await new PostgresEventLog(other).exclusive('retention', async () => {
          const before = (await rows()).size;
          await clock.advance(3_600_000);
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
