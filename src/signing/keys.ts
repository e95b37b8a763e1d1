/**
 * @module signing/keys
 * The verdict-signing key (Ed25519) and where it lives, since that decides who can forge:
 * - `setting`: `TOLLGATE_SIGNING_KEY` (a PKCS#8 PEM or a private JWK in the variable);
 * - `file`: `TOLLGATE_SIGNING_KEY_FILE` (a PEM or JWK file), or, on SQLite with neither, the key file beside the
 *   database (`<database>.signing-key.pem`, made 0600 on the first start: `signing/key-file`);
 * - `memory`: an in-memory SQLite database (tests, throwaway runs): a new key each start, nowhere on disk;
 * - `database`: PostgreSQL (or any server database) with no key outside it: the deployment secret `verdict_signing`
 *   (32 random bytes, the Ed25519 seed), so replicas start with zero configuration. Then a database writer can read
 *   the key and sign: the start-up log, `/readyz` and `audit verify` say {@link KEY_IN_DATABASE_WARNING}.
 *
 * Retired public keys stay published (`/.well-known/jwks.json`) from `TOLLGATE_SIGNING_KEYS_RETIRED` and, on SQLite,
 * the retired-keys file beside the database, so what was signed before a rotation still verifies.
 *
 * @remarks Left out: rotating on a schedule, and rotating a key kept outside tollgate's reach (a setting, a mounted
 * file): an operator's act (docs/audit.md, "Keys"). `tollgate keys rotate` rotates the SQLite key file only.
 */
import { generateKeyPairSync } from 'node:crypto';
import { statSync } from 'node:fs';
import type { JWK } from 'jose';
import type { DeploymentSecrets } from '../contracts/deployment-secrets.js';
import { defaultFileKeys, type KeyHome, type LoadedKeys } from './key-default-file.js';
import { keyFilePath, readKeyFile, readRetiredFile, retiredFilePath } from './key-file.js';
import {
  keyFromSeed,
  keyFromSetting,
  retiredKeys,
  signingKeyOf,
  SigningKeyError,
  uniqueKeys,
  type SigningKey,
} from './key-text.js';

import type { KeyPlace } from './key-place.js';

export type { KeyHome } from './key-default-file.js';
export { KEY_IN_DATABASE_WARNING, describeKeyPlace, type KeyPlace } from './key-place.js';
export {
  SigningKeyError,
  keyFromSetting,
  keyFromSeed,
  retiredKeys,
  publishedJwk,
  type SigningKey,
} from './key-text.js';

/** The keys a gateway signs and publishes with. */
export interface SigningKeys {
  /** Where the current key lives. */
  readonly place: KeyPlace;
  /** The same in words an operator acts on: the variable, the file's path, or the database. */
  readonly location: string;
  /**
   * Loads the current key (reads its file or setting, makes the SQLite key file on a first start, reads or generates
   * the database's key): await it at start, before anything signs. A failure is not kept: the next call tries again.
   */
  ready(): Promise<SigningKey>;
  /**
   * The current key, synchronously, for signing inside a write transaction (SQLite's are synchronous).
   * @throws SigningKeyError when {@link ready} has not resolved yet.
   */
  currentSync(): SigningKey;
  /** The current key: {@link ready}, memoized. */
  current(): Promise<SigningKey>;
  /** Current and retired public keys, current first, each once: the body of `/.well-known/jwks.json`. */
  jwks(): Promise<{ keys: JWK[] }>;
}

/** What the environment says about signing, read and checked before the database opens. */
export interface SigningSettings {
  /** `TOLLGATE_SIGNING_KEY` or `TOLLGATE_SIGNING_KEY_FILE`, checked; null: the default place. */
  configured: { key: SigningKey; place: 'setting' | 'file'; location: string } | null;
  /** `TOLLGATE_SIGNING_KEYS_RETIRED`. */
  retired: JWK[];
  /** The SQLite database file the gateway runs on (its key files live beside it); absent: a server database. */
  sqliteFile?: string;
  /** Whether that file existed, not empty, before this start: a key file made then means it moved without its key. */
  databaseExisted: boolean;
  /** What the settings want an operator to hear at start (a key file others can read). */
  notes: string[];
}

/** Where {@link readSigningSettings} looks beside the environment. */
export interface SigningSettingsOptions {
  /** The SQLite database's path (`:memory:` included); leave out for PostgreSQL. */
  sqliteFile?: string;
  /** Whether that database already existed; left out, the file is looked at now (so read the settings before opening it). */
  databaseExisted?: boolean;
}

/**
 * Reads and checks the signing variables of `env`: a bad one throws a {@link SigningKeyError} naming it (and its file).
 * Call it before the database opens, so a bad setting stops the start with its message and leaves nothing open.
 */
export async function readSigningSettings(
  env: Record<string, string | undefined>,
  options: SigningSettingsOptions = {},
): Promise<SigningSettings> {
  const inline = env.TOLLGATE_SIGNING_KEY?.trim();
  const file = env.TOLLGATE_SIGNING_KEY_FILE?.trim();
  if (inline && file)
    throw new SigningKeyError(
      'TOLLGATE_SIGNING_KEY and TOLLGATE_SIGNING_KEY_FILE are both set: set one, so there is no doubt which key signs',
    );
  const notes: string[] = [];
  let configured: SigningSettings['configured'] = null;
  if (inline) configured = { key: await keyFromSetting(inline), place: 'setting', location: 'TOLLGATE_SIGNING_KEY' };
  else if (file) {
    const source = `TOLLGATE_SIGNING_KEY_FILE ${file}`;
    const key = await readKeyFile(file, source, 'not-writable', (note) => notes.push(note));
    if (!key) throw new SigningKeyError(`${source}: no such file`);
    configured = { key, place: 'file', location: source };
  }
  return {
    configured,
    retired: await retiredKeys(env.TOLLGATE_SIGNING_KEYS_RETIRED),
    sqliteFile: options.sqliteFile,
    databaseExisted: options.databaseExisted ?? nonEmptyFile(options.sqliteFile),
    notes,
  };
}

