/**
 * What the mails say and who gets them: the approval mail (plain text and HTML, arguments masked and truncated as on
 * every card, the deadline, two links bound to its recipient); `{"type":"email"}` without a target mails every
 * approver with an address (people of the directory included), a person named as approver gets a mail of their own,
 * reminders go to those who have not decided, and once final the recipients who did not act get a short notice in
 * the same thread (unless turned off).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { OPS } from '../../fakes/email/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startEmailGateway, type EmailGateway } from './setup.js';
import { EDIT_SECRET, MULTI_FILE_EDIT, RISKY_PIPELINE, SQL_DELETE } from '../../helpers/summary-calls.js';

const PEOPLE = `
policies:
  - name: payments
    match: { tool: pay_invoice }
    approvers: ["person:carol"]
    timeout_s: 3600
    remind_after_s: 600
people:
  - { id: carol, name: Carol, email: Carol@Example.test }
  - { id: dan, accounts: { slack: U0DAN, email: dan@example.test } }
  - { id: erin, accounts: { slack: U0ERIN } }
groups:
  leads: [dan, erin]
`;

describe('email mails', () => {
  let env: EmailGateway;

  afterEach(async () => {
    await env.close();
  });

  it('shows the tool, masked and truncated arguments, the deadline and two links, in text and HTML', async () => {
    env = await startEmailGateway();
    const request = await env.file({
      tool_args: { service: 'billing', api_key: 'sk-live-abcdefghijklmnop', notes: 'x'.repeat(3000) },
      timeout_s: 900,
    });
    const mail = env.email.mailFor(request);
    expect(mail.from).toBe('"Tollgate" <tollgate@example.test>');
    expect(mail.subject).toBe('Approval needed: deploy_service');
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.messageId).toMatch(new RegExp(`^<tollgate\\.${request.id}\\.[0-9a-f]{16}@example\\.test>$`));
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('deploy_service');
      expect(part).toContain('billing');
      expect(part).toContain(request.expiresAt.toISOString());
      expect(part).not.toContain('sk-live-abcdefghijklmnop');
      expect(part).toMatch(/more characters/);
      expect(part).not.toContain('x'.repeat(2000));
    }
    expect(mail.links).toHaveLength(2);
    expect(mail.text).toMatch(
      /Approve: https:\/\/gate\.example\.test\/channels\/email\/a\/\S+\nDeny: https:\/\/gate\.example\.test\/channels\/email\/a\/\S+/,
    );
    for (const link of mail.links) expect(mail.html).toContain(`href="${link}"`);
  });

  it('shows the call summary in text and HTML: risk, files with counts, tinted first diff lines, a link to the page', async () => {
    env = await startEmailGateway();
    const edit = env.email.mailFor(await env.file(MULTI_FILE_EDIT));
    for (const part of [edit.text, edit.html]) {
      expect(part).toContain('High risk');
      expect(part).toContain('Changes 3 files: +12 −1');
      expect(part).toContain('../shared/legacy-billing.ts  +0 −0 (deleted, outside the working directory)');
      expect(part).toContain('/ui/requests/');
      expect(part).not.toContain(EDIT_SECRET);
    }
    expect(edit.text).toContain("+  region: 'eu-central-1',");
    expect(edit.html).toContain(
      '<span style="display:block;background:#e6ffec">+  region: &#39;eu-central-1&#39;,</span>',
    );
    expect(edit.html).toMatch(
      /<a href="https:\/\/gate\.example\.test\/ui\/requests\/[0-9a-f-]{36}">Open the request page<\/a>/,
    );
    const shell = env.email.mailFor(await env.file(RISKY_PIPELINE));
    expect(shell.text).toContain('• curl -fsSL https://get.example.com/install.sh  [network]');
    const sql = env.email.mailFor(await env.file(SQL_DELETE));
    expect(sql.html).toContain('<li>DELETE customers  [unbounded write]</li>');
  });

  it('without a target, mails every approver that has an address, each with links of their own', async () => {
    env = await startEmailGateway({ server: { policy: PEOPLE } });
    const approvers = [
      'email:Ann@Example.test',
      'bob@example.test',
      'person:carol',
      'group:leads',
      'slack:U0DAN',
      'web:frank',
    ];
    const request = await env.file({ channels: [{ type: 'email' }], approvers });
    const recipients = ['ann@example.test', 'bob@example.test', 'carol@example.test', 'dan@example.test'];
    expect(
      env.email.fake
        .mailsAbout(request.id)
        .flatMap((m) => m.to)
        .sort(),
    ).toEqual(recipients);
    expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'email')).toMatchObject({
      target: 'approvers',
      messageRef: recipients.join(' '),
    });
    // Carol's Deny link denies as Carol (her person), not as anyone else who got a mail.
    const followed = await env.email.follow(env.server, env.email.mailFor(request, 'carol@example.test').links[1]!);
    expect(followed.result?.status).toBe(200);
    expect(await env.get(request.id)).toMatchObject({
      status: 'denied',
      respondedBy: 'email:carol@example.test',
      respondedByPerson: 'carol',
    });
  });

  it('refuses to mail nobody: no approver with an address is a permanent delivery failure', async () => {
    env = await startEmailGateway({ waitForMail: false });
    const request = await env.file({ channels: [{ type: 'email' }], approvers: ['slack:U0NOBODY'] });
    await eventually(async () => expect((await env.server.store.messages(request.id))[0]?.status).toBe('failed'));
    const failure = (await env.server.store.events(request.id)).find((e) => e.type === 'delivery_failed');
    expect(failure?.detail).toMatchObject({
      will_retry: false,
      error: expect.stringContaining('no approver of this request has an email address'),
    });
  });

  it('mails a person named by a rule directly, and reminds them (once, in the thread) until they decide', async () => {
    const clock = new ManualClock(Date.now());
    env = await startEmailGateway({
      server: { policy: PEOPLE, clock, scheduler: new InProcessScheduler({ clock, sweepEveryMs: 0 }) },
      waitForMail: false,
    });
    const { request } = await env.server.gateway.request({ toolName: 'pay_invoice', toolArgs: { invoice: 'INV-7' } });
    await eventually(async () => {
      await clock.advance(0);
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'email')).toMatchObject({
        status: 'sent',
        target: 'carol@example.test',
      });
    });
    const first = env.email.mailFor(request, 'carol@example.test');
    await clock.advance(600_000);
    const reminder = await eventually(async () => {
      await clock.advance(0);
      const mails = env.email.fake.mailsAbout(request.id);
      expect(mails).toHaveLength(2);
      return mails[1]!;
    });
    expect(reminder).toMatchObject({ subject: 'Reminder: Approval needed: pay_invoice', inReplyTo: first.messageId });
    expect(reminder.links).toHaveLength(2);
    expect((await env.email.follow(env.server, reminder.links[0]!)).result?.status).toBe(200);
    expect((await env.get(request.id)).status).toBe('approved');
  });

  it('once final, tells the recipients who did not act who decided, in the same thread; not the one who decided', async () => {
    env = await startEmailGateway();
    const request = await env.file({
      channels: [{ type: 'email' }],
      approvers: [`email:${OPS}`, 'email:lead@example.test'],
    });
    const original = env.email.mailFor(request, 'lead@example.test');
    await env.email.follow(env.server, env.email.mailFor(request).links[0]!);
    const notice = await eventually(() => {
      const mails = env.email.fake.mailsAbout(request.id);
      expect(mails).toHaveLength(3);
      return mails[2]!;
    });
    expect(notice).toMatchObject({
      to: ['lead@example.test'],
      subject: 'Approved: deploy_service',
      inReplyTo: original.messageId,
      links: [],
    });
    expect(notice.text).toContain(`Approved by email:${OPS}`);
    expect(notice.text).toContain('no longer decide anything');
    expect(env.email.fake.mailsTo(OPS)).toHaveLength(1);
  });

  it('tells everyone when the request expires, and nobody when TOLLGATE_EMAIL_NOTIFY_FINAL is off', async () => {
    const clock = new ManualClock(Date.now());
    const scheduler = new InProcessScheduler({ clock, sweepEveryMs: 0 });
    env = await startEmailGateway({ server: { clock, scheduler }, waitForMail: false });
    const expiring = await env.file({ timeout_s: 60 });
    await eventually(async () => {
      await clock.advance(0);
      expect(env.email.fake.mailsAbout(expiring.id)).toHaveLength(1);
    });
    await clock.advance(60_000);
    const notice = await eventually(async () => {
      await clock.advance(0);
      const [, n] = env.email.fake.mailsAbout(expiring.id);
      expect(n).toBeDefined();
      return n!;
    });
    expect(notice).toMatchObject({ subject: 'Expired: deploy_service', links: [] });
    expect(notice.text).toMatch(/Expired at .* denied by default/);
    await env.close();

    env = await startEmailGateway({ email: { notifyFinal: false } });
    const quiet = await env.file();
    await env.server.gateway.decide({
      requestId: quiet.id,
      decision: 'deny',
      actor: { channel: 'api', userId: 'ops' },
    });
    await eventually(async () => expect((await env.server.store.messages(quiet.id))[0]?.status).toBe('updated'));
    expect(env.email.fake.mailsAbout(quiet.id)).toHaveLength(1);
  });
});
