/**
 * @module server/audit-trail
 * The audit trail's part of a gateway's life (docs/audit.md, "The proof"): at start, the signing key is loaded and
 * handed to the stores as a {@link Witness} (every write transaction signs its receipt, every settle mints its
 * token), and this process's {@link Integrator} closes a legacy part if there is one, then places events every
 * 100 ms; at stop it places what is left and signs a checkpoint. `/readyz` names a backlog older than the merge
 * delay (`TOLLGATE_AUDIT_MAX_DELAY`, seconds, default 2).
 */
import type { Logger } from 'pino';
import { Integrator } from '../audit/integrator.js';
import { Witness } from '../audit/witness.js';
import type { Clock } from '../utils/clock.js';
import type { SigningKeys } from '../signing/keys.js';
import type { OpenStores } from '../stores/open-store.js';

/** The running audit trail of one gateway process. */
export interface AuditTrail {
  integrator: Integrator;
  /** `/readyz`'s check: ready, with the backlog said, and named when it is older than the merge delay. */
  readiness(): Promise<{ ready: boolean; detail: string }>;
  /** Places what is pending and signs a checkpoint, then stops the integrator. */
  stop(): Promise<void>;
}

/** Loads the key, witnesses the stores' writes and starts the integrator; see the module comment. */
export async function startAuditTrail(options: {
  stores: OpenStores;
  keys: SigningKeys;
  ttlS: number;
  clock: Clock;
  maxDelayMs: number;
  logger: Logger;
}): Promise<AuditTrail> {
  const { stores, clock, maxDelayMs, logger } = options;
  // Retired keys stay trusted for what was signed before a rotation (a quorum's earlier approvals).
  const witness = new Witness(await options.keys.current(), options.ttlS, (await options.keys.jwks()).keys);
  stores.useWitness(witness);
  const upgraded = await stores.signRowsAtUpgrade(witness);
  if (upgraded.tokens || upgraded.away)
    logger.info(
      { tokens: upgraded.tokens, away: upgraded.away },
      'signed the API tokens and away changes kept from before row signatures (once, at this upgrade)',
    );
  const integrator = new Integrator(stores.integration, witness, {
    now: () => new Date(clock.now()),
    onError: (error) =>
      logger.warn({ err: error }, 'audit integrator batch failed; its events stay pending for the next'),
  });
  await integrator.start();
  return {
    integrator,
    async readiness() {
      const { events, oldestAt } = await stores.audit.pending();
      const age = oldestAt ? clock.now() - Date.parse(oldestAt) : 0;
      const detail =
        events === 0
          ? 'integrated; nothing pending'
          : age > maxDelayMs
            ? `${events} events pending, the oldest ${Math.round(age / 1000)} s: past the ${maxDelayMs / 1000} s merge delay`
            : `${events} events pending`;
      return { ready: true, detail };
    },
    async stop() {
      await integrator.stop();
      await integrator.checkpointNow().catch((error: unknown) => logger.warn({ err: error }, 'no checkpoint at stop'));
      stores.useWitness(null);
    },
  };
}
