/**
 * The one contract suite of the audit integrator over a real {@link IntegrationStore} (docs/audit.md, "The proof"):
 * writers append events with no place; the real {@link Integrator} places them in batches, gap-free and chained, signs
 * checkpoints when due, gives way when another holder has the head, and runs once more for a call made during a run.
 * Each dialect's file gives fresh opened stores and a way to hold the head from another connection. Times come from a
 * {@link ManualClock} through the integrator's `now`; nothing here waits on the wall clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CHECKPOINT_EVERY_MS,
  Integrator,
  planBatch,
  type IntegrationStore,
  type IntegratorOptions,
} from '../../src/audit/integrator.js';
import { GENESIS_HASH } from '../../src/audit/encoding.js';
import { chainHash } from '../../src/audit/leaf.js';
import { KeyRing } from '../../src/audit/witness.js';
import type { OpenStores } from '../../src/stores/open-store.js';
import { ManualClock } from '../../src/utils/clock.js';
import { witness } from '../integration/audit/witnessed.js';
import { at, file, T0, vote } from './store-fixtures.js';

/** Stores under test, and another connection to their database. */
export interface AuditIntegrationHarness {
  stores: OpenStores;
  /**
   * Holds the integrator's head from another connection until the returned function is called (SQLite: the file's
   * write lock, `BEGIN IMMEDIATE`; PostgreSQL: the head row, `SELECT … FOR UPDATE`).
   */
  holdHead(): Promise<() => Promise<void>>;
  /** Closes the stores and removes what they left. */
  cleanup(): Promise<void>;
}

/** How the suite builds fresh, migrated, empty stores. */
export interface AuditIntegrationSetup {
  name: string;
  open(): Promise<AuditIntegrationHarness>;
}

