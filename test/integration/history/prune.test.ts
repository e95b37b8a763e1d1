/**
 * `tollgate prune --before DATE` on SQLite and PostgreSQL: decided requests older than DATE go with their events, in
 * batches; pending ones stay; the audit chain then verifies from the signed checkpoint, and tampering after the prune
 * (an edited event, a deleted first event, a forged checkpoint) is still caught. A bad DATE is a usage error.
 */
import { Database } from '../../../src/stores/sqlite/driver.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { run as audit } from '../../../src/cli/audit.js';
import { main } from '../../../src/cli/main.js';
import { withClient } from '../postgres/fresh-database.js';
import { seededHistory, type HistoryCopy, type SeededHistory } from './seeded-history.js';
import { capturedOutput } from '../../helpers/captured-output.js';
import { startTestServer } from '../../helpers/server.js';

const ROWS = 3000;
const DAY = 86_400_000;

/** Runs the CLI in-process; resolves with its exit code and what it printed. */
const cli = (...argv: string[]) => capturedOutput(() => (argv[0] === 'audit' ? audit(argv.slice(1)) : main(argv)));

/** What a database holds, by the queries an auditor would run. */
interface Sql {
  one(sql: string): Promise<number>;
  exec(sql: string): Promise<void>;
}

function sqliteSql(file: string): Sql {
  return {
    async one(sql) {
      const db = new Database(file);
      try {
        return Number(db.prepare(sql).pluck().get());
      } finally {
        db.close();
      }
    },
    async exec(sql) {
      const db = new Database(file);
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
    },
  };
}

function postgresSql(url: string): Sql {
  return {
    one: (sql) => withClient(url, async (c) => Number(Object.values((await c.query(sql)).rows[0] as object)[0])),
    exec: (sql) => withClient(url, async (c) => void (await c.query(sql))),
  };
}

let history: SeededHistory;
/** Every ROWS/1000-th row is pending, filed across the year: the oldest one stops the prune a third of the way in. */
const before = new Date(Date.now() - 100 * DAY).toISOString().slice(0, 10);

beforeAll(() => {
  history = seededHistory(ROWS);
}, 60_000);
afterAll(() => history.close());

/**
 * Each test prunes, tampers with or counts a database of its own (dropped when it ends), so the tests pass in any
 * order: a copy of the seeded rows, or of rows one prune has already gone through (that prune made once per dialect).
 */
