/**
 * @module contracts/deployment-secrets
 * Secrets one deployment shares across replicas and restarts: the web session key, the email link key, the verdict
 * signing key. The first process to need one generates it and stores it in the database; every other process (and the
 * same one after a restart) reads that value, so a session signed by one replica is accepted by the others with no
 * `TOLLGATE_WEB_SECRET` set by hand. A variable set by hand still wins (the caller checks it first).
 *
 * @remarks Left out: rotation. To rotate a key, set its variable (every replica at once), or delete its row and
 * restart every replica; sessions and links signed with the old key stop working either way.
 */
import { randomBytes } from 'node:crypto';

/** Names in use: keep them short and stable, they are stored. */
export type SecretName = 'web_session' | 'email_links' | 'verdict_signing' | 'vapid' | 'push_actions';

/** The deployment's shared secrets. */
export interface DeploymentSecrets {
  /** The secret called `name`: the stored one, or a new random one stored now (one winner when replicas race). */
  get(name: SecretName): Promise<string>;
  /** The stored secret called `name`, or null: reads only, never generates (a read-only tool, a key being moved out). */
  find(name: SecretName): Promise<string | null>;
  /** Deletes the secret called `name` (the verdict key once it has moved to a file beside a SQLite database). */
  remove(name: SecretName): Promise<void>;
}

/** A new secret: 256 random bits, base64url. */
export function newDeploymentSecret(): string {
  return randomBytes(32).toString('base64url');
}
