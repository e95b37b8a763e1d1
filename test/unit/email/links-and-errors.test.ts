/**
 * The email channel's two small pure parts: link tokens (signed, bound to every claim, refused from their expiry on,
 * forged before expired) and the mapping of SMTP failures (5xx permanent with the reply, 4xx and connection errors
 * retryable).
 */
import { describe, expect, it } from 'vitest';
import { LinkSigner, toChannelError } from '../../../channels/email/index.js';
import { PermanentChannelError } from '../../../src/channel/channel.js';

const CLAIMS = {
  requestId: 'req_1',
  nonce: 'n0nce',
  recipient: 'ann@example.test',
  action: 'approve' as const,
  expiresAt: 1_000_000,
};

describe('LinkSigner', () => {
  const signer = new LinkSigner('deployment-key');

  it('gives back the claims it signed, until the expiry', () => {
    const token = signer.sign(CLAIMS);
    expect(token).toMatch(/^[\w-]+\.[\w-]{43}$/);
    expect(signer.verify(token, 999_999)).toEqual({ ok: true, claims: CLAIMS });
    expect(signer.verify(token, 1_000_000)).toEqual({ ok: false, problem: 'expired' });
  });

  it('calls a token of another key, or an edited one, forged — even when it is also expired', () => {
    const other = new LinkSigner('another-key').sign(CLAIMS);
    expect(signer.verify(other, 0)).toEqual({ ok: false, problem: 'forged' });
    expect(signer.verify(other, 2_000_000)).toEqual({ ok: false, problem: 'forged' });
    const [, signature] = signer.sign(CLAIMS).split('.');
    const denied = signer.sign({ ...CLAIMS, action: 'deny' }).split('.')[0];
    expect(signer.verify(`${denied}.${signature}`, 0)).toEqual({ ok: false, problem: 'forged' });
    for (const junk of ['', '.', 'a.b.c', 'x'.repeat(2000)])
      expect(signer.verify(junk, 0)).toEqual({ ok: false, problem: 'forged' });
  });

  it('binds a CSRF token to the form cookie and to the link', () => {
    const csrf = signer.csrfToken('cookie-1', 'link-1');
    expect(signer.csrfMatches('cookie-1', 'link-1', csrf)).toBe(true);
    expect(signer.csrfMatches('cookie-2', 'link-1', csrf)).toBe(false);
    expect(signer.csrfMatches('cookie-1', 'link-2', csrf)).toBe(false);
    expect(signer.csrfMatches(undefined, 'link-1', csrf)).toBe(false);
    expect(signer.csrfMatches('cookie-1', 'link-1', '')).toBe(false);
  });
});

describe('toChannelError', () => {
  const smtp = (responseCode: number, response: string) =>
    Object.assign(new Error(`Can't send mail - all recipients were rejected: ${response}`), {
      code: 'EENVELOPE',
      responseCode,
      response,
      command: 'RCPT TO',
    });

  it('makes a 5xx reply permanent, with the reply in the message', () => {
    const error = toChannelError(smtp(550, '550 5.1.1 User unknown'), 'ann@example.test');
    expect(error).toBeInstanceOf(PermanentChannelError);
    expect(error).toMatchObject({
      code: 'smtp_550',
      message: 'email to ann@example.test: SMTP 550 (after RCPT TO): 550 5.1.1 User unknown',
    });
  });

  it('keeps a 4xx reply and connection trouble retryable', () => {
    expect(toChannelError(smtp(451, '451 4.7.1 Greylisted'), 'a@x.test')).not.toBeInstanceOf(PermanentChannelError);
    const refused = toChannelError(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:25'), { code: 'ESOCKET' }),
      'a@x.test',
    );
    expect(refused).not.toBeInstanceOf(PermanentChannelError);
    expect(refused.message).toBe('email to a@x.test: ESOCKET connect ECONNREFUSED 127.0.0.1:25');
  });
});
