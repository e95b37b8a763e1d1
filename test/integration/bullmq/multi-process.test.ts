/**
 * Several gateway processes on one SQLite file and one private redis-server: cross-process wake-ups, a SIGKILLed
 * gateway's work taken over, Redis killed and restarted, Redis down at start, and 1,000 simultaneous expiries.
 * These tests wait real seconds on purpose: the gateways are child processes (and Redis a real server whose delayed
 * jobs run on its own time), so they cannot share a ManualClock with the test; timeouts are kept to a few seconds.
 *
 * Over 30 s: six scenarios, each with its own redis-server and two or three gateway processes, waiting out real
 * deadlines; it runs in vitest.config.ts's `waiting` project, beside the other files that wait.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { Gateway } from '../../../src/gateway/gateway.js';
import { applyMigrations, openDatabase } from '../../../src/stores/sqlite/database.js';
import { SqliteConfirmationStore } from '../../../src/stores/sqlite/store.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { startRedisGateway, type RedisGateway, type RedisGatewayOptions } from './gateways.js';
import { PrivateRedis, freePort } from './redis.js';
import { FakeSlack } from '../../fakes/slack/fake-slack.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(done: () => boolean | Promise<boolean>, what: string, limitMs = 20_000) {
  const deadline = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

interface ApiRequest {
  id: string;
  status: string;
  expires_at: string;
  responded_at: string | null;
}

describe('several gateway processes on one database and one Redis', { timeout: 120_000 }, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  async function setup(options: { startRedis?: boolean } = {}) {
    const redis = new PrivateRedis(await freePort());
    cleanups.push(() => redis.destroy());
    if (options.startRedis !== false) await redis.start();
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-multi-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const dbPath = join(dir, 'tollgate.db');
    const gateway = async (options: RedisGatewayOptions = {}) => {
      const g = await startRedisGateway(dbPath, redis.url, options);
      cleanups.push(() => g.kill('SIGKILL'));
      return g;
    };
    /** Plain SQL against the shared file, as an auditor would. */
    const sql = <T>(query: string, ...params: unknown[]): T[] => {
      const db = new Database(dbPath, { readonly: true, fileMustExist: true });
      try {
        return db.prepare(query).all(...params) as T[];
      } finally {
        db.close();
      }
    };
    return { redis, dbPath, gateway, sql };
  }

  const create = (g: RedisGateway, body: Record<string, unknown>) =>
    g.json<ApiRequest>(
      '/v1/requests',
      { body: { tool_name: 'pay_invoice', tool_args: { amount: 120 }, ...body } },
      201,
    );
  const expiredEvents = (sql: <T>(q: string) => T[]) =>
    sql<{ request_id: string; n: number }>(
      "select request_id, count(*) as n from confirmation_events where type = 'expired' group by request_id",
    );

  /** Whether `promise` has settled within `ms` (without consuming its result). */
  const settledWithin = (promise: Promise<unknown>, ms: number) =>
    Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      sleep(ms).then(() => false),
    ]);

  it('a decision on one gateway wakes a long-poll parked on the other, through the Redis change feed', async () => {
    const { gateway, dbPath } = await setup();
    const a = await gateway();
    const b = await gateway();
    expect(a.process.pid).not.toBe(b.process.pid); // two processes: nothing is shared but the file and Redis
    const request = await create(a, { timeout_s: 120 });

    // The long-poll is parked on B: after a second it still has not answered (a waiter returns only when woken or
    // when its 25 s run out — the gateway never re-reads the row on a timer).
    const started = Date.now();
    const waiting = b.json<ApiRequest>(`/v1/requests/${request.id}?wait=25`, {}, 200);
    expect(await settledWithin(waiting, 1000)).toBe(false);

    // The decision is made on A; B answers long before its own 25 s timeout, so the change reached it over Redis.
    await a.json(`/v1/requests/${request.id}/decision`, { body: { decision: 'approve', approver: 'web:alice' } }, 200);
    expect((await waiting).status).toBe('approved');
    expect(Date.now() - started).toBeLessThan(10_000);

    // Negative control: a change that bypasses the feed (written straight into the shared file, as no gateway
    // would) does not wake a waiter on B — it answers only when its own 3 s wait ends.
    const quiet = await create(a, { timeout_s: 120 });
    const controlStarted = Date.now();
    const control = b.json<ApiRequest>(`/v1/requests/${quiet.id}?wait=3`, {}, 200);
    expect(await settledWithin(control, 500)).toBe(false);
    const db = new Database(dbPath, { fileMustExist: true });
    try {
      db.prepare("update confirmation_requests set status = 'denied' where id = ?").run(quiet.id);
    } finally {
      db.close();
    }
    await control;
    expect(Date.now() - controlStarted).toBeGreaterThanOrEqual(2_900);
  });

  it("a SIGKILLed gateway's pending requests expire on the other, once each, and their cards are updated", async () => {
    const { gateway, sql } = await setup();
    const slack = await FakeSlack.start({ token: 'xoxb-test' });
    cleanups.push(() => slack.close());
    const options = {
      env: { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'test-secret', SLACK_API_URL: slack.apiUrl },
      sweepEverySeconds: 600,
    };
    const a = await gateway(options);
    const b = await gateway(options);
    const requests = await Promise.all(
      Array.from({ length: 5 }, () => create(a, { timeout_s: 3, channels: [{ type: 'slack', target: 'C0123' }] })),
    );
    await until(() => slack.callsTo('chat.postMessage').length >= 5, 'the five cards');
    // Kill only once the message references are committed: a card posted in the instant before a crash, with its
    // reference not yet written, cannot be found again (Slack has no idempotency key to look it up by).
    await until(
      () =>
        sql<{ n: number }>(
          "select count(*) as n from channel_messages where status = 'sent' and message_ref is not null",
        )[0]!.n >= 5,
      'the five card references',
    );
    await a.kill('SIGKILL');
    // Read from the file, not B's API: the cluster's due-scan expires them (up to 5 s after their time, as A's own
    // timers died with it), and polling five requests every 50 ms that long meets B's rate limit.
    const ids = requests.map((r) => `'${r.id}'`).join(',');
    await until(
      () =>
        sql<{ n: number }>(
          `select count(*) as n from confirmation_requests where status = 'expired' and id in (${ids})`,
        )[0]!.n === 5,
      'the requests to expire on the other gateway',
    );
    for (const r of requests) expect((await b.json<ApiRequest>(`/v1/requests/${r.id}`)).status).toBe('expired');
    const events = expiredEvents(sql);
    expect(events.map((e) => e.n)).toEqual([1, 1, 1, 1, 1]);
    await until(
      () => new Set(slack.callsTo('chat.update').map((c) => c.params.ts)).size >= 5,
      'the five cards to be updated',
    );
    expect(slack.callsTo('chat.postMessage')).toHaveLength(5); // no card sent twice
  });

  it('Redis SIGKILLed and restarted mid-run: requests scheduled before and during the outage still expire', async () => {
    const { redis, gateway, sql } = await setup();
    const a = await gateway({ sweepEverySeconds: 600 });
    const before = await Promise.all([1, 2, 3].map(() => create(a, { timeout_s: 3 })));
    await redis.kill();
    // Redis is gone: requests are still accepted and decided.
    const during = await create(a, { timeout_s: 2 });
    const decided = await create(a, { timeout_s: 60 });
    await a.json(`/v1/requests/${decided.id}/decision`, { body: { decision: 'deny', approver: 'web:bob' } }, 200);
    const ready = await a.api('/readyz');
    expect(ready.status).toBe(503);
    await sleep(1000);
    await redis.start();
    await until(async () => {
      const rows = await Promise.all([...before, during].map((r) => a.json<ApiRequest>(`/v1/requests/${r.id}`)));
      return rows.every((r) => r.status === 'expired');
    }, 'every request to expire');
    for (const row of sql<{ expires_at: string; responded_at: string }>(
      "select expires_at, responded_at from confirmation_requests where status = 'expired'",
    )) {
      expect(Date.parse(row.responded_at)).toBeGreaterThanOrEqual(Date.parse(row.expires_at));
    }
    expect(expiredEvents(sql).map((e) => e.n)).toEqual([1, 1, 1, 1]);
    await until(async () => (await a.api('/readyz')).status === 200, 'readiness after Redis is back');
  });

  it('Redis down at start: serve starts, /readyz says what is not ready, requests are accepted and decided, and expiries catch up', async () => {
    const { redis, gateway } = await setup({ startRedis: false });
    const a = await gateway();
    const readyz = await a.api('/readyz');
    expect(readyz.status).toBe(503);
    const body = (await readyz.json()) as { checks: Record<string, { ready: boolean; detail?: string }> };
    expect(body.checks.database!.ready).toBe(true);
    expect(body.checks.scheduler).toMatchObject({ ready: false, detail: expect.stringMatching(/redis/) });
    const expiring = await create(a, { timeout_s: 1 });
    const decided = await create(a, { timeout_s: 60 });
    expect(
      (
        await a.json<ApiRequest>(
          `/v1/requests/${decided.id}/decision`,
          { body: { decision: 'approve', approver: 'web:alice' } },
          200,
        )
      ).status,
    ).toBe('approved');
    await redis.start();
    await until(
      async () => (await a.json<ApiRequest>(`/v1/requests/${expiring.id}`)).status === 'expired',
      'the expiry once Redis is up',
    );
    await until(async () => (await a.api('/readyz')).status === 200, 'readiness');
  });

  it('SIGTERM: a gateway drains and exits on its own, and its timers stay in Redis for the others', async () => {
    const { gateway, sql } = await setup();
    const a = await gateway({ sweepEverySeconds: 600 });
    const request = await create(a, { timeout_s: 4 });
    // Exiting by itself (no process.exit) means workers, HTTP, Redis and the database were all closed.
    expect(await a.kill('SIGTERM')).toBe(0);
    const b = await gateway({ sweepEverySeconds: 600 });
    await until(
      async () => (await b.json<ApiRequest>(`/v1/requests/${request.id}`)).status === 'expired',
      'the expiry on the other gateway',
    );
    expect(expiredEvents(sql)).toEqual([{ request_id: request.id, n: 1 }]);
  });

  it('1,000 requests expiring in the same second on two gateways: each expires exactly once, with one event', async () => {
    const { dbPath, gateway, sql } = await setup();
    // File the requests straight into the database, all with the same expires_at, then let both gateways
    // reconcile them at start: both schedule every timer, and their workers compete when the instant comes.
    const open = openDatabase(dbPath);
    applyMigrations(open);
    const clock = new ManualClock(Date.now());
    const filer = new Gateway({
      store: new SqliteConfirmationStore(open),
      scheduler: new InProcessScheduler({ clock }),
      clock,
    });
    // 250 at a time, which the store commits together (one at a time, 1,000 synced commits took seconds).
    for (let i = 0; i < 1000; i += 250)
      await Promise.all(
        Array.from({ length: 250 }, (_, j) =>
          filer.request({ toolName: 'pay_invoice', toolArgs: { n: i + j }, timeoutS: 15, channels: [] }),
        ),
      );
    open.close();
    const expiresAt = Date.parse(sql<{ e: string }>('select min(expires_at) as e from confirmation_requests')[0]!.e);
    expect(sql<{ n: number }>('select count(distinct expires_at) as n from confirmation_requests')[0]!.n).toBe(1);

    await Promise.all([gateway({ sweepEverySeconds: 600 }), gateway({ sweepEverySeconds: 600 })]);
    await until(
      () =>
        sql<{ n: number }>("select count(*) as n from confirmation_requests where status = 'expired'")[0]!.n === 1000,
      'all 1,000 to expire',
      60_000,
    );
    await sleep(500);
    const events = expiredEvents(sql);
    expect(events).toHaveLength(1000);
    expect(events.filter((e) => e.n !== 1)).toEqual([]);
    const early = sql<{ n: number }>(
      'select count(*) as n from confirmation_requests where responded_at < expires_at',
    )[0]!.n;
    expect(early).toBe(0);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
  });
});
