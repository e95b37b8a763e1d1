/**
 * @module channels/email/options
 * How the email channel is configured: from the environment only (`SMTP_URL`, `TOLLGATE_EMAIL_FROM`,
 * `TOLLGATE_PUBLIC_URL`), since the relay URL holds a password and the public URL is the deployment's own address.
 */
import type { Logger } from 'pino';
import type { SharedMarks } from '../../src/contracts/shared-marks.js';
import { ValidationError } from '../../src/api/errors.js';

/** Everything the email channel is built from. */
export interface EmailChannelOptions {
  /** The relay: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS from the first byte). */
  smtpUrl: string;
  /** The sender, `tollgate@example.com` or `Tollgate <tollgate@example.com>`. */
  from: string;
  /** The address approvers reach the gateway at; links are `<public url>/channels/email/a/<token>`. */
  publicUrl: string;
  /** The key links and form tokens are signed with (the deployment's `email_links` secret); random per process when absent. */
  secret?: string;
  /** Whether recipients who did not act get a short "decided by … / expired" mail once the request is final (true). */
  notifyFinal?: boolean;
  /** Marks every replica sees (PostgreSQL), so a link is used once across replicas; this process only when absent. */
  marks?: SharedMarks;
  /** Longest argument preview in a mail (1500 characters). */
  maxArgsChars?: number;
  /** Timeout of the SMTP connection, greeting and socket in ms (10 000): a hung relay must not hold a job forever. */
  timeoutMs?: number;
  logger?: Logger;
}

/** A plain address: what an `email:` approver and a target are (no display name, no list). */
export const ADDRESS = /^[^\s@,;<>"()[\]]{1,64}@[^\s@,;<>"()[\]]{1,255}$/;

/**
 * Reads the email settings. Returns null when neither `SMTP_URL` nor `TOLLGATE_EMAIL_FROM` is set; throws
 * {@link ValidationError} naming the variable when email is configured halfway or a value is malformed.
 *
 * Variables: `SMTP_URL`, `TOLLGATE_EMAIL_FROM`, `TOLLGATE_PUBLIC_URL`, `TOLLGATE_EMAIL_NOTIFY_FINAL` (`true`/`false`).
 * @example const email = emailOptionsFromEnv(config.env); // null when SMTP_URL is not set
 */
export function emailOptionsFromEnv(env: Record<string, string | undefined>): EmailChannelOptions | null {
  const value = (name: string) => env[name]?.trim() || undefined;
  const smtpUrl = value('SMTP_URL');
  const from = value('TOLLGATE_EMAIL_FROM');
  if (!smtpUrl && !from) return null;
  // Half a configuration is a mistake worth stopping for: mails that never leave, or links that lead nowhere.
  if (!smtpUrl)
    throw configError(
      'SMTP_URL',
      'is required when TOLLGATE_EMAIL_FROM is set (smtp://user:pass@host:587 or smtps://…)',
    );
  if (!/^smtps?:\/\/\S+$/.test(smtpUrl)) throw configError('SMTP_URL', 'must be an smtp:// or smtps:// URL');
  try {
    new URL(smtpUrl);
  } catch {
    throw configError('SMTP_URL', 'is not a valid URL (percent-encode special characters in the user and password)');
  }
  if (!from) throw configError('TOLLGATE_EMAIL_FROM', 'is required when SMTP_URL is set (the sender address)');
  if (!ADDRESS.test(senderAddress(from))) throw configError('TOLLGATE_EMAIL_FROM', `is not an email address: ${from}`);
  const publicUrl = value('TOLLGATE_PUBLIC_URL');
  if (!publicUrl)
    throw configError('TOLLGATE_PUBLIC_URL', 'is required when SMTP_URL is set (the address approval links point at)');
  if (!/^https?:\/\/\S+$/.test(publicUrl))
    throw configError('TOLLGATE_PUBLIC_URL', `is not an http(s) URL: ${publicUrl}`);
  const notify = value('TOLLGATE_EMAIL_NOTIFY_FINAL')?.toLowerCase();
  if (notify !== undefined && !['true', 'false', '1', '0'].includes(notify))
    throw configError('TOLLGATE_EMAIL_NOTIFY_FINAL', 'must be true or false');
  return {
    smtpUrl,
    from,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    notifyFinal: notify === undefined ? true : notify === 'true' || notify === '1',
  };
}

/** The bare address of a sender written as `Name <address>` or `address`. */
export function senderAddress(from: string): string {
  return /<([^<>]+)>\s*$/.exec(from)?.[1]?.trim() ?? from.trim();
}

/** The relay URL as it may be logged: without its password. */
export function shownSmtpUrl(smtpUrl: string): string {
  try {
    const url = new URL(smtpUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'smtp://…';
  }
}

function configError(variable: string, message: string): ValidationError {
  return new ValidationError(`${variable}: ${message}`, [{ path: variable, message }]);
}
