/**
 * Loading the verdict-signing key: PEM and JWK settings, Ed25519 only, errors that name the variable; the generated
 * key is the stored seed, read once; retired keys published without their private parts.
 */
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { describe, expect, it } from 'vitest';
import type { DeploymentSecrets, SecretName } from '../../../src/contracts/deployment-secrets.js';
import { newDeploymentSecret } from '../../../src/contracts/deployment-secrets.js';
import {
  keyFromSeed,
  keyFromSetting,
  loadSigningKeys,
  retiredKeys,
  SigningKeyError,
} from '../../../src/signing/keys.js';
import { DEFAULT_VERDICT_TTL_S, verdictTtlFromEnv } from '../../../src/signing/verdict.js';

const ed25519 = () => generateKeyPairSync('ed25519');
const pem = (k: ReturnType<typeof ed25519>) => ({
  private: k.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  public: k.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
});

/** Secrets in memory, counting reads: what a database would hold. */
class MemorySecrets implements DeploymentSecrets {
  readonly values = new Map<SecretName, string>();
  reads = 0;
  async get(name: SecretName): Promise<string> {
    this.reads++;
    if (!this.values.has(name)) this.values.set(name, newDeploymentSecret());
    return this.values.get(name)!;
  }
}

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

describe('the generated key', () => {
  it('is the stored 32-byte seed: the same secret gives the same key', async () => {
    const seed = newDeploymentSecret();
    expect((await keyFromSeed(seed)).kid).toBe((await keyFromSeed(seed)).kid);
    expect((await keyFromSeed(newDeploymentSecret())).kid).not.toBe((await keyFromSeed(seed)).kid);
    await expect(keyFromSeed('c2hvcnQ')).rejects.toThrow(/verdict_signing secret is 5 bytes/);
  });

  it('is read from the deployment secrets on first use only, and not at all when a key is configured', async () => {
    const secrets = new MemorySecrets();
    const keys = await loadSigningKeys({}, secrets);
    expect(secrets.reads).toBe(0);
    const first = await keys.current();
    await keys.current();
    expect(secrets.reads).toBe(1);
    expect(first.kid).toBe((await keyFromSeed(secrets.values.get('verdict_signing')!)).kid);

    const configured = new MemorySecrets();
    const own = await loadSigningKeys({ TOLLGATE_SIGNING_KEY: pem(ed25519()).private }, configured);
    await own.current();
    expect(configured.reads).toBe(0);
  });

  it('tries the database again after a failed read', async () => {
    let fail = true;
    const flaky: DeploymentSecrets = {
      get: async () => (fail ? Promise.reject(new Error('connection refused')) : newDeploymentSecret()),
    };
    const keys = await loadSigningKeys({}, flaky);
    await expect(keys.current()).rejects.toThrow('connection refused');
    fail = false;
    expect((await keys.current()).kid).toMatch(/^[\w-]{43}$/);
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

    const keys = await loadSigningKeys(
      { TOLLGATE_SIGNING_KEY: pem(a).private, TOLLGATE_SIGNING_KEYS_RETIRED: JSON.stringify(jwks) },
      new MemorySecrets(),
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
