/**
 * The BullMQ scheduler and Redis change feed beyond the shared contract: several processes on one Redis, Redis down
 * at start, Redis killed and restarted. Each test runs its own `redis-server` on a free port.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestChange } from '../../../src/lifecycle/change-feed.js';
import { BullMQScheduler } from '../../../src/scheduler/bullmq.js';
import { RedisChangeFeed } from '../../../src/scheduler/redis-change-feed.js';
import { RecordingJobs } from '../../contracts/scheduler.contract.js';
import { PrivateRedis, freePort } from './redis.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(done: () => boolean | Promise<boolean>, what: string, limitMs = 10_000) {
  const deadline = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(10);
  }
}

/** Recording jobs that also count reconciliations (the gateway's catch-up after an outage). */
class ReconcilingJobs extends RecordingJobs {
  reconciled = 0;
  async reconcile() {
    this.reconciled++;
  }
}

describe('BullMQ scheduler and Redis change feed, with their own Redis', { timeout: 60_000 }, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function redis(start = true) {
    const server = new PrivateRedis(await freePort());
    cleanups.push(() => server.destroy());
    if (start) await server.start();
    return server;
  }
  /** Expiry jobs in Redis fire this long after their time (the scheduling process fires them on time, locally). */
  const BACKSTOP_MS = 1500;
  function scheduler(url: string, prefix: string) {
    // A long command timeout: on a loaded test machine a 2 s timeout would send calls through the retry buffer,
    // which reorders them across processes (harmless for the gateway, but this test counts handler calls).
    const s = new BullMQScheduler({
      connection: url,
      prefix,
      attempts: 3,
      backoffMs: 20,
      sweepEveryMs: 0,
      startWaitMs: 300,
      commandTimeoutMs: 15_000,
      expiryBackstopMs: BACKSTOP_MS,
    });
    cleanups.push(() => s.stop());
    return s;
  }
  function feed(url: string, prefix: string) {
    const f = new RedisChangeFeed({ connection: url, prefix });
    cleanups.push(() => f.close());
    return f;
  }

  /** Two started schedulers (two processes) on one fresh Redis and prefix, each with its own recording jobs. */
  async function twoStarted() {
    const server = await redis();
    const prefix = `t-${randomUUID()}`;
    const [a, b] = [scheduler(server.url, prefix), scheduler(server.url, prefix)];
    const [jobsA, jobsB] = [new RecordingJobs(Date.now), new RecordingJobs(Date.now)];
    await a.start(jobsA);
    await b.start(jobsB);
    return { a, b, jobsA, jobsB, prefix, url: server.url };
  }

  /** The Redis keys of the expiry queue's per-request jobs (`<prefix>:expiry:expire-<id>`). */
  async function jobKeys(url: string, prefix: string): Promise<string[]> {
    const client = new Redis(url);
    try {
      return (await client.keys(`${prefix}:expiry:expire-*`)).sort();
    } finally {
      client.disconnect();
    }
  }

  it('two processes that both scheduled 300 expiries due at one instant each fire every one they hold, once, on time, with no Redis job per request', async () => {
    const { a, b, jobsA, jobsB, prefix, url } = await twoStarted();
    const ids = Array.from({ length: 300 }, (_, i) => `r${i}`);
    // Both processes schedule every timer at once (as both reconcile at start), then B cancels a few (as the replica
    // that took the decision does). The instant is far enough ahead that all of this lands before it.
    const at = new Date(Date.now() + 3000);
    await Promise.all(ids.flatMap((id) => [a.scheduleExpiry(id, at), b.scheduleExpiry(id, at)]));
    expect(a.stats.buffered + b.stats.buffered).toBe(0);
    expect(await jobKeys(url, prefix)).toEqual([]); // the due-scan backs them up, not a job each
    await Promise.all(ids.slice(0, 5).map((id) => b.cancelExpiry(id)));
    await until(
      () => jobsA.of('expire').length >= 300 && jobsB.of('expire').length >= 295,
      'the local expiries',
      20_000,
    );
    // Past the backstop delay: a Redis job that had not been removed would fire now, a second time.
    await sleep(BACKSTOP_MS + 1000);
    const count = (jobs: RecordingJobs) => {
      const counts = new Map<string, number>();
      for (const call of jobs.of('expire')) counts.set(call.requestId!, (counts.get(call.requestId!) ?? 0) + 1);
      return counts;
    };
    // A still holds the five B cancelled: in the gateway that run reads a final row and does nothing.
    expect([...count(jobsA).keys()].sort()).toEqual([...ids].sort());
    expect([...count(jobsB).keys()].sort()).toEqual(ids.slice(5).sort());
    expect([...count(jobsA).values(), ...count(jobsB).values()].every((n) => n === 1)).toBe(true);
    expect(Math.min(...[...jobsA.of('expire'), ...jobsB.of('expire')].map((c) => c.at))).toBeGreaterThanOrEqual(
      at.getTime(),
    );
  });

  it("a reminder's wake-up whose process is gone fires from its Redis job in another process, the backstop delay after its time", async () => {
    const { a, jobsA, jobsB, prefix, url } = await twoStarted();
    // Far enough ahead that A is stopped before its local timer would fire, even on a loaded machine (with 300 ms,
    // reading the job keys sometimes took longer, A fired it itself, and the test failed without a fault).
    const at = new Date(Date.now() + 3000);
    await a.scheduleExpiry('orphan', at, new Date(at.getTime() + 60_000));
    expect(await jobKeys(url, prefix)).toEqual([`${prefix}:expiry:expire-orphan`]);
    await a.stop(); // its local timer goes with it; the job stays in Redis
    await until(() => jobsB.of('expire', 'orphan').length > 0, 'the backstop expiry', 20_000);
    expect(jobsA.of('expire')).toEqual([]);
    expect(jobsB.of('expire', 'orphan')[0]!.at).toBeGreaterThanOrEqual(at.getTime() + BACKSTOP_MS);
  });

  it("a request's expiry itself puts nothing in Redis: the due-scan, one job per interval for the whole cluster, backs it up", async () => {
    const { a, b, jobsA, jobsB, prefix, url } = await twoStarted();
    await Promise.all(['r1', 'r2', 'r3'].map((id) => a.scheduleExpiry(id, new Date(Date.now() + 60_000))));
    await a.scheduleExpiry('r4', new Date(Date.now() + 60_000), new Date(Date.now() + 60_000)); // no follow-up before it
    await a.scheduleExpiry('r5', new Date(Date.now() + 30_000), new Date(Date.now() + 60_000)); // a reminder first: a job
    await b.cancelExpiry('r1');
    expect(await jobKeys(url, prefix)).toEqual([`${prefix}:expiry:expire-r5`]);
    await a.scheduleExpiry('r5', new Date(Date.now() + 60_000)); // the reminder ran: its job goes
    await a.cancelExpiry('r4');
    expect(await jobKeys(url, prefix)).toEqual([]);
    // Both processes run the due-scan's worker, but its job scheduler makes one job per interval, not one per process.
    const started = Date.now();
    await until(() => jobsA.of('due-scan').length + jobsB.of('due-scan').length >= 2, 'two due-scans', 20_000);
    await sleep(3 * BACKSTOP_MS);
    const scans = jobsA.of('due-scan').length + jobsB.of('due-scan').length;
    expect(scans).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / BACKSTOP_MS) + 1);
  });

  it('with Redis down at start: start() returns, calls do not throw, health says why, and the work runs once Redis is up', async () => {
    const server = await redis(false);
    const s = scheduler(server.url, `t-${randomUUID()}`);
    const jobs = new ReconcilingJobs(Date.now);
    await s.start(jobs);
    // Reminders' wake-ups, which have Redis jobs (an expiry itself has none to buffer).
    const later = new Date(Date.now() + 60_000);
    await s.scheduleExpiry('r1', new Date(Date.now() + 100), later);
    await s.enqueueDelivery('r1', 'slack', 'C1');
    await s.scheduleExpiry('r2', new Date(Date.now() + 100), later);
    await s.cancelExpiry('r2');
    const health = await s.health();
    expect(health.ready).toBe(false);
    expect(health.detail).toMatch(/redis/);
    expect(s.stats.buffered).toBe(3);

    await server.start();
    await until(() => jobs.of('expire').length > 0 && jobs.of('deliver').length > 0, 'the buffered jobs');
    await until(async () => (await s.health()).ready, 'readiness');
    await sleep(150);
    expect(jobs.of('expire').map((c) => c.requestId)).toEqual(['r1']);
    expect(s.stats.buffered).toBe(0);
  });

  it(
    'stop() and close() with Redis unreachable let running handlers finish and return',
    { timeout: 15_000 },
    async () => {
      const server = await redis();
      const prefix = `t-${randomUUID()}`;
      const s = new BullMQScheduler({ connection: server.url, prefix, sweepEveryMs: 0, expiryBackstopMs: 0 });
      const f = feed(server.url, prefix);
      const jobs = new RecordingJobs(Date.now);
      let finished = false;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      jobs.behave = async () => {
        await gate;
        finished = true;
      };
      await s.start(jobs);
      await s.enqueueDelivery('r1', 'slack', 'C1');
      await until(() => jobs.calls.length === 1, 'the job to start');
      await server.kill();
      await until(async () => !(await s.health()).ready, 'the scheduler to notice');
      const stopping = s.stop();
      setTimeout(release, 50);
      await stopping;
      await f.close();
      expect(finished).toBe(true);
      expect(await s.health()).toEqual({ ready: false, detail: 'scheduler stopped' });
    },
  );

  it('Redis killed and restarted: timers set before still fire, calls during the outage are kept, a catch-up runs', async () => {
    const server = await redis();
    const s = scheduler(server.url, `t-${randomUUID()}`);
    const jobs = new ReconcilingJobs(Date.now);
    await s.start(jobs);
    const before = Date.now() + 1500;
    await s.scheduleExpiry('before', new Date(before));
    await server.kill();
    await until(async () => !(await s.health()).ready, 'the scheduler to notice');
    await s.scheduleExpiry('during', new Date(Date.now() + 200));
    await s.enqueueCallback('during');
    await server.start();
    await until(
      () => jobs.of('expire').length >= 2 && jobs.of('callback').length > 0,
      'both expiries and the callback',
      15_000,
    );
    expect(jobs.of('expire', 'before')[0]!.at).toBeGreaterThanOrEqual(before);
    expect(jobs.of('expire', 'before')).toHaveLength(1);
    await until(() => jobs.reconciled > 0, 'the catch-up reconciliation');
  });

  it('the change feed wakes every process once, ignores its own echo, and survives a Redis restart', async () => {
    const server = await redis();
    const prefix = `t-${randomUUID()}`;
    const [a, b] = [feed(server.url, prefix), feed(server.url, prefix)];
    await Promise.all([a.ready(), b.ready()]);
    const heardA: RequestChange[] = [];
    const heardB: RequestChange[] = [];
    a.subscribe((c) => heardA.push(c));
    b.subscribe((c) => heardB.push(c));
    const change: RequestChange = { requestId: 'r1', status: 'approved', kind: 'changed' };
    await a.publish(change);
    expect(heardA).toEqual([change]); // at once, before any Redis round trip
    await until(() => heardB.length === 1, 'the other process');
    expect(heardB).toEqual([change]);

    await server.kill();
    await expect(a.publish({ ...change, requestId: 'r2' })).resolves.toBeUndefined();
    await until(async () => !(await b.health()).ready, 'the feed to notice');
    expect((await b.health()).detail).toMatch(/redis/);
    await server.start();
    await until(async () => (await a.health()).ready && (await b.health()).ready, 'both feeds to reconnect');
    // Re-subscription after a reconnect is asynchronous: publish until the other side hears.
    const r3 = { ...change, requestId: 'r3' };
    await until(async () => {
      if (!heardA.some((c) => c.requestId === 'r3')) await b.publish(r3);
      return heardA.some((c) => c.requestId === 'r3');
    }, 'a change after the restart');
    await sleep(100);
    expect(heardA.filter((c) => c.requestId === 'r1')).toHaveLength(1);
  });

  it('closing the change feed first sends the changes still going out (the gateway does not wait for them)', async () => {
    const server = await redis();
    const prefix = `t-${randomUUID()}`;
    const [a, b] = [new RedisChangeFeed({ connection: server.url, prefix }), feed(server.url, prefix)];
    await Promise.all([a.ready(), b.ready()]);
    const heardB: RequestChange[] = [];
    b.subscribe((c) => heardB.push(c));
    const change: RequestChange = { requestId: 'last', status: 'approved', kind: 'changed' };
    void a.publish(change);
    await a.close();
    await until(() => heardB.length === 1, 'the change published just before close');
    expect(heardB).toEqual([change]);
  });

  it("the change feed sends a turn's changes as one message, which every process hears in order; one change of the earlier form is still heard", async () => {
    const server = await redis();
    const prefix = `t-${randomUUID()}`;
    const [a, b] = [feed(server.url, prefix), feed(server.url, prefix)];
    await Promise.all([a.ready(), b.ready()]);
    const spy = new Redis(server.url);
    cleanups.push(async () => spy.disconnect());
    const messages: string[] = [];
    spy.on('message', (_channel: string, message: string) => messages.push(message));
    await spy.subscribe(a.channel);
    const heardB: RequestChange[] = [];
    b.subscribe((c) => heardB.push(c));
    const changes: RequestChange[] = Array.from({ length: 50 }, (_, i) => ({
      requestId: `r${i}`,
      status: i % 2 ? 'approved' : 'pending',
      kind: i % 2 ? 'changed' : 'created',
    }));
    await Promise.all(changes.map((c) => a.publish(c)));
    await until(() => heardB.length === 50, 'the fifty changes');
    expect(heardB).toEqual(changes);
    expect(messages).toHaveLength(1);

    const older = new Redis(server.url);
    cleanups.push(async () => older.disconnect());
    await older.publish(
      a.channel,
      JSON.stringify({ origin: 'an-older-replica', change: { requestId: 'old', status: 'denied', kind: 'changed' } }),
    );
    await until(() => heardB.length === 51, 'the change of the earlier form');
    expect(heardB[50]).toEqual({ requestId: 'old', status: 'denied', kind: 'changed' });
  });
});
