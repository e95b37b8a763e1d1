/**
 * @module cli/keys
 * `tollgate keys export [--db …] [--out FILE]`: the public JWKS a verifier pins (`tollgate audit verify --keys`,
 * `verifyVerdict({keys})`, `--jwks-url` replaced by a file): the current key and every retired one, read without
 * changing anything. `tollgate keys rotate [--db FILE]`: a new key file for a SQLite deployment, the old public key
 * kept verifiable in the retired-keys file beside it.
 */
import { resolve } from 'node:path';
import { rotateKeyFile } from '../signing/key-default-file.js';
import { replaceFile } from '../signing/key-file.js';
import { describeKeyPlace, KEY_IN_DATABASE_WARNING, openSigningKeys } from '../signing/keys.js';
import { databaseDialect } from '../stores/database-url.js';
import { openStores } from '../stores/open-store.js';
import { existingDatabase } from './audit.js';
import { flag, parseArgs, UsageError } from './args.js';

const stderrLine = (line: string) => void process.stderr.write(`${line}\n`);

/** Runs `tollgate keys`. */
export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'export') return exportKeys(rest);
  if (action === 'rotate') return rotate(rest);
  throw new UsageError(
    action ? `no keys action "${action}": use export or rotate` : 'say what to do with the keys: export or rotate',
  );
}

/** `keys export`: the JWKS on stdout, or in `--out`. */
async function exportKeys(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: ['db', 'out'] });
  // Read as it is: no migration, no key file made, no key generated (a database with no key yet has none to pin).
  const stores = await openStores(existingDatabase(flag(args, 'db'), process.env.TOLLGATE_DB), {
    env: process.env,
    migrate: false,
  });
  try {
    const keys = await openSigningKeys(process.env, stores, { readOnly: true, log: (_, line) => stderrLine(line) });
    const jwks = await keys.jwks();
    if (jwks.keys.length === 0) {
      stderrLine(`no signing key yet in ${keys.location}: start the gateway once, then export`);
      return 1;
    }
    // Pinned keys catch a key changed in the database later; they cannot make up for a key a writer could read already.
    if (keys.place === 'database') stderrLine(`warning: ${KEY_IN_DATABASE_WARNING}`);
    const text = `${JSON.stringify(jwks, null, 2)}\n`;
    const out = flag(args, 'out');
    if (out === undefined) process.stdout.write(text);
    else {
      replaceFile(out, text, 0o644);
      stderrLine(`wrote ${jwks.keys.length} public key${jwks.keys.length === 1 ? '' : 's'} to ${resolve(out)}`);
    }
    stderrLine(`current: ${describeKeyPlace(keys, jwks.keys[0]!.kid)}`);
    return 0;
  } finally {
    await stores.close();
  }
}

/** `keys rotate`: SQLite's default key file only; every other place is the operator's to rotate. */
async function rotate(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: ['db'] });
  const db = existingDatabase(flag(args, 'db'), process.env.TOLLGATE_DB);
  if (process.env.TOLLGATE_SIGNING_KEY?.trim() || process.env.TOLLGATE_SIGNING_KEY_FILE?.trim())
    throw new UsageError(
      'the gateway signs with TOLLGATE_SIGNING_KEY / TOLLGATE_SIGNING_KEY_FILE, not a key file tollgate keeps: rotate by setting a new key there and adding the old public key (tollgate keys export) to TOLLGATE_SIGNING_KEYS_RETIRED',
    );
  if (databaseDialect(db) !== 'sqlite' || db === ':memory:')
    throw new UsageError(
      'keys rotate rotates the key file beside a SQLite database; on PostgreSQL set TOLLGATE_SIGNING_KEY_FILE to a new key and add the old public key (tollgate keys export) to TOLLGATE_SIGNING_KEYS_RETIRED on every replica',
    );
  const rotation = await rotateKeyFile(db);
  process.stdout.write(
    [
      `new signing key ${rotation.key.kid} in ${resolve(rotation.keyFile)}`,
      `old key ${rotation.old.kid} stays verifiable: listed in ${resolve(rotation.retiredFile)}`,
      'restart the gateway to sign with the new key, and give verifiers the new JWKS (tollgate keys export)',
    ].join('\n') + '\n',
  );
  return 0;
}
