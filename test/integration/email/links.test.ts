/**
 * The links in a mail, followed with fetch as a browser (or a mail scanner) would: a GET only ever shows a page; the
 * page's form, posted with its CSRF token and cookie, decides once; used, expired, forged, edited and cross-site posts
 * get a page in plain words and change nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { local, OPS } from '../../fakes/email/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startEmailGateway, type EmailGateway } from './setup.js';

describe('email links', () => {
  let env: EmailGateway;

  afterEach(async () => {
    await env.close();
  });

  it('a mail scanner fetching every link, again and again, decides nothing and records nothing', async () => {
    env = await startEmailGateway();
    const request = await env.file();
    const mail = env.email.mailFor(request);
    expect(mail.links).toHaveLength(2);
    const before = await env.eventTypes(request.id);
    for (let i = 0; i < 3; i++) {
      for (const link of mail.links) {
        const page = await env.email.fetchPage(env.server, link);
        expect(page.status).toBe(200);
        expect(page.html).toContain('<form method="post">');
        expect(page.text).toContain('Nothing has been decided yet');
        // HEAD, as some scanners send, is a GET without a body: it changes nothing either.
        expect((await fetch(local(env.server, link), { method: 'HEAD' })).status).toBe(200);
      }
    }
    expect(await env.get(request.id)).toMatchObject({ status: 'pending' });
    expect(await env.eventTypes(request.id)).toEqual(before);
  });

  it('the confirmation form, posted with its CSRF token, approves as the recipient', async () => {
    env = await startEmailGateway();
    const request = await env.file();
    const page = await env.email.fetchPage(env.server, env.email.mailFor(request).links[0]!);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('set-cookie')).toMatch(
      /^tollgate_email_form=[\w-]+; Path=\/channels\/email; HttpOnly; SameSite=Strict/,
    );
    const followed = await env.email.follow(env.server, env.email.mailFor(request).links[0]!);
    expect(followed.result).toMatchObject({ status: 200, text: expect.stringContaining('Approved: deploy_service') });
    expect(await env.get(request.id)).toMatchObject({
      status: 'approved',
      respondedBy: `email:${OPS}`,
      respondedVia: 'email',
    });
  });

  it("a post without the page's CSRF token, without its cookie, or from another site is refused and changes nothing", async () => {
    env = await startEmailGateway();
    const request = await env.file();
    const [approve] = env.email.mailFor(request).links;
    for (const options of [
      { csrf: '' },
      { csrf: 'x'.repeat(43) },
      { dropCookie: true },
      { origin: 'https://evil.example' },
    ]) {
      const followed = await env.email.follow(env.server, approve!, options);
      expect(followed.result).toMatchObject({ status: 403, text: expect.stringContaining('nothing was changed') });
    }
    expect(await env.get(request.id)).toMatchObject({ status: 'pending' });
    expect(await env.eventTypes(request.id)).not.toContain('decision_rejected');
    // The link was not spent by the refused posts: it still decides.
    expect((await env.email.follow(env.server, approve!)).result?.status).toBe(200);
  });

  it('a used link, and the other link of the same mail, say so and change nothing', async () => {
    env = await startEmailGateway();
    // Two approvals needed: the request stays pending after the first, so only the link's use can refuse the second.
    const request = await env.file({ required_approvals: 2, approvers: [`email:${OPS}`, 'email:lead@example.test'] });
    const [approve, deny] = env.email.mailFor(request).links;
    expect((await env.email.follow(env.server, approve!)).result).toMatchObject({
      status: 200,
      text: expect.stringContaining('waits for more approvers'),
    });
    for (const link of [approve!, deny!]) {
      const page = await env.email.fetchPage(env.server, link);
      expect(page).toMatchObject({ status: 410, text: expect.stringContaining('This link was already used') });
      expect(page.html).not.toContain('<form');
    }
    // Even a form opened before the first use cannot deny afterwards.
    const late = await env.email.follow(env.server, deny!, { openedEarlier: true });
    expect(late.result).toMatchObject({ status: 410, text: expect.stringContaining('already used') });
    expect(await env.get(request.id)).toMatchObject({ status: 'pending' });
    expect(
      (await env.eventTypes(request.id)).filter((t) => t === 'approved' || t === 'denied' || t === 'decision_rejected'),
    ).toEqual(['approved']);
  });

  it('an expired link says so, on the page and on a post, and changes nothing (manual clock, no sleeping)', async () => {
    const clock = new ManualClock(Date.now());
    env = await startEmailGateway({
      server: { clock, scheduler: new InProcessScheduler({ clock, sweepEveryMs: 0 }) },
      waitForMail: false,
    });
    const request = await env.file({ timeout_s: 60 });
    await eventually(async () => {
      await clock.advance(0);
      expect(env.email.fake.mailsAbout(request.id)).toHaveLength(1);
    });
    const [approve] = env.email.mailFor(request).links;
    const page = await env.email.fetchPage(env.server, approve!);
    expect(page.status).toBe(200);
    // The form was open when the deadline passed (and the expiry job ran: the row is expired by its deadline).
    await clock.advance(60_000);
    const expired = await env.email.fetchPage(env.server, approve!);
    expect(expired).toMatchObject({ status: 410, text: expect.stringContaining('This link has expired') });
    const posted = await env.email.follow(env.server, approve!, { openedEarlier: true });
    expect(posted.result).toMatchObject({ status: 410, text: expect.stringContaining('expired') });
    await eventually(async () => expect((await env.get(request.id)).status).toBe('expired'));
    const types = await env.eventTypes(request.id);
    expect(types).not.toContain('approved');
    expect(types).not.toContain('decision_rejected');
  });

  it('a forged link, or one edited to another recipient or action, is refused (401) with a plain-words page', async () => {
    env = await startEmailGateway();
    const request = await env.file();
    const [approve, deny] = env.email.mailFor(request).links;
    const token = approve!.slice(approve!.lastIndexOf('/') + 1);
    const [payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as unknown[];
    const edited = (change: (c: unknown[]) => void) => {
      const copy = [...claims];
      change(copy);
      return `${approve!.slice(0, approve!.lastIndexOf('/') + 1)}${Buffer.from(JSON.stringify(copy)).toString('base64url')}.${signature}`;
    };
    const links = [
      edited((c) => (c[3] = 'mallory@example.test')),
      edited((c) => (c[4] = 'd')),
      edited((c) => (c[5] = Number(c[5]) + 86_400_000)),
      `${approve}x`,
      approve!.replace(/\.[\w-]+$/, `.${deny!.slice(deny!.lastIndexOf('.') + 1)}`),
      `${approve!.slice(0, approve!.lastIndexOf('/') + 1)}not-a-token`,
    ];
    for (const link of links) {
      const page = await env.email.fetchPage(env.server, link);
      expect(page).toMatchObject({ status: 401, text: expect.stringContaining('This link is not valid') });
      const res = await fetch(local(env.server, link), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '_csrf=x',
      });
      expect(res.status).toBe(401);
    }
    expect(await env.get(request.id)).toMatchObject({ status: 'pending' });
    expect(await env.eventTypes(request.id)).not.toContain('decision_rejected');
  });

  it('a recipient who is not an approver is warned on the page and refused by the gateway', async () => {
    env = await startEmailGateway();
    const request = await env.file({ approvers: ['email:boss@example.test'] });
    const followed = await env.email.follow(env.server, env.email.mailFor(request).links[0]!);
    expect(followed.page.text).toContain(`${OPS} is not one of this request's approvers`);
    expect(followed.result).toMatchObject({
      status: 409,
      text: expect.stringContaining('You are not an approver of this request'),
    });
    expect(await env.get(request.id)).toMatchObject({ status: 'pending' });
    const rejected = (await env.server.store.events(request.id)).find((e) => e.type === 'decision_rejected');
    expect(rejected).toMatchObject({ actor: `email:${OPS}`, channel: 'email' });
  });

  it('denies with the reason typed on the page; the reason and the arguments are escaped everywhere', async () => {
    env = await startEmailGateway();
    const request = await env.file({
      tool_name: 'run<script>',
      tool_args: { cmd: '<img src=x onerror=alert(1)>' },
      prompt: 'Run "<b>this</b>"?',
    });
    const mail = env.email.mailFor(request);
    expect(mail.html).not.toMatch(/<script>|<img src=x|<b>this/);
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const page = await env.email.fetchPage(env.server, mail.links[1]!);
    expect(page.html).toContain('<textarea id="reason" name="reason"');
    expect(page.html).not.toMatch(/<script>|<img src=x|<b>this/);
    const followed = await env.email.follow(env.server, mail.links[1]!, {
      reason: '  not on a Friday <script>alert(1)</script>  ',
    });
    expect(followed.result?.status).toBe(200);
    expect(await env.get(request.id)).toMatchObject({
      status: 'denied',
      reason: 'not on a Friday <script>alert(1)</script>',
      respondedBy: `email:${OPS}`,
    });
    const after = await env.email.fetchPage(env.server, mail.links[1]!);
    expect(after.html).toContain('not on a Friday &lt;script&gt;');
    expect(after.html).not.toContain('<script>');
  });
});
