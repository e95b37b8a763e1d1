/**
 * The email test harness: the real email channel (nodemailer) sending to a per-test {@link FakeSmtp}, and links
 * followed the way an approver's browser follows them: GET the confirmation page (keeping its cookie), then POST its
 * form with the CSRF token the page holds. Links in mails point at the configured public URL; the harness sends them
 * to the test gateway's address instead, as a reverse proxy would. Implements the shared {@link ChannelHarness}.
 */
import { pino } from 'pino';
import {
  createEmailChannel,
  FORM_COOKIE,
  LinkSigner,
  type EmailChannel,
  type EmailChannelOptions,
} from '../../../channels/email/index.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import type { ChannelHarness } from '../../contracts/channel.contract.js';
import type { TestServer } from '../../helpers/server.js';
import { FakeSmtp, type ReceivedMail } from './fake-smtp.js';

/** Where the mails say the gateway is (links are rewritten to the test server). */
export const PUBLIC_URL = 'https://gate.example.test';
/** The address cards go to unless a request names another. */
export const OPS = 'ops@example.test';

/** What following a link gave. */
export interface Followed {
  /** Status and text of the confirmation page (the GET). */
  page: { status: number; text: string };
  /** Status and text of the page after the form was posted; null when the page had no form. */
  result: { status: number; text: string } | null;
}

/** Options of {@link EmailHarness.follow}. */
export interface FollowOptions {
  /** A reason typed into the deny form. */
  reason?: string;
  /** Post this CSRF token instead of the page's (`''` posts none). */
  csrf?: string;
  /** Send this `Origin` header with the post. */
  origin?: string;
  /** Drop the page's cookie before posting. */
  dropCookie?: boolean;
  /**
   * When the page has no form now (the request was decided meanwhile), post the form the page showed when it was
   * opened earlier, while the request was pending: a late tap.
   */
  openedEarlier?: boolean;
}

/** The email harness: the contract's surface plus the fake relay and link following. */
export interface EmailHarness extends ChannelHarness {
  channel: EmailChannel;
  fake: FakeSmtp;
  /** The newest mail about `request` to `address` (default {@link OPS}); throws when there is none. */
  mailFor(request: ConfirmationRequest, address?: string): ReceivedMail;
  /** Opens `link` as a browser would and, when the page has a form, presses its button. */
  follow(server: TestServer, link: string, options?: FollowOptions): Promise<Followed>;
  /** Only GETs `link` (what a mail scanner does). */
  fetchPage(
    server: TestServer,
    link: string,
  ): Promise<{ status: number; text: string; html: string; headers: Headers }>;
}

/** The test server's address for a link that names the public URL. */
export function local(server: TestServer, link: string): string {
  return link.replace(PUBLIC_URL, server.url);
}

/** The visible text of a page (tags dropped, entities decoded), for assertions. */
export function pageText(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

async function getPage(url: string) {
  const res = await fetch(url, { redirect: 'manual' });
  return {
    status: res.status,
    text: await res.text(),
    cookie: res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
  };
}

/**
 * Opens `link` (sent to `baseUrl`, the gateway's real address) as a browser would and, when the page has a form,
 * presses its button. `signer` (the channel's) is needed only for `openedEarlier`.
 */
export async function followLink(
  baseUrl: string,
  link: string,
  options: FollowOptions = {},
  signer?: LinkSigner,
): Promise<Followed> {
  const url = link.replace(PUBLIC_URL, baseUrl);
  const page = await getPage(url);
  let csrf = /name="_csrf" value="([^"]*)"/.exec(page.text)?.[1];
  if (csrf === undefined && options.openedEarlier && signer) {
    // The form as the page showed it while the request was still pending: same cookie, same token.
    page.cookie = `${FORM_COOKIE}=opened-earlier-0123456789ab`;
    csrf = signer.csrfToken('opened-earlier-0123456789ab', link.slice(link.lastIndexOf('/') + 1));
  }
  if (csrf === undefined) return { page: { status: page.status, text: pageText(page.text) }, result: null };
  const form = new URLSearchParams({ _csrf: options.csrf ?? csrf });
  if (options.reason !== undefined) form.set('reason', options.reason);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (!options.dropCookie && page.cookie) headers.cookie = page.cookie;
  if (options.origin) headers.origin = options.origin;
  const res = await fetch(url, { method: 'POST', headers, body: form.toString(), redirect: 'manual' });
  return {
    page: { status: page.status, text: pageText(page.text) },
    result: { status: res.status, text: pageText(await res.text()) },
  };
}

/** Builds a harness with a fresh relay. `overrides` reach the channel options; `relay.url` bends the relay's URL (wrong password). */
export async function makeEmailHarness(
  overrides: Partial<EmailChannelOptions> = {},
  relay: { url?: (fakeUrl: string) => string } = {},
): Promise<EmailHarness> {
  const fake = await FakeSmtp.start();
  const channel = createEmailChannel({
    smtpUrl: relay.url ? relay.url(fake.url) : fake.url,
    from: 'Tollgate <tollgate@example.test>',
    publicUrl: PUBLIC_URL,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ...overrides,
  });

  function mailFor(request: ConfirmationRequest, address = OPS): ReceivedMail {
    const mail = fake
      .mailsAbout(request.id)
      .filter((m) => m.to.includes(address.toLowerCase()))
      .at(-1);
    if (!mail) throw new Error(`no mail about ${request.id} to ${address}`);
    return mail;
  }

  return {
    channel,
    fake,
    target: OPS,
    mailFor,
    follow: (server, link, options) => followLink(server.url, link, options, channel.signer),
    fetchPage: async (server, link) => {
      const res = await fetch(local(server, link), { redirect: 'manual' });
      const html = await res.text();
      return { status: res.status, text: pageText(html), html, headers: res.headers };
    },
    async card(messageRef) {
      const [first] = messageRef.split(' ');
      const mail = first ? fake.mailsTo(first).at(-1) : undefined;
      return mail ? { text: `${mail.subject}\n${mail.text}`, actionable: mail.links.length > 0 } : null;
    },
    // The contract taps as arbitrary user ids, so the link is issued for that user as the channel would mail it.
    async tap(server, request, decision, userId, options = {}) {
      const link = channel.linkFor({ ...request, nonce: options.nonce ?? request.nonce }, userId, decision);
      const followed = await followLink(
        server.url,
        link,
        { reason: options.reason, openedEarlier: true },
        channel.signer,
      );
      return followed.result?.status ?? followed.page.status;
    },
    async forgedTap(server, request, decision, userId) {
      // Signed with a key that is not the gateway's: what someone who guessed the format would make.
      const forged = new LinkSigner('not-the-deployment-key').sign({
        requestId: request.id,
        nonce: request.nonce,
        recipient: userId,
        action: decision,
        expiresAt: request.expiresAt.getTime(),
      });
      const res = await fetch(`${server.url}/channels/email/a/${forged}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '_csrf=x',
      });
      return res.status;
    },
    forgedStatus: 401,
    async close() {
      await channel.stop();
      await fake.close();
    },
  };
}
