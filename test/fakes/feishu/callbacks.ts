/**
 * Builds callbacks exactly as Feishu sends them: the 2.0 envelope, AES-256-CBC encryption with key
 * SHA-256(encrypt key) and a random IV in front, and the `X-Lark-Signature` headers over the raw body.
 * Written from the platform's description, independently of the adapter's decryption code.
 */
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';

/** The app secrets the callbacks are made with. */
export interface CallbackSecrets {
  appId: string;
  encryptKey: string;
  verificationToken: string;
}

/** A callback ready to post. */
export interface SignedCallback {
  body: string;
  headers: Record<string, string>;
}

/** Options of {@link signCallback}. */
export interface SignOptions {
  /** Encrypt the payload (default true: Feishu encrypts whenever an encrypt key is set). */
  encrypt?: boolean;
  /** Seconds since the epoch (default now). */
  timestamp?: number;
  nonce?: string;
  /** Sign with this key instead (a forgery). */
  signingKey?: string;
  /** Leave the signature headers out. */
  unsigned?: boolean;
}

/** Encrypts `plaintext` as Feishu does. */
export function feishuEncrypt(plaintext: string, encryptKey: string): string {
  const key = createHash('sha256').update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final()]).toString('base64');
}

/** Wraps, encrypts and signs `payload`. */
export function signCallback(payload: unknown, secrets: CallbackSecrets, options: SignOptions = {}): SignedCallback {
  const body =
    options.encrypt === false
      ? JSON.stringify(payload)
      : JSON.stringify({ encrypt: feishuEncrypt(JSON.stringify(payload), secrets.encryptKey) });
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? randomBytes(8).toString('hex');
  const signature = createHash('sha256')
    .update(timestamp + nonce + (options.signingKey ?? secrets.encryptKey) + body)
    .digest('hex');
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (!options.unsigned)
    Object.assign(headers, {
      'x-lark-request-timestamp': timestamp,
      'x-lark-request-nonce': nonce,
      'x-lark-signature': signature,
    });
  return { body, headers };
}

/** What a tap says. */
export interface TapFields {
  openId: string;
  /** The button's callback value as found on the card. */
  value: unknown;
  /** The button's name. */
  name: string;
  reason?: string;
  messageId?: string;
  chatId?: string;
  /** Overrides the verification token in the envelope (a wrong token). */
  token?: string;
}

/** A `card.action.trigger` callback (schema 2.0) for a tap on a form submit button. */
export function cardActionPayload(secrets: CallbackSecrets, tap: TapFields): Record<string, unknown> {
  return {
    schema: '2.0',
    header: {
      event_id: randomUUID(),
      token: tap.token ?? secrets.verificationToken,
      create_time: String(Date.now() * 1000),
      event_type: 'card.action.trigger',
      tenant_key: 'tenant_fake',
      app_id: secrets.appId,
    },
    event: {
      operator: { tenant_key: 'tenant_fake', open_id: tap.openId, union_id: `on_${tap.openId}` },
      token: `c-${randomBytes(8).toString('hex')}`,
      action: {
        value: tap.value,
        tag: 'button',
        name: tap.name,
        form_value: { reason: tap.reason ?? '' },
        timezone: 'Asia/Shanghai',
      },
      host: 'im_message',
      context: { open_message_id: tap.messageId ?? 'om_unknown', open_chat_id: tap.chatId ?? 'oc_unknown' },
    },
  };
}

/** The URL-verification challenge sent when the callback URL is saved. */
export function challengePayload(
  secrets: CallbackSecrets,
  challenge: string,
  token = secrets.verificationToken,
): Record<string, unknown> {
  return { challenge, token, type: 'url_verification' };
}

/** Posts a callback; resolves with the status and the parsed JSON body (null when empty). */
export async function postCallback(
  url: string,
  callback: SignedCallback,
): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const response = await fetch(url, { method: 'POST', headers: callback.headers, body: callback.body });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}
