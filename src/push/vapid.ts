/**
 * @module push/vapid
 * The deployment's VAPID key pair (RFC 8292): the ES256 key every push is signed with, so push services know the
 * messages come from the server the browser subscribed to. One per deployment, shared by replicas: it is derived from
 * a deployment secret (`vapid`, generated on first start and kept in the database like the session key), so every
 * replica and every restart signs with the same key and subscriptions stay valid.
 *
 * @remarks Left out: rotation. A new key invalidates every subscription (browsers bind them to the key); to rotate,
 * delete the `vapid` secret row and let people subscribe again.
 */
import { createECDH, createHash } from 'node:crypto';

/** A VAPID key pair, base64url as the Push API and `web-push` take it. */
export interface VapidKeys {
  /** The uncompressed P-256 public key (65 bytes): `applicationServerKey` in the browser, `GET /ui/push/key`. */
  publicKey: string;
  /** The private scalar (32 bytes). */
  privateKey: string;
}

/**
 * The key pair derived from `secret` (the deployment's `vapid` secret). A P-256 private key is a 32-byte number below
 * the curve's order; the secret's hash is one with overwhelming odds, and the next hash is tried on the rare miss, so
 * every replica derives the same pair.
 * @example const keys = vapidKeysFrom(await secrets.get('vapid'));
 */
export function vapidKeysFrom(secret: string): VapidKeys {
  for (let round = 0; ; round++) {
    const scalar = createHash('sha256').update(`tollgate-vapid|${round}|${secret}`).digest();
    const ecdh = createECDH('prime256v1');
    try {
      ecdh.setPrivateKey(scalar);
    } catch {
      continue; // zero or not below the order: practically never
    }
    return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: scalar.toString('base64url') };
  }
}

/**
 * The VAPID `sub` claim: `TOLLGATE_VAPID_SUBJECT` (a `mailto:` or https URL), else the public URL when it is https,
 * else a `mailto:` of this host (push services only read it to contact an operator).
 * @throws Error naming the variable when it is set to something else.
 */
export function vapidSubject(configured: string | undefined, publicUrl: string | null): string {
  if (configured) {
    if (!/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(configured))
      throw new Error(
        `TOLLGATE_VAPID_SUBJECT: expected a mailto: address or an https URL, got ${configured.slice(0, 100)}`,
      );
    return configured;
  }
  if (publicUrl?.startsWith('https://')) return publicUrl;
  return 'mailto:tollgate@localhost';
}
