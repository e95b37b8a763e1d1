/**
 * @module signing/startup
 * The signing key at a gateway's start: loaded before anything signs (so {@link SigningKeys.currentSync} works inside
 * a write transaction), where it lives said once in the log, and said again in `/readyz` for as long as it runs.
 */
import type { DeploymentSecrets } from '../contracts/deployment-secrets.js';
import { describeKeyPlace, signingKeys, type SigningKeys, type SigningSettings } from './keys.js';

/** The two log levels the start uses, pino's shape. */
export interface StartupLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** A `/readyz` check (the shape `http/app` takes; declared here so this floor does not import the HTTP one). */
export type SigningReadiness = () => Promise<{ ready: boolean; detail: string }>;

/**
 * Loads the keys of `settings` on `secrets` and logs where the key lives: at `warn` when it is in the database (a
 * database writer can forge), at `info` otherwise.
 * @returns the keys, loaded, and the `/readyz` check that names their place (always ready: the database's key is
 * allowed, only said).
 */
export async function startSigningKeys(
  settings: SigningSettings,
  secrets: DeploymentSecrets,
  logger: StartupLogger,
): Promise<{ keys: SigningKeys; readiness: SigningReadiness }> {
  const keys = signingKeys(settings, {
    secrets,
    log: (level, message) => logger[level]({ component: 'signing' }, message),
  });
  for (const note of settings.notes) logger.warn({ component: 'signing' }, note);
  const { kid } = await keys.ready();
  const detail = describeKeyPlace(keys, kid);
  const details = { component: 'signing', place: keys.place, location: keys.location, kid };
  if (keys.place === 'database') logger.warn(details, detail);
  else logger.info(details, detail);
  return { keys, readiness: async () => ({ ready: true, detail }) };
}
