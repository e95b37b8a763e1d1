/**
 * @module channels/email/smtp-errors
 * Turns what nodemailer throws into the channel contract's errors. The relay's reply code decides: a 5xx reply
 * (unknown mailbox, relaying denied, authentication refused) is {@link PermanentChannelError} and the job gives up;
 * a 4xx reply (mailbox busy, greylisting, too many connections) and every connection trouble (refused, reset, timed
 * out, TLS failure) stay plain errors the scheduler retries with its delivery backoff. The relay's reply text goes
 * into the message, so `delivery_failed` shows what the relay said.
 */
import { PermanentChannelError } from '../../src/channel/channel.js';

/** The fields nodemailer puts on its errors that matter here. */
interface SmtpErrorFields {
  code?: unknown;
  responseCode?: unknown;
  response?: unknown;
  command?: unknown;
}

/**
 * Maps a failed send to what the scheduler understands. Never includes the relay's password (nodemailer's errors
 * hold none; the URL is not in them).
 * @example toChannelError(Object.assign(new Error('x'), { responseCode: 550, response: '550 5.1.1 no such user' }), 'ann@example.com')
 */
export function toChannelError(error: unknown, recipient: string): Error {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as SmtpErrorFields;
  const reply = typeof fields.response === 'string' ? fields.response.replace(/\s+/g, ' ').trim().slice(0, 500) : null;
  const code =
    typeof fields.responseCode === 'number'
      ? fields.responseCode
      : reply
        ? Number(/^(\d{3})/.exec(reply)?.[1]) || null
        : null;
  const what = error instanceof Error ? error.message : String(error);
  const command = typeof fields.command === 'string' ? ` (after ${fields.command})` : '';
  if (code !== null) {
    const message = `email to ${recipient}: SMTP ${code}${command}: ${reply ?? what}`;
    return code >= 500 && code < 600 ? new PermanentChannelError(message, `smtp_${code}`) : new Error(message);
  }
  const kind = typeof fields.code === 'string' ? `${fields.code} ` : '';
  return new Error(`email to ${recipient}: ${kind}${what}`);
}
