/**
 * @module signing/key-file
 * Signing keys kept in files: the one `TOLLGATE_SIGNING_KEY_FILE` names, and the default of a SQLite deployment, a key
 * file beside the database (`<database>.signing-key.pem`, PKCS#8 PEM, mode 0600) with the public keys it replaced in
 * `<database>.signing-keys-retired.json` (a JWKS). The database never holds them: whoever can write the database
 * cannot sign, nor slip in a key of their own.
 *
 * @remarks A key file is made whole and then linked into place (`link` fails when the name exists, like `O_EXCL`),
 * so two processes starting on one database at once never read half a key and end up with the same one. Left out:
 * permission checks on Windows, whose files have no POSIX mode bits.
 */
import { randomBytes, generateKeyPairSync } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { JWK } from 'jose';
import { parseKey, retiredKeys, signingKeyOf, SigningKeyError, uniqueKeys, type SigningKey } from './key-text.js';

/** The default key file of the SQLite database at `database`. */
export const keyFilePath = (database: string): string => `${database}.signing-key.pem`;

/** Where `tollgate keys rotate` keeps the public keys the key file of `database` held before. */
export const retiredFilePath = (database: string): string => `${database}.signing-keys-retired.json`;

const POSIX = process.platform !== 'win32';

/** Group and other permission bits of the file at `path`, or null when there is no file. */
function looseBits(path: string): number | null {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new SigningKeyError(`${path}: not a regular file`);
    return POSIX ? stat.mode & 0o077 : 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** How strictly a key file's mode is checked. */
export type KeyFileMode =
  /** The default key file tollgate made 0600: any group or other bit means someone changed it, refused. */
  | 'owner-only'
  /** `TOLLGATE_SIGNING_KEY_FILE`: writable by others is refused (the key could be swapped); readable is reported. */
  | 'not-writable';

/**
 * The private key in the file at `path`, or null when there is none. `source` names it in every refusal
 * (`TOLLGATE_SIGNING_KEY_FILE /run/secrets/tollgate.pem`); `onReadable` hears of a group- or other-readable file that
 * `mode` lets through.
 */
export async function readKeyFile(
  path: string,
  source: string,
  mode: KeyFileMode,
  onReadable?: (message: string) => void,
): Promise<SigningKey | null> {
  const bits = looseBits(path);
  if (bits === null) return null;
  const octal = (bits | 0o600).toString(8).padStart(4, '0');
  if (mode === 'owner-only' && bits !== 0)
    throw new SigningKeyError(
      `${source}: the signing key file is readable or writable by group or other (mode ${octal}); it must be its owner's alone: chmod 600 ${path}`,
    );
  if (bits & 0o022)
    throw new SigningKeyError(
      `${source}: the signing key file is writable by group or other (mode ${octal}), so anyone could swap the key: chmod 600 ${path}`,
    );
  if (bits & 0o044)
    onReadable?.(`${source}: the signing key file is readable by group or other (mode ${octal}); chmod 600 ${path}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SigningKeyError(`${source}: cannot read the signing key file (${(error as Error).message})`);
  }
  return signingKeyOf(parseKey(text, source, 'private'));
}

/** A new Ed25519 key as PKCS#8 PEM. */
function newKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

/** Writes `text` to a new file beside `path` (mode `mode`), synced; returns its name. */
function writeTemporary(path: string, text: string, mode: number): string {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, text, { mode, flag: 'wx', flush: true });
  return temporary;
}

/** Syncs the directory holding `path`, so a new name in it survives a crash of the host. */
function syncDirectory(path: string): void {
  if (!POSIX) return;
  const fd = openSync(dirname(path), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** What `link` answers on a file system that has no hard links. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** Writes `text` to `path` only if nothing is there (`O_CREAT | O_EXCL`); false when something was. */
function createExclusive(path: string, text: string): boolean {
  try {
    writeFileSync(path, text, { mode: 0o600, flag: 'wx', flush: true });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * The key in the file at `path`, made with a new key when there is none. Of processes racing to make it, the first
 * link wins and every one of them reads and signs with the winner's key.
 * @returns the key, and whether this call made the file.
 */
export async function keyFileOrNew(path: string, source: string): Promise<{ key: SigningKey; created: boolean }> {
  const existing = await readKeyFile(path, source, 'owner-only');
  if (existing) return { key: existing, created: false };
  const pem = newKeyPem();
  const temporary = writeTemporary(path, pem, 0o600);
  let created = false;
  try {
    linkSync(temporary, path);
    created = true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && !NO_HARD_LINKS.has(code ?? '')) throw error;
    // A file system without hard links (FAT, some network shares): O_EXCL decides the winner instead; a loser
    // reading in the instant before the winner's bytes land sees an empty file and fails its start, never a wrong key.
    if (code !== 'EEXIST') created = createExclusive(path, pem);
  } finally {
    unlinkSync(temporary);
  }
  if (created) syncDirectory(path);
  const key = await readKeyFile(path, source, 'owner-only');
  if (!key) throw new SigningKeyError(`${source}: the signing key file vanished as it was made`);
  return { key, created };
}

/**
 * Writes `text` to `path` whole or not at all (a new file renamed over the old one: a reader sees one or the other, and
 * a link at `path` is replaced, not followed).
 */
export function replaceFile(path: string, text: string, mode: number): void {
  const temporary = writeTemporary(path, text, mode);
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
  syncDirectory(path);
}

/** Replaces the key in the file at `path` with a new one. */
export async function replaceKeyFile(path: string, source: string): Promise<SigningKey> {
  replaceFile(path, newKeyPem(), 0o600);
  const key = await readKeyFile(path, source, 'owner-only');
  return key!;
}

/** The public keys of the retired-keys file at `path` (none when absent); one writable by others is refused. */
export async function readRetiredFile(path: string): Promise<JWK[]> {
  const bits = looseBits(path);
  if (bits === null) return [];
  if (bits & 0o022)
    throw new SigningKeyError(
      `${path}: the retired signing keys file is writable by group or other, so anyone could add a key: chmod 644 ${path}`,
    );
  return retiredKeys(readFileSync(path, 'utf8'), path);
}

/** Adds `keys` to the retired-keys file at `path` (made when absent), newest first, each key once. */
export async function addRetired(path: string, keys: readonly JWK[]): Promise<JWK[]> {
  const all = uniqueKeys([...keys, ...(await readRetiredFile(path))]);
  replaceFile(path, `${JSON.stringify({ keys: all }, null, 2)}\n`, 0o644);
  return all;
}
