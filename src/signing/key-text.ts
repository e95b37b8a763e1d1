/**
 * @module signing/key-text
 * Ed25519 keys as text: a PKCS#8 PEM or a JWK for the private key, a JWKS, JWK array or PEM blocks for retired public
 * ones, the 32-byte seed an older gateway kept in the database. Every refusal names where the text came from.
 */
import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { TollgateError } from '../api/errors.js';

/** A signing-key setting that cannot be used (names the variable, and the file when there is one); stops the start. */
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

/**
 * The public JWK of `key` as `/.well-known/jwks.json` lists it, with its RFC 7638 thumbprint as `kid`. The thumbprint
 * of an OKP key is the SHA-256 of `{"crv","kty","x"}` in that order, computed here rather than with jose, so loading the
 * key at start does not load jose (a gateway that is never asked to verify should not carry it).
 */
export async function publishedJwk(key: KeyObject): Promise<JWK> {
  const { kty, crv, x } = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' });
  const kid = createHash('sha256').update(JSON.stringify({ crv, kty, x })).digest('base64url');
  return { kty, crv, x, kid, alg: 'EdDSA', use: 'sig' };
}

/** The {@link SigningKey} of a private key object. */
export async function signingKeyOf(privateKey: KeyObject): Promise<SigningKey> {
  const publicJwk = await publishedJwk(privateKey);
  return { kid: publicJwk.kid!, privateKey, publicJwk };
}

/** Parses a PEM or JWK text into a key object, private or public as asked; throws {@link SigningKeyError} naming `source`. */
export function parseKey(text: string, source: string, kind: 'private' | 'public'): KeyObject {
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
      `${source}: not a usable ${kind} key (${(error as Error).message.split('\n')[0]}); give an Ed25519 key as PKCS#8 PEM or JWK`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new SigningKeyError(
      `${source}: an ${key.asymmetricKeyType ?? 'unknown'} key; verdicts are signed with Ed25519 only (openssl genpkey -algorithm ed25519)`,
    );
  }
  if (kind === 'private' && key.type !== 'private')
    throw new SigningKeyError(`${source}: a public key; the gateway needs the private key to sign`);
  return key;
}

/** The key a setting names; throws {@link SigningKeyError} for anything but an Ed25519 private key. */
export async function keyFromSetting(text: string, source = 'TOLLGATE_SIGNING_KEY'): Promise<SigningKey> {
  return signingKeyOf(parseKey(text, source, 'private'));
}

/** The Ed25519 key whose seed is a deployment secret (32 random bytes, base64url): the key older gateways kept in the database. */
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
 * The public keys of a retired-keys text (`TOLLGATE_SIGNING_KEYS_RETIRED`, or the retired-keys file beside a SQLite
 * database): a JWKS (`{"keys": […]}`, what `/.well-known/jwks.json` served), a JSON array of JWKs, or PEM blocks one
 * after another. Private parts given by mistake are dropped, never published.
 */
export async function retiredKeys(text: string | undefined, source = 'TOLLGATE_SIGNING_KEYS_RETIRED'): Promise<JWK[]> {
  const trimmed = text?.trim();
  if (!trimmed) return [];
  let parts: string[];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new SigningKeyError(
        `${source}: not JSON (${(error as Error).message}); give a JWKS, an array of JWKs or PEM blocks`,
      );
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown }).keys;
    if (!Array.isArray(list))
      throw new SigningKeyError(`${source}: a JSON object without "keys"; give a JWKS, an array of JWKs or PEM blocks`);
    parts = list.map((k) => JSON.stringify(k));
  } else {
    parts = trimmed.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
    if (parts.length === 0)
      throw new SigningKeyError(`${source}: no PEM block found; give a JWKS, an array of JWKs or PEM blocks`);
  }
  return Promise.all(parts.map((part) => publishedJwk(parseKey(part, source, 'public'))));
}

/** `keys` without repeats (by `kid`), first occurrence kept: a key named both current and retired is listed once. */
export function uniqueKeys(keys: readonly JWK[]): JWK[] {
  const seen = new Set<string | undefined>();
  return keys.filter((k) => !seen.has(k.kid) && seen.add(k.kid));
}
