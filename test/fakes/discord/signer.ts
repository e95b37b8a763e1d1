/**
 * Signs interactions as Discord does: an Ed25519 key pair per test, the public key handed to the adapter as 64 hex
 * characters (as the developer portal shows it), `X-Signature-Ed25519` = hex signature of timestamp + raw body,
 * `X-Signature-Timestamp` = seconds since the epoch. Written from Discord's description, independently of the
 * adapter's code, so a mistake in one does not hide in the other.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

/** How to bend a signed post for a negative test. */
export interface SignOptions {
  /** Seconds since the epoch to sign with (default: now). */
  timestamp?: number;
  /** Replaces the computed signature. */
  signature?: string;
  /** Sign with another key (a forger's). */
  forged?: boolean;
  /** Changes the body after it was signed (tampering in transit). */
  tamper?: (body: string) => string;
  /** Leave out both signature headers. */
  unsigned?: boolean;
}

/** An application's key pair. */
export class DiscordSigner {
  /** The public key as the developer portal shows it: 32 bytes, hex. */
  readonly publicKeyHex: string;
  private readonly privateKey: KeyObject;
  private readonly forgerKey: KeyObject;

  constructor() {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    this.privateKey = privateKey;
    this.forgerKey = generateKeyPairSync('ed25519').privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.publicKeyHex = Buffer.from(jwk.x!, 'base64url').toString('hex');
  }

  /** The headers Discord sends with `body`. */
  headers(body: string, options: SignOptions = {}): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Discord-Interactions/1.0 (+https://discord.com)',
    };
    if (options.unsigned) return headers;
    const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
    const key = options.forged ? this.forgerKey : this.privateKey;
    headers['x-signature-timestamp'] = timestamp;
    headers['x-signature-ed25519'] =
      options.signature ?? sign(null, Buffer.from(timestamp + body, 'utf8'), key).toString('hex');
    return headers;
  }

  /** Posts `payload` to `url` signed (or bent by `options`), as Discord posts an interaction. */
  async post(url: string, payload: unknown, options: SignOptions = {}): Promise<Response> {
    const body = JSON.stringify(payload);
    const headers = this.headers(body, options);
    return fetch(url, { method: 'POST', headers, body: options.tamper ? options.tamper(body) : body });
  }
}
