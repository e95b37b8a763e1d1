/**
 * @module channels/email/email-channel
 * The email channel: mails each recipient the request with Approve and Deny links of their own (signed, bound to the
 * request, its nonce and the recipient, single use, expiring with the request) through an SMTP relay with nodemailer,
 * and serves the pages those links open (see `routes.ts`). A mail cannot be edited, so `update` sends the recipients
 * who did not act a short "decided by … / expired" mail once the request is final, in the same thread.
 *
 * nodemailer never retries on its own: a failed send throws at once, mapped by `smtp-errors.ts`, and the scheduler
 * decides when to try again.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Router } from 'express';
import nodemailer from 'nodemailer';
import { pino, type Logger } from 'pino';
import type { CardRef, Channel, ChannelHost } from '../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { LinkSigner } from './links.js';
import { approvalMail, finalMail, type MailContent } from './mail.js';
import { ADDRESS, senderAddress, shownSmtpUrl, type EmailChannelOptions } from './options.js';
import { EVERY_APPROVER, formatMessageRef, normalAddress, parseMessageRef, recipientsOf } from './recipients.js';
import { EMAIL_LINK_PATH, mountEmailRoutes } from './routes.js';
import { toChannelError } from './smtp-errors.js';
import { UsedLinks } from './used-links.js';

type Transport = ReturnType<typeof nodemailer.createTransport>;

/**
 * The email channel adapter.
 * @example
 * const email = new EmailChannel({ smtpUrl: 'smtp://relay.example.com:587', from: 'tollgate@example.com', publicUrl: 'https://gate.example.com' });
 */
export class EmailChannel implements Channel {
  readonly name = 'email';
  /** `{"type":"email"}` without a target mails every approver that has an address. */
  readonly defaultTarget = EVERY_APPROVER;
  /** Signs the links (the deployment's `email_links` key). */
  readonly signer: LinkSigner;
  private readonly transport: Transport;
  private readonly logger: Logger;
  private readonly used: UsedLinks;
  private readonly domain: string;
  private host: ChannelHost | null = null;

