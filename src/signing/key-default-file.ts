/**
 * @module signing/key-default-file
 * The default key of a SQLite deployment: the key file beside the database, made on the first start. A database from
 * before it kept its key in `deployment_secrets` (`verdict_signing`); that key's public half moves to the retired-keys
 * file, so what it signed still verifies, and its private half leaves the database, so no database writer signs
 * with it from now on. The file key signs.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { JWK } from 'jose';
import type { DeploymentSecrets } from '../contracts/deployment-secrets.js';
import { addRetired, keyFileOrNew, keyFilePath, readKeyFile, replaceKeyFile, retiredFilePath } from './key-file.js';
import { KEY_IN_DATABASE_WARNING } from './key-place.js';
import { keyFromSeed, SigningKeyError, type SigningKey } from './key-text.js';

/** What the keys need beside the settings. */
export interface KeyHome {
  /** The database's deployment secrets: the `database` place's key, and an older SQLite database's key to move out. */
  secrets: DeploymentSecrets;
  /** Read what exists and change nothing (`audit verify`, `keys export`): no key made, moved or generated. */
  readOnly?: boolean;
  /** Hears what an operator should know once (a key moved out of the database, a key file made for a copied one). */
  log?: (level: 'info' | 'warn', message: string) => void;
}

/** The key that signs (null: none yet, read-only) and the public keys published after it. */
export interface LoadedKeys {
  current: SigningKey | null;
  retired: JWK[];
}

/**
 * The key file of the SQLite database `database` (made when missing, unless read-only), the database's own older key
 * moved out of it on the way. `databaseExisted`: the file was there before this start, so a key file made now means
 * the database was copied or moved without its key, which the log says.
 */
export async function defaultFileKeys(database: string, databaseExisted: boolean, home: KeyHome): Promise<LoadedKeys> {
  const path = keyFilePath(database);
  const retiredPath = retiredFilePath(database);
  const source = `the signing key file ${path}`;
  const seed = await home.secrets.find('verdict_signing');
  const old = seed ? await keyFromSeed(seed) : null;
  if (home.readOnly) {
    const key = await readKeyFile(path, source, 'owner-only');
    // Not started since the upgrade: the key in the database is still the one that signs.
    if (!key) return { current: old, retired: [] };
    return { current: key, retired: old ? [old.publicJwk] : [] };
  }
  // Retired first, then the key file: a process that sees the new key file sees the old key published too.
  if (old) await addRetired(retiredPath, [old.publicJwk]);
  const { key, created } = await keyFileOrNew(path, source);
  if (old) {
    await home.secrets.remove('verdict_signing');
    home.log?.(
      'info',
      `signing key moved out of the database: ${path} (kid ${key.kid}) signs from now on; the key the database held (kid ${old.kid}) stays verifiable, listed in ${retiredPath}, and was deleted from deployment_secrets`,
    );
  } else if (created && databaseExisted) {
    home.log?.(
      'warn',
      `no signing key file beside ${database}: made ${path} (kid ${key.kid}). If this database was copied from another, what was signed there verifies only with that key: copy its .signing-key.pem (and .signing-keys-retired.json) beside this one, or add its public keys (tollgate keys export --db <the original>) to TOLLGATE_SIGNING_KEYS_RETIRED`,
    );
  } else if (created)
    home.log?.('info', `signing key made: ${path} (kid ${key.kid}, mode 0600); back it up with the database`);
  return { current: key, retired: [] };
}

/** What {@link rotateKeyFile} did. */
export interface Rotation {
  /** The key that signed until now: its public half is in `retiredFile`. */
  old: SigningKey;
  /** The new key, in `keyFile`. */
  key: SigningKey;
  keyFile: string;
  retiredFile: string;
}

/**
 * A new key in the key file of the SQLite database `database`, the old key's public half added to the retired-keys
 * file first (a crash between the two leaves the old key signing and also listed, never a key nobody can verify).
 * A gateway running on the database signs with the old key until it restarts.
 */
export async function rotateKeyFile(database: string): Promise<Rotation> {
  const keyFile = keyFilePath(database);
  const retiredFile = retiredFilePath(database);
  const source = `the signing key file ${keyFile}`;
  const old = await readKeyFile(keyFile, source, 'owner-only');
  if (!old)
    throw new SigningKeyError(
      `no signing key file at ${keyFile}: nothing to rotate (the gateway makes one when it starts on ${database})`,
    );
  await addRetired(retiredFile, [old.publicJwk]);
  return { old, key: await replaceKeyFile(keyFile, source), keyFile, retiredFile };
}

/**
 * What happens to the signing key when the SQLite database `from` is copied to a server database (`tollgate migrate
 * --from --to`), as lines for the operator: a key file does not travel with rows, so they set it where the replicas
 * run, or the replicas make a key of their own in the database and what the old key signed needs its public key.
 * `databaseKey`: the SQLite database still held its key in `deployment_secrets` (never started since key files).
 */
export function keyAfterCopy(from: string, databaseKey: boolean): string[] {
  const keyFile = resolve(keyFilePath(from));
  const retiredFile = resolve(retiredFilePath(from));
  const retired = existsSync(retiredFile)
    ? [`  TOLLGATE_SIGNING_KEYS_RETIRED="$(cat ${retiredFile})"   (the keys it retired, still verifiable)`]
    : [];
  if (existsSync(keyFile))
    return [
      `signing key: ${keyFile} stays beside the SQLite file (a database holds no key file). To sign with the same key and keep what it signed verifiable, set on every replica:`,
      `  TOLLGATE_SIGNING_KEY_FILE=${keyFile}   (copy the file to each host, mode 0600)`,
      ...retired,
      `Without it the replicas make a new key kept in the database (${KEY_IN_DATABASE_WARNING}), and what the old key signed verifies only with its public key (tollgate keys export --db ${from}) in TOLLGATE_SIGNING_KEYS_RETIRED.`,
    ];
  if (databaseKey)
    return [
      `signing key: ${from} still kept its key in the database; it was copied, so the replicas sign with it from there (${KEY_IN_DATABASE_WARNING}).`,
      `To keep it out of the database: start tollgate serve once on ${from} (it moves the key to ${keyFile}), copy again, then set TOLLGATE_SIGNING_KEY_FILE=${keyFile} on every replica.`,
    ];
  return [
    `signing key: ${from} has none yet. Set TOLLGATE_SIGNING_KEY_FILE on every replica (openssl genpkey -algorithm ed25519 -out tollgate-signing.pem); without it the replicas make one in the database (${KEY_IN_DATABASE_WARNING}).`,
  ];
}
