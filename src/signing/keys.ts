/**
 * @module signing/keys
 * The verdict-signing key: Ed25519 only. `TOLLGATE_SIGNING_KEY` (a PKCS#8 PEM or a private JWK) wins; without it the
 * key is the deployment secret `verdict_signing` (32 random bytes kept in the database, used as the Ed25519 seed), so
 * every replica on one database signs with the same key and nobody configures anything. Retired public keys stay
 * published from `TOLLGATE_SIGNING_KEYS_RETIRED` (a JWKS as `/.well-known/jwks.json` served it, or PEM blocks), so a
 * verdict signed before a rotation still verifies until it expires.
 *
 * @remarks Left out: rotating on a schedule. Rotation is an operator's act (see docs/audit.md): copy the served JWKS
 * into `TOLLGATE_SIGNING_KEYS_RETIRED`, then set a new `TOLLGATE_SIGNING_KEY` (or delete the `verdict_signing` row).
 */
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import type { DeploymentSecrets } from '../contracts/deployment-secrets.js';
import { TollgateError } from '../api/errors.js';

/** A signing-key setting that cannot be used (names the variable); stops the start. */
export class SigningKeyError extends TollgateError {
  constructor(message: string) {
    super(message, 500, 'tollgate_signing_key_invalid');
  }
}

/** A private key ready to sign, with its public JWK and key id. */
export interface SigningKey {
  /** RFC 7638 thumbprint of the public JWK: the JWS header's `kid`. */
  kid: string;
  privateKey: KeyObject;
  /** The public half as published: `{kty, crv, x, kid, alg, use}`. */
  publicJwk: JWK;
}

/** PKCS#8 DER of an Ed25519 key is this fixed prefix and the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The public JWK of `key` as `/.well-known/jwks.json` lists it, with its thumbprint as `kid`. */
export async function publishedJwk(key: KeyObject): Promise<JWK> {
  const { kty, crv, x } = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' });
  const jwk: JWK = { kty, crv, x };
  // jose is loaded at the first key, not at start: a gateway that never signs (no key configured, no verdict asked
  // for yet) should not carry it.
  const { calculateJwkThumbprint } = await import('jose');
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: 'EdDSA', use: 'sig' };
}

async function signingKeyOf(privateKey: KeyObject): Promise<SigningKey> {
  const publicJwk = await publishedJwk(privateKey);
  return { kid: publicJwk.kid!, privateKey, publicJwk };
}

/** Parses a PEM or JWK text into a key object, private or public as asked; throws {@link SigningKeyError} naming `variable`. */
function parseKey(text: string, variable: string, kind: 'private' | 'public'): KeyObject {
  const trimmed = text.trim();
  let key: KeyObject;
  try {
    if (trimmed.startsWith('{')) {
      const jwk = JSON.parse(trimmed) as JsonWebKey & { d?: string };
      key =
        kind === 'private' || jwk.d
          ? createPrivateKey({ key: jwk, format: 'jwk' })
          : createPublicKey({ key: jwk, format: 'jwk' });
    } else if (trimmed.includes('-----BEGIN')) {
      key =
        kind === 'private' || trimmed.includes('PRIVATE KEY') ? createPrivateKey(trimmed) : createPublicKey(trimmed);
    } else {
      throw new Error('expected a PEM block or a JSON Web Key');
    }
  } catch (error) {
    throw new SigningKeyError(
      `${variable}: not a usable ${kind} key (${(error as Error).message.split('\n')[0]}); give an Ed25519 key as PKCS#8 PEM or JWK`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new SigningKeyError(
      `${variable}: an ${key.asymmetricKeyType ?? 'unknown'} key; verdicts are signed with Ed25519 only (openssl genpkey -algorithm ed25519)`,
    );
  }
  if (kind === 'private' && key.type !== 'private')
    throw new SigningKeyError(`${variable}: a public key; the gateway needs the private key to sign`);
  return key;
}

/** The key `TOLLGATE_SIGNING_KEY` names; throws {@link SigningKeyError} for anything but an Ed25519 private key. */
export async function keyFromSetting(text: string, variable = 'TOLLGATE_SIGNING_KEY'): Promise<SigningKey> {
  return signingKeyOf(parseKey(text, variable, 'private'));
}

/** The Ed25519 key whose seed is a deployment secret (32 random bytes, base64url). */
export async function keyFromSeed(seed: string): Promise<SigningKey> {
  const bytes = Buffer.from(seed, 'base64url');
  if (bytes.length !== 32)
    throw new SigningKeyError(
      `the stored verdict_signing secret is ${bytes.length} bytes, not 32; delete its row in deployment_secrets to generate a new key`,
    );
  return signingKeyOf(
    createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, bytes]), format: 'der', type: 'pkcs8' }),
  );
}

