/**
 * @module push/subscriptions
 * Web Push subscriptions: one browser (or native app) of one person, as the browser's Push API gave it — the push
 * service's `endpoint` and the keys its messages are encrypted to (`p256dh`, `auth`). They live in the database
 * (`push_subscriptions`, both dialects), so every replica pushes to every device. The store contract, and the check of
 * a `PushSubscription` JSON posted by a browser.
 *
 * @remarks Left out: the browser's `expirationTime` (push services that expire a subscription answer 404/410, and the
 * sender removes it then) and any per-device preference: a subscribed device gets every request waiting for its person.
 */
import { ValidationError } from '../api/errors.js';
import { isAllowedTarget, outboundUrlProblem } from '../utils/outbound.js';

/** A subscription as stored. */
export interface PushSubscriptionRecord {
  /** A random id: what an action token names, so a token works only while its device is subscribed. */
  id: string;
  /** The directory person the device belongs to (or the account itself, for a person of their own). */
  person: string;
  /** The account decisions from this device are made as (`web:alice`, `person:alice`). */
  account: string;
  endpoint: string;
  /** The browser's ECDH P-256 public key (base64url, 65 bytes uncompressed). */
  p256dh: string;
  /** The browser's 16-byte auth secret (base64url). */
  auth: string;
  createdAt: Date;
}

/** A `push_subscriptions` row as both dialects read it (SQLite keeps times as ISO text, PostgreSQL as timestamps). */
export interface PushSubscriptionRow {
  id: string;
  person: string;
  account: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: string | Date;
}

/** A row, as the stores answer it. */
export function subscriptionFromRow(row: PushSubscriptionRow): PushSubscriptionRecord {
  return {
    id: row.id,
    person: row.person,
    account: row.account,
    endpoint: row.endpoint,
    p256dh: row.p256dh,
    auth: row.auth,
    createdAt: new Date(row.created_at),
  };
}

/** The push subscriptions of a deployment. */
export interface PushSubscriptionStore {
  /**
   * Stores `record`; the same person's device subscribing again (same endpoint) replaces its keys. An endpoint another
   * person holds is left as it is, and null is answered: whoever learns an endpoint must not take its pushes over.
   */
  save(record: PushSubscriptionRecord): Promise<PushSubscriptionRecord | null>;
  /** Every device of `person`, oldest first. */
  ofPerson(person: string): Promise<PushSubscriptionRecord[]>;
  get(id: string): Promise<PushSubscriptionRecord | null>;
  /** Removes the subscription with `endpoint` (only `person`'s, when given); true when a row went. */
  remove(endpoint: string, person?: string): Promise<boolean>;
}

/** What a browser's `PushSubscription.toJSON()` gives, checked. */
export interface SubscriptionInput {
  endpoint: string;
  p256dh: string;
  auth: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * Checks a browser's `PushSubscription` JSON. The endpoint must be https and pass the outbound check
 * (`utils/outbound`): a push service is on the public internet, and anything else would let whoever subscribes make
 * the gateway post to the metadata endpoint or the private network, reading the answer from whether the row is then
 * removed. Hosts the operator allows (`TOLLGATE_OUTBOUND_ALLOW`: a test's fake, a bridge on the same host) may also be
 * plain http. Throws a ValidationError naming the field.
 */
export function parseSubscription(body: unknown, allow: readonly string[]): SubscriptionInput {
  const problem = (path: string, message: string) => new ValidationError(`${path}: ${message}`, [{ path, message }]);
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw problem('body', 'expected a PushSubscription JSON object');
  const { endpoint, keys } = body as { endpoint?: unknown; keys?: unknown };
  if (typeof endpoint !== 'string' || endpoint.length > 2000)
    throw problem('endpoint', 'expected a URL of at most 2000 characters');
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw problem('endpoint', 'not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowedTarget(endpoint, allow)))
    throw problem('endpoint', 'must be an https URL (a push service)');
  if (url.username || url.password) throw problem('endpoint', 'must not carry credentials');
  const refused = outboundUrlProblem(endpoint, allow);
  if (refused) throw problem('endpoint', refused);
  const { p256dh, auth } = (keys && typeof keys === 'object' ? keys : {}) as { p256dh?: unknown; auth?: unknown };
  if (typeof p256dh !== 'string' || !BASE64URL.test(p256dh) || Buffer.from(p256dh, 'base64url').length !== 65)
    throw problem('keys.p256dh', 'expected a P-256 public key (65 bytes, base64url)');
  if (typeof auth !== 'string' || !BASE64URL.test(auth) || Buffer.from(auth, 'base64url').length !== 16)
    throw problem('keys.auth', 'expected a 16-byte auth secret (base64url)');
  return { endpoint, p256dh: p256dh.replace(/=+$/, ''), auth: auth.replace(/=+$/, '') };
}

/** The endpoint named by a DELETE body (`{endpoint}`), checked. */
export function endpointOf(body: unknown): string {
  const endpoint = body && typeof body === 'object' ? (body as { endpoint?: unknown }).endpoint : undefined;
  if (typeof endpoint !== 'string' || !endpoint || endpoint.length > 2000)
    throw new ValidationError('endpoint: required (the subscription to remove)', [
      { path: 'endpoint', message: 'required' },
    ]);
  return endpoint;
}
