/**
 * `Integrator.runOnce()` is what `audit verify` and the event stream call so that what was just committed is in its
 * place before they read the chain. A run already under way may have read the pending events before the caller's
 * were committed: joining it would return with them still pending (attacks.test's hand-written `created` event was
 * then checked as a row with no chained event, "unchained", instead of "unwitnessed", when the 100 ms tick happened
 * to be mid-batch). A store whose batch waits on the test decides the interleaving here.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Integrator, type HeadState, type IntegrationStore, type PendingEvent } from '../../../src/audit/integrator.js';
import { Witness } from '../../../src/audit/witness.js';
import { keyFromSetting } from '../../../src/signing/keys.js';

/** An integration store in memory whose batches each wait for `release()` after reading what is pending. */
function heldStore() {
  const committed: PendingEvent[] = [];
  const placed: number[] = [];
  let head: HeadState = {
    size: 0,
    hash: '',
    checkpoint: 0,
    checkpointAt: null,
    checkpointSize: 0,
    legacy: null,
  };
  const gates: (() => void)[] = [];
  const store: IntegrationStore = {
    async integrate(limit, plan) {
      const pending = committed.filter((e) => !placed.includes(e.id)).slice(0, limit);
      await new Promise<void>((resolve) => gates.push(resolve));
      const write = plan(head, pending);
      if (write) {
        placed.push(...write.placed.map((p) => p.id));
        head = write.head;
      }
      return pending.length;
    },
  };
  return {
    store,
    placed,
    commit: (id: number) => committed.push({ id, leaf: `leaf-${id}` }),
    /** Lets the oldest waiting batch go on; fails when none comes to wait (nothing more was run). */
    release: async () => {
      for (let turns = 0; gates.length === 0; turns++) {
        if (turns === 100) throw new Error('no batch is waiting: the integrator ran no further batch');
        await new Promise((resolve) => setImmediate(resolve));
      }
      gates.shift()!();
    },
  };
}

async function witness(): Promise<Witness> {
  const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return new Witness(await keyFromSetting(pem), 3600);
}

describe('Integrator.runOnce', () => {
  it('places an event committed while a run was under way, before it resolves', async () => {
    const s = heldStore();
    const integrator = new Integrator(s.store, await witness());
    const tick = integrator.runOnce(); // the timer's run: reads nothing pending, then waits
    await new Promise((resolve) => setImmediate(resolve));
    s.commit(1); // committed after that read
    const asked = integrator.runOnce(); // verify's run
    await s.release();
    await tick;
    expect(s.placed).toEqual([]);
    await s.release();
    await asked;
    expect(s.placed).toEqual([1]);
  });

  it('runs once more for any number of callers that came during one run', async () => {
    const s = heldStore();
    const integrator = new Integrator(s.store, await witness());
    const tick = integrator.runOnce();
    s.commit(1);
    const callers = [integrator.runOnce(), integrator.runOnce(), integrator.runOnce()];
    await s.release();
    await tick;
    await s.release();
    await Promise.all(callers);
    expect(s.placed).toEqual([1]);
  });

  it('still runs for a caller that came during a run that failed', async () => {
    const s = heldStore();
    let failures = 1;
    const failing: IntegrationStore = {
      integrate: (limit, plan) =>
        failures-- > 0 ? Promise.reject(new Error('lost the connection')) : s.store.integrate(limit, plan),
    };
    const integrator = new Integrator(failing, await witness());
    s.commit(1);
    const tick = integrator.runOnce();
    const asked = integrator.runOnce();
    await expect(tick).rejects.toThrow('lost the connection');
    await s.release();
    await asked;
    expect(s.placed).toEqual([1]);
  });
});
