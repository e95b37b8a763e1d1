/**
 * The due-scan on a real SQLite store: concurrent callers share scans, rows are stamped before their fan-out runs,
 * and `settled()` waits for the fan-out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { ExpiryScan } from '../../../src/lifecycle/expiry-scan.js';
import { Gateway } from '../../../src/gateway/gateway.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { createWebChannel } from '../../../channels/web/index.js';
import { applyMigrations, openDatabase } from '../../../src/stores/sqlite/database.js';
import { SqliteConfirmationStore } from '../../../src/stores/sqlite/store.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { T0, file } from '../../contracts/store-fixtures.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-scan-'));
  const open = openDatabase(join(dir, 'tollgate.db'));
  applyMigrations(open);
  const store = new SqliteConfirmationStore(open);
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // Filed 500 at a time: creates arriving together share one commit (the store's group commit), where one at a time
  // 3,500 synced commits took ~10 s of each test.
  for (let i = 0; i < count; i += 500) {
    const batch = Array.from({ length: Math.min(500, count - i) }, (_, j) => i + j);
    await Promise.all(batch.map((n) => file(store, { toolName: 'x', toolArgs: { i: n }, timeoutS: 10 }, T0)));
  }
  const clock = new ManualClock(T0.getTime() + 11_000);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const fannedOut: string[] = [];
  const scan = new ExpiryScan({
    store,
    clock,
    logger: pino({ level: 'silent' }),
    async fanOut(request: ConfirmationRequest) {
      await gate; // the fan-out of every expired request waits until the test lets it go
      fannedOut.push(request.id);
    },
  });
  return { store, scan, release, fannedOut };
}

describe('ExpiryScan', () => {
  it('stamps every due row without waiting for their fan-out, which settled() then waits for', async () => {
    const { store, scan, release, fannedOut } = await setup(1200);
    expect(await scan.run()).toBe(1200);
    expect(await store.countByStatus()).toMatchObject({ expired: 1200 });
    expect(fannedOut).toHaveLength(0);
    const settled = scan.settled();
    release();
    await settled;
    expect(new Set(fannedOut).size).toBe(1200);
  });

  it('twenty callers during a scan share it and one more scan, and each row expires once', async () => {
    const { store, scan, release } = await setup(50);
    release();
    const counts = await Promise.all(Array.from({ length: 20 }, () => scan.run()));
    expect(counts[0]).toBe(50);
    expect(counts.slice(1).every((n) => n === 0)).toBe(true);
    const events = await Promise.all((await store.list({ limit: 100 })).items.map((r) => store.events(r.id)));
    expect(events.map((e) => e.filter((x) => x.type === 'expired').length)).toEqual(Array(50).fill(1));
  });
});

describe('expiry timers and the due-scan together', () => {
  it('200 requests expiring together are stamped by shared scans, without one row read per timer', async () => {
    const { store } = await setup(0);
    let reads = 0;
    const counting = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'get') return (id: string) => (reads++, target.get(id));
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const clock = new ManualClock(T0.getTime());
    const gateway = new Gateway({
      store: counting,
      scheduler: new InProcessScheduler({ clock, sweepEveryMs: 0 }),
      channels: [createWebChannel()],
      clock,
    });
    await gateway.start();
    cleanups.unshift(() => gateway.stop());
    for (let i = 0; i < 200; i++) await gateway.request({ toolName: 'x', toolArgs: { i }, timeoutS: 10 });
    reads = 0;
    await clock.advance(10_000);
    expect(await store.countByStatus()).toMatchObject({ expired: 200, pending: 0 });
    expect(reads).toBe(0);
  });
});

describe("the size of a scan's batches", () => {
  /**
   * The limits one scan of `due` rows asks the store for, with the store's `expiryBatchLimit` and `expiryLanes` set
   * or not, and the most calls it had running at once.
   */
  async function limitsAsked(
    expiryBatchLimit: number | undefined,
    expiryLanes?: number,
    due = 3500,
    catchUp?: { catchUpBatchLimit: number | undefined },
  ): Promise<{ limits: number[]; inFlight: number }> {
    const { store, release } = await setup(due);
    release();
    const asked = { limits: [] as number[], inFlight: 0 };
    let running = 0;
    const recording = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'expiryBatchLimit') return expiryBatchLimit;
        if (key === 'expiryLanes') return expiryLanes;
        if (key === 'catchUpBatchLimit') return catchUp?.catchUpBatchLimit;
        if (key === 'expireDue') {
          return async (now: Date, limit: number) => {
            asked.limits.push(limit);
            asked.inFlight = Math.max(asked.inFlight, ++running);
            try {
              return await target.expireDue(now, limit);
            } finally {
              running--;
            }
          };
        }
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const scan = new ExpiryScan({
      store: recording,
      clock: new ManualClock(T0.getTime() + 11_000),
      logger: pino({ level: 'silent' }),
      fanOut: async () => undefined,
    });
    // A due-scan asked for during the catch-up (a scheduler's first job) waits for it and finds nothing left.
    if (catchUp) scan.expectCatchUp();
    const runs = catchUp ? [scan.run(), scan.catchUp()] : [scan.run()];
    expect((await Promise.all(runs)).reduce((sum, n) => sum + n, 0)).toBe(due);
    expect(await store.countByStatus()).toMatchObject({ expired: due, pending: 0 });
    return asked;
  }

  it("doubles while full, up to the store's expiryBatchLimit (a remote store)", async () => {
    expect(await limitsAsked(4000)).toEqual({ limits: [500, 1000, 2000, 4000], inFlight: 1 });
  });

  it('stays at 500 on a store without one (an embedded store keeps its transactions short)', async () => {
    expect(await limitsAsked(undefined)).toEqual({ limits: [500, 500, 500, 500, 500, 500, 500, 500], inFlight: 1 });
  });

  it('drains a backlog in as many lanes as the store runs side by side, one call at a time before it is known', async () => {
    const asked = await limitsAsked(4000, 2);
    expect(asked.limits.slice(0, 3)).toEqual([500, 1000, 1000]);
    expect(asked.inFlight).toBe(2);
  });

  it("catches up at start in batches of the store's catchUpBatchLimit (an embedded store, before it listens)", async () => {
    expect(await limitsAsked(undefined, undefined, 3500, { catchUpBatchLimit: 1000 })).toEqual({
      limits: [1000, 1000, 1000, 1000, 500],
      inFlight: 1,
    });
  });

  it('catches up as a scan that is behind on a store without one', async () => {
    expect(await limitsAsked(undefined, undefined, 1200, { catchUpBatchLimit: undefined })).toEqual({
      limits: [500, 500, 500, 500],
      inFlight: 1,
    });
  });

  it('lets the scans waiting for a catch-up run once a failed start releases them', async () => {
    const { store, release } = await setup(20);
    release();
    const scan = new ExpiryScan({
      store,
      clock: new ManualClock(T0.getTime() + 11_000),
      logger: pino({ level: 'silent' }),
      fanOut: async () => undefined,
    });
    const releaseWaiting = scan.expectCatchUp();
    let ran: number | null = null;
    const waiting = scan.run().then((n) => (ran = n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toBeNull();
    expect(await store.countByStatus()).toMatchObject({ pending: 20 });
    // The scheduler's start threw: no catch-up comes; the scan asked for meanwhile runs now.
    releaseWaiting();
    await waiting;
    expect(ran).toBe(20);
    expect(await store.countByStatus()).toMatchObject({ expired: 20, pending: 0 });
  });

  it('runs one call at a time when the first batch finds no backlog', async () => {
    expect(await limitsAsked(4000, 2, 120)).toEqual({ limits: [500], inFlight: 1 });
  });
});
