/**
 * A real SMTP server for tests (`smtp-server` on 127.0.0.1, port 0) that keeps every mail it accepts, parsed with
 * `mailparser`. It speaks plain SMTP with AUTH PLAIN/LOGIN over the clear connection (no STARTTLS offered, so
 * nodemailer needs no certificate), checks the credentials of the URL it hands out, and can be told to answer the
 * next deliveries with a reply code (4xx, 5xx) or to close, the way a relay refuses a mail.
 */
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One mail the server accepted. */
export interface ReceivedMail {
  /** Envelope recipients (RCPT TO), lower case. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string | null;
  inReplyTo: string | null;
  headers: Map<string, unknown>;
  /** Every approval link in the plain-text part, in order (Approve first). */
  links: string[];
  /** When it arrived (ms since the epoch, real time). */
  at: number;
}

/** A refusal waiting for the next deliveries. */
interface Refusal {
  code: number;
  message: string;
  remaining: number;
}

/** The fake relay. */
export class FakeSmtp {
  readonly mails: ReceivedMail[] = [];
  /** Every delivery attempt (RCPT TO), accepted or not. */
  attempts = 0;
  private refusal: Refusal | null = null;

  private constructor(
    private readonly server: SMTPServer,
    /** `smtp://user:pass@127.0.0.1:<port>`. */
    readonly url: string,
  ) {}

  /** Starts a server that accepts `user`/`pass` (random ones when not given). */
  static async start(
    credentials: { user: string; pass: string } = { user: 'tollgate', pass: 'relay-secret' },
  ): Promise<FakeSmtp> {
    let fake: FakeSmtp | null = null;
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === credentials.user && auth.password === credentials.pass)
          return callback(null, { user: auth.username });
        callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      },
      onRcptTo(_address, _session, callback) {
        fake!.attempts += 1;
        const refusal = fake!.refusal;
        if (refusal && refusal.remaining > 0) {
          refusal.remaining -= 1;
          return callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
        }
        callback();
      },
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            const text = parsed.text ?? '';
            fake!.mails.push({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: addressText(parsed.from),
              subject: parsed.subject ?? '',
              text,
              html: typeof parsed.html === 'string' ? parsed.html : '',
              messageId: parsed.messageId ?? null,
              inReplyTo: parsed.inReplyTo ?? null,
              headers: parsed.headers,
              links: [...text.matchAll(/https?:\/\/\S+\/channels\/email\/a\/[\w.-]+/g)].map((m) => m[0]),
              at: Date.now(),
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.server.address() as AddressInfo;
    fake = new FakeSmtp(
      server,
      `smtp://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.pass)}@127.0.0.1:${port}`,
    );
    return fake;
  }

  /** Answers the next `times` recipients with `code message` (e.g. 451 greylisting, 550 no such user). */
  refuseNext(code: number, message: string, times = 1): void {
    this.refusal = { code, message, remaining: times };
  }

  /** The mails to `address`, oldest first. */
  mailsTo(address: string): ReceivedMail[] {
    return this.mails.filter((m) => m.to.includes(address.toLowerCase()));
  }

  /** The mails about request `id` (by the `X-Tollgate-Request` header), oldest first. */
  mailsAbout(id: string): ReceivedMail[] {
    return this.mails.filter((m) => m.headers.get('x-tollgate-request') === id);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** An `smtp://` URL of a port nothing listens on: a relay that is down (connection refused). */
export async function deadSmtpUrl(): Promise<string> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `smtp://127.0.0.1:${port}`;
}

function addressText(from: AddressObject | AddressObject[] | undefined): string {
  if (!from) return '';
  return (Array.isArray(from) ? from : [from]).map((a) => a.text).join(', ');
}
