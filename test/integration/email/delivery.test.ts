/**
 * Delivery through a real SMTP server that refuses: nodemailer never retries on its own, so the scheduler does, as
 * the relay's reply says. A 5xx reply (unknown mailbox, refused credentials) gives up at once; a 4xx reply and a relay
 * that is down are retried with the delivery backoff. Every failure is a `delivery_failed` event carrying the reply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { deadSmtpUrl } from '../../fakes/email/fake-smtp.js';
import { eventually } from '../../helpers/eventually.js';
import { startEmailGateway, type EmailGateway } from './setup.js';

describe('email delivery', () => {
  let env: EmailGateway;

  afterEach(async () => {
    await env.close();
  });

  const quickRetries = () => ({
    server: { scheduler: new InProcessScheduler({ backoffMs: 5, sweepEveryMs: 0 }) },
    waitForMail: false,
  });

  async function failures(id: string) {
    return (await env.server.store.events(id)).filter((e) => e.type === 'delivery_failed').map((e) => e.detail);
  }

  async function statusOf(id: string) {
    return (await env.server.store.messages(id))[0]?.status;
  }

  it('gives up at once on a 5xx reply, recording what the relay said', async () => {
    env = await startEmailGateway(quickRetries());
    env.email.fake.refuseNext(550, '5.1.1 <ops@example.test>: Recipient address rejected: User unknown');
    const request = await env.file();
    await eventually(async () => expect(await statusOf(request.id)).toBe('failed'));
    expect(await failures(request.id)).toEqual([
      expect.objectContaining({ attempt: 1, will_retry: false, error: expect.stringContaining('SMTP 550') }),
    ]);
    expect((await failures(request.id))[0]?.error).toContain('Recipient address rejected: User unknown');
    expect(env.email.fake.attempts).toBe(1);
    expect(env.email.fake.mails).toHaveLength(0);
  });

  it('retries a 4xx reply with backoff, then delivers', async () => {
    env = await startEmailGateway(quickRetries());
    env.email.fake.refuseNext(451, '4.7.1 Greylisted, please try again later', 2);
    const request = await env.file();
    await eventually(async () => expect(await statusOf(request.id)).toBe('sent'));
    expect(await failures(request.id)).toEqual([
      expect.objectContaining({ attempt: 1, will_retry: true, error: expect.stringContaining('SMTP 451') }),
      expect.objectContaining({ attempt: 2, will_retry: true, error: expect.stringContaining('Greylisted') }),
    ]);
    expect(env.email.fake.mailsAbout(request.id)).toHaveLength(1);
    expect((await env.server.store.events(request.id)).find((e) => e.type === 'delivered')?.detail).toMatchObject({
      attempt: 3,
    });
  });

  it('retries while the relay is down (connection refused), and gives up after the last attempt', async () => {
    const scheduler = new InProcessScheduler({ backoffMs: 5, sweepEveryMs: 0, attempts: 3 });
    env = await startEmailGateway({
      server: { scheduler },
      waitForMail: false,
      email: { smtpUrl: await deadSmtpUrl() },
    });
    const request = await env.file();
    await eventually(async () => expect(await statusOf(request.id)).toBe('failed'));
    const seen = await failures(request.id);
    expect(seen.map((f) => f.will_retry)).toEqual([true, true, false]);
    expect(seen[0]?.error).toMatch(/ECONNREFUSED|ECONNECTION|ESOCKET/);
  });

  it('gives up at once when the relay refuses the credentials (535), and never records the password', async () => {
    env = await startEmailGateway({
      ...quickRetries(),
      relayUrl: (url) => url.replace(':relay-secret@', ':wrong-password@'),
    });
    const request = await env.file();
    await eventually(async () => expect(await statusOf(request.id)).toBe('failed'));
    const [failure] = await failures(request.id);
    expect(failure).toMatchObject({ will_retry: false, error: expect.stringContaining('SMTP 535') });
    expect(JSON.stringify(await env.server.store.events(request.id))).not.toContain('wrong-password');
  });

  it('gives up at once on a target that is not an address', async () => {
    env = await startEmailGateway(quickRetries());
    const request = await env.file({ channels: [{ type: 'email', target: 'not an address' }] });
    await eventually(async () => expect(await statusOf(request.id)).toBe('failed'));
    expect(await failures(request.id)).toEqual([
      expect.objectContaining({ will_retry: false, error: expect.stringContaining('not an email address') }),
    ]);
  });
});