/**
 * The public keys of `TOLLGATE_SIGNING_KEYS_RETIRED`: a JWKS (`{"keys": […]}`, what `/.well-known/jwks.json` served),
 * a JSON array of JWKs, or PEM blocks one after another. Private parts given by mistake are dropped, never published.
 */
export async function retiredKeys(
  text: string | undefined,
  variable = 'TOLLGATE_SIGNING_KEYS_RETIRED',
): Promise<JWK[]> {
  const trimmed = text?.trim();
  if (!trimmed) return [];
  let parts: string[];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new SigningKeyError(
        `${variable}: not JSON (${(error as Error).message}); give a JWKS, an array of JWKs or PEM blocks`,
      );
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown }).keys;
    if (!Array.isArray(list))
      throw new SigningKeyError(
        `${variable}: a JSON object without "keys"; give a JWKS, an array of JWKs or PEM blocks`,
      );
    parts = list.map((k) => JSON.stringify(k));
  } else {
    parts = trimmed.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
    if (parts.length === 0)
      throw new SigningKeyError(`${variable}: no PEM block found; give a JWKS, an array of JWKs or PEM blocks`);
  }
  return Promise.all(parts.map((part) => publishedJwk(parseKey(part, variable, 'public'))));
}

/** The keys a gateway signs and publishes with. */
export interface SigningKeys {
  /** The key verdicts and anchors are signed with now (generated and stored on first use when none is configured). */
  current(): Promise<SigningKey>;
  /** Current and retired public keys, current first: the body of `/.well-known/jwks.json`. */
  jwks(): Promise<{ keys: JWK[] }>;
}

/** What the environment says about signing, read before anything opens. */
export interface SigningSettings {
  /** `TOLLGATE_SIGNING_KEY`, checked; null: use the key kept in the database. */
  configured: SigningKey | null;
  /** `TOLLGATE_SIGNING_KEYS_RETIRED`. */
  retired: JWK[];
}

/**
 * Reads and checks the signing variables of `env`: a bad one throws a {@link SigningKeyError} naming it. Call it before
 * the database opens, so a bad setting stops the start with its message and leaves nothing open behind it.
 */
export async function readSigningSettings(env: Record<string, string | undefined>): Promise<SigningSettings> {
  return {
    configured: env.TOLLGATE_SIGNING_KEY?.trim() ? await keyFromSetting(env.TOLLGATE_SIGNING_KEY) : null,
    retired: await retiredKeys(env.TOLLGATE_SIGNING_KEYS_RETIRED),
  };
}

/**
 * The keys of `settings`; without a configured key, the one kept in `secrets`, read (or generated) on first use, so a
 * start writes nothing and a replica that never signs never touches the table.
 */
export function signingKeys(settings: SigningSettings, secrets: DeploymentSecrets): SigningKeys {
  const { configured, retired } = settings;
  let current: Promise<SigningKey> | null = configured ? Promise.resolve(configured) : null;
  const currentKey = (): Promise<SigningKey> => {
    // A failed read (the database away for a moment) is not cached: the next call tries again.
    current ??= secrets
      .get('verdict_signing')
      .then(keyFromSeed)
      .catch((error: unknown) => {
        current = null;
        throw error;
      });
    return current;
  };
  return {
    current: currentKey,
    async jwks() {
      const key = await currentKey();
      return { keys: [key.publicJwk, ...retired.filter((k) => k.kid !== key.kid)] };
    },
  };
}

/** {@link readSigningSettings} then {@link signingKeys}, for callers that hold the secrets already. */
export async function loadSigningKeys(
  env: Record<string, string | undefined>,
  secrets: DeploymentSecrets,
): Promise<SigningKeys> {
  return signingKeys(await readSigningSettings(env), secrets);
}
