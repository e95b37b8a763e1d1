/**
 * A hand-written push service on 127.0.0.1 (port 0), speaking the Web Push protocol as FCM or Mozilla's autopush do:
 * `POST /push/<device>` with an `aes128gcm` body (RFC 8188/8291) and `Authorization: vapid t=<JWT>, k=<key>`
 * (RFC 8292). Devices are made the way a browser makes them: an ECDH P-256 key pair and a 16-byte auth secret,
 * generated here with `node:crypto` ({@link FakePushService.device}). Every message is checked and opened: the VAPID
 * JWT's ES256 signature against the key in `k` (which must be the gateway's, when told), its `aud` and `exp`; then the
 * body decrypted with the device's private key and auth secret. A device can be made to answer 404 or 410 (gone) or
 * 429 (slow down), as a real push service does.
 */
import { createECDH, createDecipheriv, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A browser's subscription, with the private half the browser keeps. */
export interface FakeDevice {
  id: string;
  /** What `PushSubscription.toJSON()` gives: post this to the gateway. */
  subscription: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  ecdh: ECDH;
  auth: Buffer;
  /** The status this device's endpoint answers with (201 until changed). */
  status: number;
}

/** One message the service accepted (or refused), opened. */
export interface ReceivedPush {
  device: string;
  status: number;
  headers: { ttl: number; urgency: string | undefined; topic: string | undefined; contentEncoding: string | undefined };
  /** The JWT's claims (`aud`, `exp`, `sub`) and the key it was signed with. */
  vapid: { claims: { aud: string; exp: number; sub: string }; key: string };
  /** The decrypted body, parsed as JSON. */
  payload: Record<string, unknown>;
  /** Size of the encrypted body in bytes. */
  bytes: number;
  /** `performance.now()` when it arrived (for the bench). */
  at: number;
}

const b64 = (buf: Buffer) => buf.toString('base64url');

/** The fake push service. */
export class FakePushService {
  readonly received: ReceivedPush[] = [];
  /** Problems found in messages (a bad signature, a wrong key, a body that does not decrypt): a test expects none. */
  readonly problems: string[] = [];
  /** When set, a message signed with another VAPID key is refused (403) and recorded as a problem. */
  expectedKey: string | null = null;
  private readonly devices = new Map<string, FakeDevice>();
  private readonly waiters: (() => void)[] = [];
  private server: Server | null = null;
  url = '';

  /** Starts listening on 127.0.0.1. */
  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A new device, as a browser subscribing makes one. */
  device(): FakeDevice {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const id = b64(randomBytes(12));
    const device: FakeDevice = {
      id,
      ecdh,
      auth,
      status: 201,
      subscription: {
        endpoint: `${this.url}/push/${id}`,
        expirationTime: null,
        keys: { p256dh: b64(ecdh.getPublicKey()), auth: b64(auth) },
      },
    };
    this.devices.set(id, device);
    return device;
  }

  /** The messages `device` got, in order. */
  messagesOf(device: FakeDevice): ReceivedPush[] {
    return this.received.filter((m) => m.device === device.id);
  }

  /** Resolves once `count` messages in all have arrived (rejects after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline)
        throw new Error(
          `expected ${count} pushes, got ${this.received.length}; problems: ${this.problems.join('; ') || 'none'}`,
        );
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const device = this.devices.get((req.url ?? '').replace(/^\/push\//, ''));
    if (req.method !== 'POST' || !device) {
      res.writeHead(404).end();
      return;
    }
    const vapid = this.checkVapid(req.headers.authorization, device);
    if (typeof vapid === 'string') {
      this.problems.push(vapid);
      res.writeHead(403).end(vapid);
      return;
    }
    let payload: Record<string, unknown>;
    try {
      if (req.headers['content-encoding'] !== 'aes128gcm')
        throw new Error(`content-encoding ${req.headers['content-encoding']}`);
      payload = JSON.parse(decrypt(body, device).toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      this.problems.push(`message to ${device.id} does not decrypt: ${(error as Error).message}`);
      res.writeHead(400).end();
      return;
    }
    const ttl = Number(req.headers.ttl);
    if (!Number.isInteger(ttl) || ttl < 0) this.problems.push(`TTL header ${req.headers.ttl}`);
    this.received.push({
      device: device.id,
      status: device.status,
      headers: {
        ttl,
        urgency: header(req, 'urgency'),
        topic: header(req, 'topic'),
        contentEncoding: header(req, 'content-encoding'),
      },
      vapid,
      payload,
      bytes: body.length,
      at: performance.now(),
    });
    for (const wake of this.waiters.splice(0)) wake();
    res
      .writeHead(
        device.status,
        device.status === 201 ? { location: `${this.url}/message/${randomBytes(6).toString('hex')}` } : {},
      )
      .end();
  }

  /** Checks `Authorization: vapid t=…, k=…` (RFC 8292); a string says what is wrong. */
  private checkVapid(authorization: string | undefined, device: FakeDevice): ReceivedPush['vapid'] | string {
    const match = /^vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$/.exec(
      authorization ?? '',
    );
    if (!match) return `no vapid authorization: ${authorization}`;
    const [, jwt, key] = match as unknown as [string, string, string];
    if (this.expectedKey && key !== this.expectedKey) return `signed with another VAPID key: ${key}`;
    const [head, claims, signature] = jwt.split('.') as [string, string, string];
    const raw = Buffer.from(key, 'base64url');
    if (raw.length !== 65 || raw[0] !== 4) return 'k is not an uncompressed P-256 key';
    const publicKey = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: b64(raw.subarray(1, 33)), y: b64(raw.subarray(33)) },
      format: 'jwk',
    });
    if (
      !verify(
        'sha256',
        Buffer.from(`${head}.${claims}`),
        { key: publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      )
    )
      return 'VAPID JWT signature does not verify';
    const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string };
    if (header.alg !== 'ES256') return `VAPID JWT alg ${header.alg}`;
    const parsed = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as {
      aud: string;
      exp: number;
      sub: string;
    };
    if (parsed.aud !== new URL(device.subscription.endpoint).origin) return `VAPID aud ${parsed.aud}`;
    const now = Date.now() / 1000;
    if (!(parsed.exp > now && parsed.exp <= now + 24 * 3600)) return `VAPID exp ${parsed.exp}`;
    if (!/^(mailto:|https:)/.test(parsed.sub ?? '')) return `VAPID sub ${parsed.sub}`;
    return { claims: parsed, key };
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Opens an `aes128gcm` body (RFC 8188 header: salt, record size, key id = the sender's ephemeral public key) with the
 * device's keys (RFC 8291): ECDH, then HKDF with the auth secret, then the content key and nonce, then AES-128-GCM
 * over the one record, whose padding ends at the last 0x02.
 */
function decrypt(body: Buffer, device: FakeDevice): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (idLength !== 65) throw new Error(`key id of ${idLength} bytes`);
  if (record.length > recordSize) throw new Error('more than one record');
  const shared = device.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), device.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, device.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  const end = plain.lastIndexOf(2);
  if (end < 0 || plain.subarray(end + 1).some((b) => b !== 0)) throw new Error('no last-record padding delimiter');
  return plain.subarray(0, end);
}
