/**
 * Stores as `serve` runs them for the audit tests: a fresh Ed25519 key, the stores witnessing their writes with it,
 * and an integrator placing events when asked (`integrate()`), so a test decides when the order is assigned.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Integrator } from '../../../src/audit/integrator.js';
import { AuditService } from '../../../src/audit/service.js';
import { Witness } from '../../../src/audit/witness.js';
import { keyFromSetting } from '../../../src/signing/keys.js';
import type { OpenStores } from '../../../src/stores/open-store.js';
import { withVerdictTokens } from '../../../src/stores/verdict-tokens.js';

/** A fresh signing key as `TOLLGATE_SIGNING_KEY` would give it. */
export async function freshKey() {
  const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return keyFromSetting(pem);
}

/** The witnessed side of `stores`; see the module comment. */
export async function witness(
  stores: OpenStores,
  options: { now?: () => Date; key?: Awaited<ReturnType<typeof freshKey>> } = {},
) {
  const key = options.key ?? (await freshKey());
  const w = new Witness(key, 3600);
  stores.useWitness(w);
  const integrator = new Integrator(stores.integration, w, { now: options.now });
  const service = new AuditService(stores.audit, stores.store, null, { now: options.now });
  service.useKeys(async () => ({ keys: [key.publicJwk], source: 'pinned', inDatabase: false }));
  return {
    key,
    witness: w,
    integrator,
    /** Places every pending event (and signs the first checkpoint, or one every 10 s). */
    integrate: () => integrator.runOnce(),
    /** Integrates, then verifies against the pinned key. */
    verify: async (from?: Date) => {
      await integrator.runOnce();
      return service.verify(from);
    },
    /** The store as the gateway reads it: final rows carry their stored tokens. */
    reads: withVerdictTokens(stores.store),
  };
}