function pruneSuite(name: string, copy: (source?: HistoryCopy) => Promise<HistoryCopy>, sqlOf: (db: string) => Sql) {
  describe(`tollgate prune on ${name}`, () => {
    let prunedOnce: HistoryCopy;
    // Seeding the dialect and the one prune take seconds each on a busy machine: not in a test's time.
    beforeAll(async () => {
      prunedOnce = await copy();
      const r = await cli('prune', '--db', prunedOnce.db, '--before', before);
      if (r.code !== 0) throw new Error(r.stderr);
    }, 120_000);
    afterAll(() => prunedOnce?.drop());

    async function own(source?: HistoryCopy): Promise<{ db: string; sql: Sql }> {
      const c = await copy(source);
      onTestFinished(() => c.drop());
      return { db: c.db, sql: sqlOf(c.db) };
    }
    const seeded = () => own();
    const pruned = () => own(prunedOnce);

    it('refuses a bad or future --before, and a missing one, saying what to give', async () => {
      const { db } = await seeded();
      for (const [arg, says] of [
        ['yesterday', 'not a date'],
        ['2026-13-45', 'not a date'],
        ['2999-01-01', 'in the future'],
      ] as const) {
        const r = await cli('prune', '--db', db, '--before', arg);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(says);
      }
      const missing = await cli('prune', '--db', db);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--before DATE is required');
    });

    it('a dry run counts and deletes nothing', async () => {
      const { db, sql } = await seeded();
      const requests = await sql.one('SELECT count(*) FROM confirmation_requests');
      const r = await cli('prune', '--db', db, '--before', before, '--dry-run', '--json');
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as { requests: number; dryRun: boolean };
      expect(report.dryRun).toBe(true);
      expect(report.requests).toBeGreaterThan(500);
      expect(await sql.one('SELECT count(*) FROM confirmation_requests')).toBe(requests);
      expect(await sql.one('SELECT count(*) FROM audit_checkpoints')).toBe(0);
    });

    it('deletes decided requests and their events in batches, keeps pending ones, and the chain verifies from the checkpoint', async () => {
      const { db, sql } = await seeded();
      const requests = await sql.one('SELECT count(*) FROM confirmation_requests');
      const events = await sql.one('SELECT count(*) FROM confirmation_events');
      const pending = await sql.one("SELECT count(*) FROM confirmation_requests WHERE status = 'pending'");
      const r = await cli('prune', '--db', db, '--before', before, '--batch', '200', '--json');
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as {
        requests: number;
        events: number;
        batches: number;
        checkpoint: { eventId: number };
        chainStartsAt: number;
        stoppedAt: { reason: string };
      };
      expect(report.requests).toBeGreaterThan(500);
      expect(report.batches).toBeGreaterThan(2);
      // The oldest pending request holds the chain: everything before it went, it and what follows stayed.
      expect(report.stoppedAt.reason).toContain('pending');
      expect(await sql.one('SELECT count(*) FROM confirmation_requests')).toBe(requests - report.requests);
      expect(await sql.one('SELECT count(*) FROM confirmation_events')).toBe(events - report.events);
      expect(await sql.one("SELECT count(*) FROM confirmation_requests WHERE status = 'pending'")).toBe(pending);
      expect(await sql.one('SELECT min(id) FROM confirmation_events')).toBe(report.chainStartsAt);
      expect(
        await sql.one(
          `SELECT count(*) FROM channel_messages WHERE request_id NOT IN (SELECT id FROM confirmation_requests)`,
        ),
      ).toBe(0);

      const verified = await cli('audit', 'verify', '--db', db);
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      expect(verified.stdout).toContain(`starts after the signed prune checkpoint at seq ${report.checkpoint.eventId}`);
      const json = JSON.parse((await cli('audit', 'verify', '--db', db, '--json')).stdout) as {
        ok: boolean;
        checkpoint: { signature_checked: boolean };
      };
      expect(json).toMatchObject({ ok: true, checkpoint: { signature_checked: true } });

      // Said in words too; a second prune with the same date finds nothing more.
      const again = await cli('prune', '--db', db, '--before', before);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('pruned 0 requests, 0 events');
      expect(again.stdout).toContain('nothing to prune: the audit chain is unchanged');
      expect(again.stdout).toMatch(/stopped at request \S+ \(seq \d+\): it is pending/);
    });

    it('GET /v1/audit/verify on the running gateway starts from the checkpoint and checks its signature', async () => {
      const { db } = await pruned();
      const t = await startTestServer({ dbPath: db });
      try {
        const report = (await (await t.api('/v1/audit/verify')).json()) as {
          ok: boolean;
          checkpoint: { signature_checked: boolean } | null;
        };
        expect(report).toMatchObject({ ok: true, checkpoint: { signature_checked: true } });
      } finally {
        await t.close();
      }
    });

    it('catches tampering after the prune: an edited event, a deleted first event, a forged checkpoint', async () => {
      const { db, sql } = await pruned();
      const first = await sql.one('SELECT min(id) FROM confirmation_events');
      const verify = async () =>
        JSON.parse((await cli('audit', 'verify', '--db', db, '--json')).stdout) as {
          ok: boolean;
          problem: { kind: string } | null;
        };

      await sql.exec(`UPDATE confirmation_events SET actor = 'mallory' WHERE id = ${first + 3}`);
      expect((await verify()).problem?.kind).toBe('edited');
      await sql.exec(`UPDATE confirmation_events SET actor = NULL WHERE id = ${first + 3}`);
      expect((await verify()).ok).toBe(true);

      const hash = await sql.one(`SELECT count(*) FROM audit_checkpoints`);
      expect(hash).toBe(1);
      await sql.exec(`UPDATE audit_checkpoints SET event_id = event_id - 1`);
      expect((await verify()).problem?.kind).toBe('bad_checkpoint');
      await sql.exec(`UPDATE audit_checkpoints SET event_id = event_id + 1`);
      expect((await verify()).ok).toBe(true);

      // Cutting the chain further by hand (the first event and its request's other rows) breaks the link to the checkpoint.
      await sql.exec(`DELETE FROM confirmation_events WHERE id = ${first}`);
      expect((await verify()).problem?.kind).toBe('missing_or_inserted');
      // And prune refuses to go on from a broken chain.
      const refused = await cli('prune', '--db', db, '--before', before);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('refused: the audit chain is broken');
    });
  });
}

pruneSuite('SQLite', (source) => history.sqliteCopy(source), sqliteSql);
pruneSuite('PostgreSQL', (source) => history.postgresCopy(source), postgresSql);
