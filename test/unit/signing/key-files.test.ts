/**
 * Signing keys in files: `TOLLGATE_SIGNING_KEY_FILE` (PEM or JWK; a bad one names the variable and the file; one
 * others can write is refused, one others can read is reported), and the default key file beside a SQLite database
 * (made 0600 once, the same key after; refused when others can read it; an older database's key moved out of it and
 * kept verifiable; a copied database's new key said; read-only callers make nothing; `rotate` keeps the old key listed).
 */
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newDeploymentSecret } from '../../../src/contracts/deployment-secrets.js';
import { rotateKeyFile } from '../../../src/signing/key-default-file.js';
import { keyFilePath, retiredFilePath } from '../../../src/signing/key-file.js';
import { keyFromSeed, readSigningSettings, signingKeys, type SigningKeys } from '../../../src/signing/keys.js';
import { MemorySecrets } from './memory-secrets.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-key-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const newPair = () => generateKeyPairSync('ed25519');
const pemOf = (pair = newPair()) => pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const write = (name: string, text: string, mode = 0o600) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return path;
};
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('TOLLGATE_SIGNING_KEY_FILE', () => {
  it('reads a PEM file and a JWK file of the same key alike', async () => {
    const pair = newPair();
    const fromPem = await readSigningSettings({ TOLLGATE_SIGNING_KEY_FILE: write('k.pem', pemOf(pair)) });
    const jwk = JSON.stringify(pair.privateKey.export({ format: 'jwk' }));
    const fromJwk = await readSigningSettings({ TOLLGATE_SIGNING_KEY_FILE: write('k.jwk', jwk) });
    expect(fromPem.configured?.key.kid).toBe(fromJwk.configured?.key.kid);
    const keys = signingKeys(fromPem, { secrets: new MemorySecrets() });
    expect(keys.place).toBe('file');
    expect(keys.location).toBe(`TOLLGATE_SIGNING_KEY_FILE ${join(dir, 'k.pem')}`);
    expect((await keys.ready()).kid).toBe(fromPem.configured?.key.kid);
  });

  it('names the variable and the file when the file is missing, not a key, or writable by others', async () => {
    const missing = join(dir, 'nope.pem');
    await expect(readSigningSettings({ TOLLGATE_SIGNING_KEY_FILE: missing })).rejects.toThrow(
      `TOLLGATE_SIGNING_KEY_FILE ${missing}: no such file`,
    );
    const junk = write('junk.pem', 'hunter2');
    await expect(readSigningSettings({ TOLLGATE_SIGNING_KEY_FILE: junk })).rejects.toThrow(
      `TOLLGATE_SIGNING_KEY_FILE ${junk}: not a usable private key`,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' });
    await expect(readSigningSettings({ TOLLGATE_SIGNING_KEY_FILE: write('rsa.pem', rsa.toString()) })).rejects.toThrow(
      /TOLLGATE_SIGNING_KEY_FILE .*rsa\.pem: an rsa key/,
    );
    const shared = write('shared.pem', pemOf(), 0o620);
    await expect(readSigningSettings({ TOLLGATE_SIGNING_KEY_FILE: shared })).rejects.toThrow(
      `TOLLGATE_SIGNING_KEY_FILE ${shared}: the signing key file is writable by group or other (mode 0620)`,
    );
    await expect(
      readSigningSettings({ TOLLGATE_SIGNING_KEY_FILE: write('a.pem', pemOf()), TOLLGATE_SIGNING_KEY: pemOf() }),
    ).rejects.toThrow(/both set/);
  });

  it('takes a file others can read (a mounted secret often is) and says so', async () => {
    const readable = write('mounted.pem', pemOf(), 0o644);
    const settings = await readSigningSettings({ TOLLGATE_SIGNING_KEY_FILE: readable });
    expect(settings.configured?.place).toBe('file');
    expect(settings.notes).toEqual([
      `TOLLGATE_SIGNING_KEY_FILE ${readable}: the signing key file is readable by group or other (mode 0644); chmod 600 ${readable}`,
    ]);
  });
});

/** The keys of a SQLite database at `db`, with what they logged. */
async function sqliteKeys(
  db: string,
  secrets: MemorySecrets,
  options: { readOnly?: boolean; env?: Record<string, string> } = {},
): Promise<{ keys: SigningKeys; logged: string[] }> {
  const logged: string[] = [];
  const settings = await readSigningSettings(options.env ?? {}, { sqliteFile: db });
  const keys = signingKeys(settings, {
    secrets,
    readOnly: options.readOnly,
    log: (level, line) => logged.push(`${level}: ${line}`),
  });
  return { keys, logged };
}

describe('the key file beside a SQLite database', () => {
  it('is made once, 0600, PKCS#8 PEM, and read again by the next start; the database keeps no key', async () => {
    const db = join(dir, 'tollgate.db');
    const secrets = new MemorySecrets();
    const first = await sqliteKeys(db, secrets);
    expect(first.keys.place).toBe('file');
    expect(first.keys.location).toBe(keyFilePath(db));
    const key = await first.keys.ready();
    expect(first.logged).toEqual([expect.stringMatching(/^info: signing key made: .*tollgate\.db\.signing-key\.pem/)]);
    expect(modeOf(keyFilePath(db))).toBe(0o600);
    expect(readFileSync(keyFilePath(db), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const again = await sqliteKeys(db, secrets);
    expect((await again.keys.ready()).kid).toBe(key.kid);
    expect(again.logged).toEqual([]);
    expect(secrets.values.size).toBe(0);
    expect((await again.keys.jwks()).keys.map((k) => k.kid)).toEqual([key.kid]);
  });

  it('gives two keys loading at once the same file', async () => {
    const db = join(dir, 'tollgate.db');
    const [a, b] = await Promise.all([sqliteKeys(db, new MemorySecrets()), sqliteKeys(db, new MemorySecrets())]);
    const [ka, kb] = await Promise.all([a.keys.ready(), b.keys.ready()]);
    expect(kb.kid).toBe(ka.kid);
  });

  it('is refused when group or other may read it', async () => {
    const db = join(dir, 'tollgate.db');
    await (await sqliteKeys(db, new MemorySecrets())).keys.ready();
    chmodSync(keyFilePath(db), 0o640);
    await expect((await sqliteKeys(db, new MemorySecrets())).keys.ready()).rejects.toThrow(
      `the signing key file ${keyFilePath(db)}: the signing key file is readable or writable by group or other (mode 0640); it must be its owner's alone: chmod 600 ${keyFilePath(db)}`,
    );
  });

  it("takes an older database's key out of it: still verifiable, no longer signing, said once", async () => {
    const db = join(dir, 'tollgate.db');
    const secrets = new MemorySecrets();
    const seed = newDeploymentSecret();
    secrets.values.set('verdict_signing', seed);
    const old = await keyFromSeed(seed);
    // A read-only look before the first start: the database's key is the one that signs.
    const look = await sqliteKeys(db, secrets, { readOnly: true });
    expect((await look.keys.jwks()).keys.map((k) => k.kid)).toEqual([old.kid]);
    expect(existsSync(keyFilePath(db))).toBe(false);

    const start = await sqliteKeys(db, secrets);
    const key = await start.keys.ready();
    expect(key.kid).not.toBe(old.kid);
    expect((await start.keys.jwks()).keys.map((k) => k.kid)).toEqual([key.kid, old.kid]);
    expect(secrets.values.has('verdict_signing')).toBe(false);
    expect(start.logged).toEqual([expect.stringMatching(/^info: signing key moved out of the database: .*kid/)]);
    expect(JSON.parse(readFileSync(retiredFilePath(db), 'utf8'))).toEqual({ keys: [old.publicJwk] });

    const restart = await sqliteKeys(db, secrets);
    expect((await restart.keys.jwks()).keys.map((k) => k.kid)).toEqual([key.kid, old.kid]);
    expect(restart.logged).toEqual([]);
  });

  it('is made for a database copied without it, and the log says what the old key needs', async () => {
    const db = write('copied.db', 'SQLite format 3\0');
    const { keys, logged } = await sqliteKeys(db, new MemorySecrets());
    await keys.ready();
    expect(logged).toEqual([expect.stringMatching(/^warn: no signing key file beside .*copied\.db: made .*copied/)]);
  });

  it('is left alone by read-only callers, which publish what exists', async () => {
    const db = join(dir, 'tollgate.db');
    const { keys } = await sqliteKeys(db, new MemorySecrets(), { readOnly: true });
    expect(await keys.jwks()).toEqual({ keys: [] });
    await expect(keys.ready()).rejects.toThrow(/no signing key in .*tollgate\.db\.signing-key\.pem yet/);
    expect(existsSync(keyFilePath(db))).toBe(false);
  });

  it('is not used with TOLLGATE_SIGNING_KEY set, but what it retired stays published', async () => {
    const db = join(dir, 'tollgate.db');
    const before = await (await sqliteKeys(db, new MemorySecrets())).keys.ready();
    const rotation = await rotateKeyFile(db);
    expect(rotation.old.kid).toBe(before.kid);
    expect(modeOf(keyFilePath(db))).toBe(0o600);
    const after = await sqliteKeys(db, new MemorySecrets());
    expect((await after.keys.jwks()).keys.map((k) => k.kid)).toEqual([rotation.key.kid, before.kid]);
    const pem = pemOf();
    const own = await sqliteKeys(db, new MemorySecrets(), { env: { TOLLGATE_SIGNING_KEY: pem } });
    expect(own.keys.place).toBe('setting');
    const kids = (await own.keys.jwks()).keys.map((k) => k.kid);
    expect(kids).toEqual([(await own.keys.ready()).kid, before.kid]);
  });

  it('is kept in memory for an in-memory database', async () => {
    const { keys } = await sqliteKeys(':memory:', new MemorySecrets());
    expect(keys.place).toBe('memory');
    expect((await keys.ready()).kid).toMatch(/^[\w-]{43}$/);
    expect(existsSync(keyFilePath(':memory:'))).toBe(false);
  });
});
