/**
 * @module channels/feishu/verify
 * Authenticates a Feishu callback before anything reads it. The SDK's HTTP adapter answers a bad signature with an
 * empty 200 and never checks the timestamp or the 2.0 verification token, so tollgate does all of it here:
 * decryption (AES-256-CBC, key = SHA-256(encrypt key), IV = first 16 bytes), the signature
 * sha256(timestamp + nonce + encrypt key + raw body), a replay window on the signed timestamp, a one-time nonce,
 * the verification token and the app id.
 */
import { createDecipheriv, createHash } from 'node:crypto';
import { secretEquals } from '../../src/utils/secure-compare.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { SharedMarks } from '../../src/contracts/shared-marks.js';
import { SeenOnce } from '../../src/utils/seen-once.js';

/** What verification needs. */
export interface VerifyOptions {
  encryptKey: string;
  verificationToken: string;
  /** When set, a payload naming another app is refused. */
  appId?: string;
  replayWindowS: number;
  now(): number;
  nonces: NonceCache;
  /**
   * Nonces shared by every replica (PostgreSQL): checked by the callback route after {@link verifyCallback} accepted
   * the callback here, so the same signed request sent to another replica is refused too.
   */
  shared?: SharedMarks;
}

/** The outcome: the decrypted payload (and the challenge to echo), or why the callback is refused. */
export type VerifyResult =
  { ok: true; payload: Record<string, unknown>; challenge?: string } | { ok: false; status: 400 | 401; reason: string };

/** Decrypts an `{"encrypt": …}` body. Throws when the key is wrong or the data is damaged. */
export function decryptFeishu(encrypted: string, encryptKey: string): string {
  const data = Buffer.from(encrypted, 'base64');
  if (data.length < 32) throw new Error('encrypted payload too short');
  const key = createHash('sha256').update(encryptKey).digest();
  const decipher = createDecipheriv('aes-256-cbc', key, data.subarray(0, 16));
  return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]).toString('utf8');
}

/** Feishu's callback signature: hex sha256 of timestamp + nonce + encrypt key + the raw body bytes. */
export function feishuSignature(
  timestamp: string,
  nonce: string,
  encryptKey: string,
  rawBody: Buffer | string,
): string {
  return createHash('sha256')
    .update(timestamp + nonce + encryptKey)
    .update(rawBody)
    .digest('hex');
}

/** Remembers the nonces of accepted callbacks for twice the replay window, so the same signed request works only once. */
export class NonceCache extends SeenOnce<string> {
  constructor(windowMs: number, max = 50_000) {
    super(windowMs * 2, max);
  }
}

/**
 * Verifies one callback. URL-verification challenges (sent when the callback URL is saved in the console) pass with
 * a matching token (and a matching signature when Feishu signs them); everything else needs every check.
 */
export function verifyCallback(rawBody: Buffer, headers: IncomingHttpHeaders, options: VerifyOptions): VerifyResult {
  let outer: unknown;
  try {
    outer = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return { ok: false, status: 400, reason: 'body is not JSON' };
  }
  if (!isObject(outer)) return { ok: false, status: 400, reason: 'body is not a JSON object' };

  let payload: Record<string, unknown> = outer;
  if ('encrypt' in outer) {
    if (typeof outer.encrypt !== 'string')
      return { ok: false, status: 400, reason: 'encrypt: expected a base64 string' };
    try {
      const inner: unknown = JSON.parse(decryptFeishu(outer.encrypt, options.encryptKey));
      if (!isObject(inner)) throw new Error('not an object');
      payload = inner;
    } catch {
      return { ok: false, status: 401, reason: 'cannot decrypt the body: FEISHU_ENCRYPT_KEY does not match the app' };
    }
  }

  const timestamp = header(headers, 'x-lark-request-timestamp');
  const nonce = header(headers, 'x-lark-request-nonce');
  const signature = header(headers, 'x-lark-signature');
  const signed = Boolean(timestamp && nonce && signature);
  if (
    signed &&
    !secretEquals(feishuSignature(timestamp!, nonce!, options.encryptKey, rawBody), signature!.toLowerCase())
  ) {
    return { ok: false, status: 401, reason: 'signature does not match' };
  }

  const token = tokenOf(payload);
  if (!secretEquals(token, options.verificationToken))
    return { ok: false, status: 401, reason: 'verification token does not match' };

  if (payload.type === 'url_verification') {
    if (typeof payload.challenge !== 'string')
      return { ok: false, status: 400, reason: 'challenge: expected a string' };
    return { ok: true, payload, challenge: payload.challenge };
  }

  if (!signed)
    return {
      ok: false,
      status: 401,
      reason: 'missing X-Lark-Signature, X-Lark-Request-Timestamp or X-Lark-Request-Nonce',
    };
  const seconds = Number(timestamp);
  const now = options.now();
  if (!Number.isFinite(seconds) || Math.abs(now - seconds * 1000) > options.replayWindowS * 1000) {
    return { ok: false, status: 401, reason: `timestamp outside the ${options.replayWindowS} s replay window` };
  }
  const appId = isObject(payload.header) ? payload.header.app_id : undefined;
  if (options.appId && typeof appId === 'string' && appId !== options.appId)
    return { ok: false, status: 401, reason: 'callback is for another app' };
  // Last, so that only authentic requests occupy the cache.
  if (!options.nonces.firstUse(nonce!, now))
    return { ok: false, status: 401, reason: 'replayed callback (nonce already used)' };
  return { ok: true, payload };
}

/** The verification token: `header.token` in 2.0 payloads, `token` in 1.0 ones and challenges. */
function tokenOf(payload: Record<string, unknown>): string {
  if (isObject(payload.header) && typeof payload.header.token === 'string') return payload.header.token;
  return typeof payload.token === 'string' ? payload.token : '';
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