/** Runs the contract against the stores `setup.open` gives. */
export function runAuditIntegrationContract(setup: AuditIntegrationSetup): void {
  describe(`audit integration contract: ${setup.name}`, () => {
    let h: AuditIntegrationHarness;
    let clock: ManualClock;
    let audit: Awaited<ReturnType<typeof witness>>;
    const now = () => new Date(clock.now());
    const integrator = (options: IntegratorOptions = {}, store: IntegrationStore = h.stores.integration) =>
      new Integrator(store, audit.witness, { now, ...options });
    /** Requests filed (one `created` event each) and decided (one more each), on the fixtures' fixed times. */
    const write = async (requests: number, fromSeconds = 0) => {
      for (let i = 0; i < requests; i++) {
        const r = await file(h.stores.store, { toolName: `tool_${fromSeconds}_${i}` }, at(fromSeconds + i));
        await h.stores.store.decide(r.id, vote(`web:user${i}`, 'approve', fromSeconds + i + 1));
      }
    };
    /** Every placed event, by seq. */
    const chain = async () =>
      (await h.stores.audit.rows(0, 10_000)).map(([seq, id, prevHash, hash, leaf]) => ({
        seq,
        id,
        prevHash,
        hash,
        leaf,
      }));
    const checkpoints = () => h.stores.audit.checkpoints(0, 100);

    beforeEach(async () => {
      h = await setup.open();
      clock = new ManualClock(T0.getTime() + 3_600_000);
      audit = await witness(h.stores, { now });
    });
    afterEach(async () => {
      await h.cleanup();
    });

    it('leaves the writes’ events pending until a batch; then seq 1..n in id order, chained, head at n', async () => {
      await write(3);
      const { events: n } = await h.stores.audit.pending();
      expect(n).toBeGreaterThanOrEqual(6);
      expect(await chain()).toEqual([]);
      expect(await h.stores.audit.head()).toBeNull();

      await integrator().runOnce();
      const placed = await chain();
      expect(placed.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      const ids = placed.map((e) => e.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      placed.forEach((e, i) => {
        expect(e.prevHash).toBe(i === 0 ? GENESIS_HASH : placed[i - 1]!.hash);
        expect(e.hash).toBe(chainHash(e.prevHash!, e.leaf ?? 'no leaf'));
      });
      expect(await h.stores.audit.head()).toMatchObject({ eventId: n, hash: placed[n - 1]!.hash });
      expect(await h.stores.audit.pending()).toEqual({ events: 0, oldestAt: null });
      expect(await audit.verify()).toMatchObject({ ok: true, events: n, requests: 3 });
    });

    it('takes at most `batch` events per batch; the rest wait and the next batch continues without a gap', async () => {
      await write(3);
      const { events: n } = await h.stores.audit.pending();
      const batch = (limit: number) =>
        h.stores.integration.integrate(limit, (head, pending) =>
          planBatch(head, pending, audit.witness, now(), { batch: limit }),
        );
      await expect(batch(2)).resolves.toBe(2);
      expect((await chain()).map((e) => e.id)).toHaveLength(2);
      expect(await h.stores.audit.pending()).toMatchObject({ events: n - 2 });
      await expect(batch(2)).resolves.toBe(2);
      expect((await chain()).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect(await h.stores.audit.pending()).toMatchObject({ events: n - 4 });

      // The integrator drains in batches of its size until a short one: everything placed, still gap-free.
      await integrator({ batch: 2 }).runOnce();
      const placed = await chain();
      expect(placed.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      placed.slice(1).forEach((e, i) => expect(e.prevHash).toBe(placed[i]!.hash));
      expect(await audit.verify()).toMatchObject({ ok: true, events: n });
    });

    it('signs a checkpoint when due while events arrive, none on a tick with nothing new; each verifies', async () => {
      const run = integrator();
      const keys = new KeyRing([audit.key.publicJwk]);
      await write(2);
      await run.runOnce();
      // The first batch that places events signs the first checkpoint.
      const [first, ...none] = await checkpoints();
      expect(none).toEqual([]);
      const size = (await chain()).length;
      expect(first).toMatchObject({ n: 1, size, head: (await h.stores.audit.head())!.hash, kind: 'head' });
      expect(first!.at).toBe(now().toISOString());
      expect(keys.checkCheckpoint(first!)).toBeNull();

      // Nothing new, long after: no checkpoint.
      await clock.advance(3 * CHECKPOINT_EVERY_MS);
      await run.runOnce();
      expect(await checkpoints()).toHaveLength(1);

      // Events after the idle time: the batch that places them signs, the interval being long up.
      await write(1, 100);
      await run.runOnce();
      const [, second] = await checkpoints();
      const grown = (await chain()).length;
      expect(grown).toBeGreaterThan(size);
      expect(second).toMatchObject({ n: 2, size: grown, head: (await h.stores.audit.head())!.hash, kind: 'head' });
      expect(keys.checkCheckpoint(second!)).toBeNull();

      // Events before the interval is up: placed, no checkpoint yet.
      await write(1, 200);
      await clock.advance(CHECKPOINT_EVERY_MS / 2);
      await run.runOnce();
      expect(await h.stores.audit.pending()).toMatchObject({ events: 0 });
      expect(await checkpoints()).toHaveLength(2);

      // The head moved past the last checkpoint: once the interval is up, a tick signs it even with nothing new…
      await clock.advance(CHECKPOINT_EVERY_MS / 2);
      await run.runOnce();
      const third = (await checkpoints())[2];
      expect(third).toMatchObject({ n: 3, size: (await chain()).length, head: (await h.stores.audit.head())!.hash });
      expect(keys.checkCheckpoint(third!)).toBeNull();
      // …and none after it while nothing arrives.
      await clock.advance(3 * CHECKPOINT_EVERY_MS);
      await run.runOnce();
      expect(await checkpoints()).toHaveLength(3);
      expect(await audit.verify()).toMatchObject({ ok: true });
    });

    it('writes nothing when the plan returns null', async () => {
      await write(1);
      await integrator().runOnce();
      const before = { head: await h.stores.audit.head(), chain: await chain(), checkpoints: await checkpoints() };
      await write(2, 100);
      const { events } = await h.stores.audit.pending();
      await expect(h.stores.integration.integrate(100, () => null)).resolves.toBe(events);
      expect({ head: await h.stores.audit.head(), chain: await chain(), checkpoints: await checkpoints() }).toEqual(
        before,
      );
      expect(await h.stores.audit.pending()).toMatchObject({ events });
    });

    it('gives way at once while another connection holds the head; the events wait for the next batch', async () => {
      await write(2);
      const { events: n } = await h.stores.audit.pending();
      const release = await h.holdHead();
      try {
        // Resolved while the holder still holds: a wait for it would never end here.
        let planned = false;
        await expect(
          h.stores.integration.integrate(100, () => {
            planned = true;
            return null;
          }),
        ).resolves.toBeNull();
        expect(planned).toBe(false);
        await expect(integrator().runOnce()).resolves.toBeUndefined();
        expect(await h.stores.audit.pending()).toMatchObject({ events: n });
        expect(await chain()).toEqual([]);
        // Where the stores differ by design: with nothing pending and no checkpoint due, SQLite answers 0 without
        // taking its write lock (an idle tick must not contend with writers), PostgreSQL still meets the held head
        // (null); both mean "nothing placed", so the contract holds the head only with events pending.
      } finally {
        await release();
      }
      await integrator().runOnce();
      expect((await chain()).map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(await audit.verify()).toMatchObject({ ok: true, events: n });
    });

    it('runs once more for calls made during a run: an event committed meanwhile is placed when they resolve', async () => {
      await write(1);
      // The real store, with its first batch held after it committed (the run is in flight, its read is done).
      let calls = 0;
      let resume!: () => void;
      const held = new Promise<void>((resolve) => (resume = resolve));
      let entered!: () => void;
      const inFlight = new Promise<void>((resolve) => (entered = resolve));
      const store: IntegrationStore = {
        integrate: async (limit, plan) => {
          const read = await h.stores.integration.integrate(limit, plan);
          if (++calls === 1) {
            entered();
            await held;
          }
          return read;
        },
      };
      const run = integrator({}, store);
      const first = run.runOnce();
      await inFlight;
      const before = (await chain()).length;
      await write(1, 100);
      const late = [run.runOnce(), run.runOnce()];
      resume();
      await Promise.all([first, ...late]);
      const { events } = await h.stores.audit.pending();
      expect(events).toBe(0);
      expect((await chain()).length).toBeGreaterThan(before);
      // The calls made during the run shared one more run.
      expect(calls).toBe(2);
      expect(await audit.verify()).toMatchObject({ ok: true, requests: 2 });
    });

    it('reports the backlog: pending events and the oldest one’s time, zero after integration', async () => {
      expect(await h.stores.audit.pending()).toEqual({ events: 0, oldestAt: null });
      await write(2);
      const { events: n, oldestAt } = await h.stores.audit.pending();
      expect(n).toBeGreaterThanOrEqual(4);
      // The first request's `created` event, at T0: its age is read against the caller's clock.
      expect(oldestAt).toBe(T0.toISOString());
      expect(clock.now() - Date.parse(oldestAt!)).toBe(3_600_000);
      await h.stores.integration.integrate(1, (head, pending) =>
        planBatch(head, pending, audit.witness, now(), { batch: 1 }),
      );
      // The oldest placed, the next oldest (its approval, a second later) heads the backlog.
      expect(await h.stores.audit.pending()).toEqual({ events: n - 1, oldestAt: at(1).toISOString() });
      await integrator().runOnce();
      expect(await h.stores.audit.pending()).toEqual({ events: 0, oldestAt: null });
    });
  });
}