  constructor(private readonly options: EmailChannelOptions) {
    const logger = options.logger ?? pino({ level: 'silent' });
    this.logger = logger.bindings().channel === 'email' ? logger : logger.child({ channel: 'email' });
    // Without the deployment's key, links work until this process ends (tests and embedded use).
    this.signer = new LinkSigner(options.secret ?? randomBytes(32));
    this.used = new UsedLinks(options.marks);
    this.domain = senderAddress(options.from).split('@')[1] ?? 'tollgate.invalid';
    const timeout = options.timeoutMs ?? 10_000;
    this.transport = nodemailer.createTransport({
      url: options.smtpUrl,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    this.logger.debug({ relay: shownSmtpUrl(options.smtpUrl), from: options.from }, 'email channel configured');
  }

  /** An address is its own direct target: a person with an email gets the mail. */
  directTarget(account: string): string | null {
    return ADDRESS.test(account.trim()) ? normalAddress(account) : null;
  }

  /**
   * The link that opens the confirmation page deciding `action` on `request` as `recipient`; valid until the request expires.
   * @example email.linkFor(request, 'ann@example.com', 'approve') // 'https://gate.example.com/channels/email/a/eyJ…'
   */
  linkFor(
    request: Pick<ConfirmationRequest, 'id' | 'nonce' | 'expiresAt'>,
    recipient: string,
    action: 'approve' | 'deny',
  ): string {
    const token = this.signer.sign({
      requestId: request.id,
      nonce: request.nonce,
      recipient: normalAddress(recipient),
      action,
      expiresAt: request.expiresAt.getTime(),
    });
    return `${this.options.publicUrl}${EMAIL_LINK_PATH}${token}`;
  }

  async send(request: ConfirmationRequest, target: string): Promise<string> {
    const recipients = recipientsOf(request, target, this.host?.directory?.());
    // One mail per recipient: each carries links only its recipient can use.
    for (const to of recipients)
      await this.mail(request.id, to, this.approval(request, to), { messageId: this.threadId(request, to) });
    return formatMessageRef(recipients);
  }

  /** Once final: the recipients who did not decide get the outcome (unless turned off). A partial quorum sends nothing. */
  async update(request: ConfirmationRequest, card: CardRef): Promise<void> {
    if (request.status === 'pending' || this.options.notifyFinal === false) return;
    const content = finalMail(request, { maxArgsChars: this.options.maxArgsChars });
    for (const to of await this.notActed(request, parseMessageRef(card.messageRef))) {
      await this.mail(request.id, to, content, {
        inReplyTo: this.threadId(request, to),
        references: this.threadId(request, to),
      });
    }
  }

  /** A policy reminder: the approval mail again, marked as a reminder, to those who have not decided yet. */
  async remind(request: ConfirmationRequest, card: CardRef): Promise<void> {
    if (request.status !== 'pending') return;
    for (const to of await this.notActed(request, parseMessageRef(card.messageRef))) {
      await this.mail(request.id, to, this.approval(request, to, true), {
        inReplyTo: this.threadId(request, to),
        references: this.threadId(request, to),
      });
    }
  }

  /** Mounts `GET`/`POST /channels/email/a/:token`. */
  mount(router: Router, host: ChannelHost): void {
    this.host = host;
    mountEmailRoutes(router, {
      host,
      signer: this.signer,
      used: this.used,
      publicOrigin: new URL(this.options.publicUrl).origin,
      logger: this.logger,
    });
  }

  async start(host: ChannelHost): Promise<void> {
    this.host ??= host;
  }

  async stop(): Promise<void> {
    this.transport.close();
  }

  private approval(request: ConfirmationRequest, to: string, reminder = false): MailContent {
    const links = {
      approve: this.linkFor(request, to, 'approve'),
      deny: this.linkFor(request, to, 'deny'),
      recipient: to,
    };
    return approvalMail(request, links, {
      maxArgsChars: this.options.maxArgsChars,
      publicUrl: this.options.publicUrl,
      reminder,
    });
  }

  /** The Message-ID of a recipient's approval mail: derived, so later mails thread under it with nothing stored. */
  private threadId(request: ConfirmationRequest, to: string): string {
    return `<tollgate.${request.id}.${createHash('sha256').update(to).digest('hex').slice(0, 16)}@${this.domain}>`;
  }

  /** The recipients whose person has not approved or denied the request (through any channel). */
  private async notActed(request: ConfirmationRequest, recipients: string[]): Promise<string[]> {
    const directory = this.host?.directory?.();
    const personOf = (account: string) => directory?.personOf(account) ?? account;
    const events = this.host ? await this.host.events(request.id) : [];
    const acted = new Set(
      events.filter((e) => (e.type === 'approved' || e.type === 'denied') && e.actor).map((e) => personOf(e.actor!)),
    );
    if (request.respondedBy) acted.add(personOf(request.respondedBy));
    return recipients.filter((to) => !acted.has(personOf(`email:${to}`)));
  }

  private async mail(
    requestId: string,
    to: string,
    content: MailContent,
    thread: { messageId?: string; inReplyTo?: string; references?: string },
  ): Promise<void> {
    try {
      await this.transport.sendMail({
        from: this.options.from,
        to,
        subject: content.subject,
        text: content.text,
        html: content.html,
        ...thread,
        // Auto-Submitted keeps out-of-office replies away; the request id lets a mailbox rule find the thread.
        headers: { 'Auto-Submitted': 'auto-generated', 'X-Tollgate-Request': requestId },
      });
    } catch (error) {
      throw toChannelError(error, to);
    }
  }
}

/** Creates the email channel. */
export function createEmailChannel(options: EmailChannelOptions): EmailChannel {
  return new EmailChannel(options);
}