/** Whether `path` names a file with something in it (`:memory:` and nothing do not). */
function nonEmptyFile(path: string | undefined): boolean {
  if (path === undefined || path === ':memory:') return false;
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
}

/** The place and its words for `settings`. */
function placeOf(settings: SigningSettings): { place: KeyPlace; location: string } {
  if (settings.configured) return settings.configured;
  if (settings.sqliteFile === undefined) return { place: 'database', location: 'the database (deployment_secrets)' };
  if (settings.sqliteFile === ':memory:') return { place: 'memory', location: 'memory (a new key every start)' };
  return { place: 'file', location: keyFilePath(settings.sqliteFile) };
}

/** The keys of `settings` in `home`; nothing is read until {@link SigningKeys.ready} (or a first use). */
export function signingKeys(settings: SigningSettings, home: KeyHome): SigningKeys {
  const { place, location } = placeOf(settings);
  const load = async (): Promise<LoadedKeys> => {
    const sqlite = settings.sqliteFile !== undefined && settings.sqliteFile !== ':memory:' ? settings.sqliteFile : null;
    let loaded: LoadedKeys;
    if (settings.configured) loaded = { current: settings.configured.key, retired: [] };
    else if (place === 'memory') loaded = { current: home.readOnly ? null : await inMemoryKey(), retired: [] };
    else if (place === 'file') loaded = await defaultFileKeys(sqlite!, settings.databaseExisted, home);
    else {
      const seed = home.readOnly
        ? await home.secrets.find('verdict_signing')
        : await home.secrets.get('verdict_signing');
      loaded = { current: seed ? await keyFromSeed(seed) : null, retired: [] };
    }
    // Keys retired beside the database (moved out of it, or rotated) stay published whichever key signs now; read
    // after the default key is loaded, which may have just retired one there.
    const fileRetired = sqlite ? await readRetiredFile(retiredFilePath(sqlite)) : [];
    return { current: loaded.current, retired: [...loaded.retired, ...fileRetired, ...settings.retired] };
  };
  let loading: Promise<LoadedKeys> | null = null;
  let loaded: LoadedKeys | null = null;
  const loadOnce = (): Promise<LoadedKeys> =>
    // A failed read (the database away for a moment) is not kept: the next call tries again.
    (loading ??= load().then(
      (keys) => (loaded = keys),
      (error: unknown) => {
        loading = null;
        throw error;
      },
    ));
  const ready = async (): Promise<SigningKey> => {
    const { current } = await loadOnce();
    if (!current)
      throw new SigningKeyError(
        `no signing key in ${location} yet: start the gateway once, or set TOLLGATE_SIGNING_KEY_FILE`,
      );
    return current;
  };
  return {
    place,
    location,
    ready,
    current: ready,
    currentSync() {
      if (!loaded?.current)
        throw new SigningKeyError('the signing key is not loaded: await keys.ready() at start, before signing');
      return loaded.current;
    },
    async jwks() {
      const { current, retired } = await loadOnce();
      return { keys: uniqueKeys([...(current ? [current.publicJwk] : []), ...retired]) };
    },
  };
}

/**
 * Keys that are just `key` (and `retired`), loaded already: for benchmarks and tests that sign without a database.
 * @example const signer = new VerdictSigner(staticSigningKeys(await keyFromSeed(seed)));
 */
export function staticSigningKeys(key: SigningKey, retired: readonly JWK[] = []): SigningKeys {
  return {
    place: 'memory',
    location: 'memory (given)',
    ready: async () => key,
    current: async () => key,
    currentSync: () => key,
    jwks: async () => ({ keys: uniqueKeys([key.publicJwk, ...retired]) }),
  };
}

/** A key that lives as long as the process: an in-memory database's, which lives no longer. */
function inMemoryKey(): Promise<SigningKey> {
  return signingKeyOf(generateKeyPairSync('ed25519').privateKey);
}

/** The stores a command has open, as far as the keys need them (`OpenStores` fits). */
export interface KeyStores {
  dialect: 'sqlite' | 'postgres';
  /** The SQLite path (or the URL shown for PostgreSQL). */
  shown: string;
  secrets: DeploymentSecrets;
}

/**
 * {@link readSigningSettings} then {@link signingKeys}, for commands that open the database themselves (`prune`,
 * `audit verify`, `keys export`): the same keys `serve` signs with on that database.
 */
export async function openSigningKeys(
  env: Record<string, string | undefined>,
  stores: KeyStores,
  home: Omit<KeyHome, 'secrets'> = {},
): Promise<SigningKeys> {
  const sqliteFile = stores.dialect === 'sqlite' ? stores.shown : undefined;
  const settings = await readSigningSettings(env, { sqliteFile, databaseExisted: true });
  for (const note of settings.notes) home.log?.('warn', note);
  return signingKeys(settings, { ...home, secrets: stores.secrets });
}
