/**
 * Loading the verdict-signing key: PEM and JWK settings, Ed25519 only, errors that name the variable; the database's
 * key is the stored seed, read once at ready(); retired keys published without their private parts. Key files:
 * `key-files.test.ts`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { describe, expect, it } from 'vitest';
import { newDeploymentSecret } from '../../../src/contracts/deployment-secrets.js';
import { MemorySecrets } from './memory-secrets.js';
import {
  describeKeyPlace,
  KEY_IN_DATABASE_WARNING,
  keyFromSeed,
  keyFromSetting,
  readSigningSettings,
  retiredKeys,
  SigningKeyError,
  signingKeys,
} from '../../../src/signing/keys.js';
import { DEFAULT_VERDICT_TTL_S, verdictTtlFromEnv } from '../../../src/signing/verdict.js';

const ed25519 = () => generateKeyPairSync('ed25519');
const pem = (k: ReturnType<typeof ed25519>) => ({
  private: k.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  public: k.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
});

describe('TOLLGATE_SIGNING_KEY', () => {
  it('takes a PKCS#8 PEM and a private JWK of the same key alike, with the RFC 7638 thumbprint as kid', async () => {
    const pair = ed25519();
    const fromPem = await keyFromSetting(pem(pair).private);
    const fromJwk = await keyFromSetting(JSON.stringify(pair.privateKey.export({ format: 'jwk' })));
    expect(fromJwk.kid).toBe(fromPem.kid);
    const { x } = pair.publicKey.export({ format: 'jwk' });
    expect(fromPem.kid).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x }));
    expect(fromPem.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x, kid: fromPem.kid, alg: 'EdDSA', use: 'sig' });
  });

  it('refuses other key types, public keys and garbage, naming the variable', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    await expect(keyFromSetting(rsa)).rejects.toThrow(
      /^TOLLGATE_SIGNING_KEY: an rsa key; verdicts are signed with Ed25519 only/,
    );
    await expect(keyFromSetting(pem(ed25519()).public)).rejects.toThrow(/TOLLGATE_SIGNING_KEY: .*private key/);
    await expect(keyFromSetting('hunter2')).rejects.toThrow(
      /^TOLLGATE_SIGNING_KEY: not a usable private key \(expected a PEM block or a JSON Web Key\)/,
    );
    await expect(keyFromSetting('{"kty":"OKP","crv":"Ed25519"}')).rejects.toBeInstanceOf(SigningKeyError);
    await expect(keyFromSetting('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----')).rejects.toMatchObject({
      code: 'tollgate_signing_key_invalid',
    });
  });
});

describe('the key in the database (PostgreSQL with nothing configured)', () => {
  it('is the stored 32-byte seed: the same secret gives the same key', async () => {
    const seed = newDeploymentSecret();
    expect((await keyFromSeed(seed)).kid).toBe((await keyFromSeed(seed)).kid);
    expect((await keyFromSeed(newDeploymentSecret())).kid).not.toBe((await keyFromSeed(seed)).kid);
    await expect(keyFromSeed('c2hvcnQ')).rejects.toThrow(/verdict_signing secret is 5 bytes/);
  });

  it('is read once, at ready(), says where it lives, and is there synchronously after', async () => {
    const secrets = new MemorySecrets();
    const keys = signingKeys(await readSigningSettings({}), { secrets });
    expect(keys.place).toBe('database');
    expect(describeKeyPlace(keys)).toContain(KEY_IN_DATABASE_WARNING);
    expect(secrets.reads).toBe(0);
    expect(() => keys.currentSync()).toThrow(/await keys.ready\(\)/);
    const first = await keys.ready();
    await keys.current();
    expect(keys.currentSync()).toBe(first);
    expect(secrets.reads).toBe(1);
    expect(first.kid).toBe((await keyFromSeed(secrets.values.get('verdict_signing')!)).kid);

    const configured = new MemorySecrets();
    const own = signingKeys(await readSigningSettings({ TOLLGATE_SIGNING_KEY: pem(ed25519()).private }), {
      secrets: configured,
    });
    expect(own.place).toBe('setting');
    await own.ready();
    expect(configured.reads).toBe(0);
  });

  it('tries the database again after a failed read', async () => {
    let fail = true;
    const flaky = new MemorySecrets();
    const get = flaky.get.bind(flaky);
    flaky.get = async (name) => (fail ? Promise.reject(new Error('connection refused')) : get(name));
    const keys = signingKeys(await readSigningSettings({}), { secrets: flaky });
    await expect(keys.ready()).rejects.toThrow('connection refused');
    fail = false;
    expect((await keys.ready()).kid).toMatch(/^[\w-]{43}$/);
  });
});

describe('TOLLGATE_SIGNING_KEYS_RETIRED', () => {
  it('publishes retired keys after the current one, from a JWKS, a JWK array or PEM blocks, never their private parts', async () => {
    const [a, b] = [ed25519(), ed25519()];
    const fromPem = await retiredKeys(`${pem(a).public}\n${pem(b).private}`);
    expect(fromPem).toHaveLength(2);
    for (const k of fromPem) expect(k).not.toHaveProperty('d');
    const jwks = { keys: fromPem };
    expect(await retiredKeys(JSON.stringify(jwks))).toEqual(fromPem);
    expect(await retiredKeys(JSON.stringify(fromPem))).toEqual(fromPem);
    expect(await retiredKeys(JSON.stringify([b.privateKey.export({ format: 'jwk' })]))).toEqual([fromPem[1]]);

    const keys = signingKeys(
      await readSigningSettings({
        TOLLGATE_SIGNING_KEY: pem(a).private,
        TOLLGATE_SIGNING_KEYS_RETIRED: JSON.stringify(jwks),
      }),
      { secrets: new MemorySecrets() },
    );
    // The current key is listed once, first, although the retired list names it too.
    expect((await keys.jwks()).keys.map((k) => k.kid)).toEqual([fromPem[0]!.kid, fromPem[1]!.kid]);
  });

  it('refuses what it cannot read, naming the variable', async () => {
    await expect(retiredKeys('{"nope": 1}')).rejects.toThrow(
      /^TOLLGATE_SIGNING_KEYS_RETIRED: a JSON object without "keys"/,
    );
    await expect(retiredKeys('[{')).rejects.toThrow(/^TOLLGATE_SIGNING_KEYS_RETIRED: not JSON/);
    await expect(retiredKeys('just text')).rejects.toThrow(/^TOLLGATE_SIGNING_KEYS_RETIRED: no PEM block found/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .publicKey.export({ format: 'pem', type: 'spki' })
      .toString();
    await expect(retiredKeys(rsa)).rejects.toThrow(/^TOLLGATE_SIGNING_KEYS_RETIRED: an rsa key/);
    expect(await retiredKeys('  ')).toEqual([]);
  });
});

describe('TOLLGATE_VERDICT_TTL_S', () => {
  it('defaults to an hour and takes whole positive seconds only', () => {
    expect(verdictTtlFromEnv({})).toBe(DEFAULT_VERDICT_TTL_S);
    expect(verdictTtlFromEnv({ TOLLGATE_VERDICT_TTL_S: '300' })).toBe(300);
    expect(() => verdictTtlFromEnv({ TOLLGATE_VERDICT_TTL_S: '0' })).toThrow(
      /^TOLLGATE_VERDICT_TTL_S: must be a positive whole number/,
    );
    expect(() => verdictTtlFromEnv({ TOLLGATE_VERDICT_TTL_S: '1.5' })).toThrow(/TOLLGATE_VERDICT_TTL_S/);
  });
});
