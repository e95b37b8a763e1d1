/**
 * A hand-written fake of Discord on 127.0.0.1 (port 0), for the real `@discordjs/rest` client: the REST routes
 * tollgate calls (`POST /channels/{id}/messages`, `PATCH /channels/{id}/messages/{id}`, `POST /users/@me/channels`)
 * under `/api/v10`, answered as Discord does (JSON error bodies with a numeric `code`, 401 without
 * `Authorization: Bot <token>`, 50035 Invalid Form Body for a message that breaks a limit, 429 + Retry-After), with
 * every call recorded and every version of every message kept. It also plays Discord's side of the interactions
 * endpoint: {@link FakeDiscord.interact} signs an interaction, posts it, and applies an UPDATE_MESSAGE answer to the
 * message as Discord would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageProblem, visibleText } from './message-rules.js';
import { DiscordSigner, type SignOptions } from './signer.js';

type Json = Record<string, unknown>;

/** One REST call the fake received. */
export interface RecordedCall {
  method: string;
  /** The path after `/api/v10`, e.g. `/channels/1100/messages`. */
  path: string;
  body: Json;
  /** The `Authorization` header as sent, or null. */
  authorization: string | null;
}

/** One posted message and its versions (the first as posted, the last as shown now). */
export interface FakeMessage {
  channelId: string;
  id: string;
  versions: Json[];
}

/** What to answer instead of success. */
export type FakeFailure = { status: 429; retryAfterS: number } | { status: number; code?: number; message?: string };

/** What an interaction post returned. */
export interface InteractionResult {
  status: number;
  /** The parsed JSON answer (null when it was not JSON). */
  body: Json | null;
}

/** The fake Discord. */
export class FakeDiscord {
  readonly calls: RecordedCall[] = [];
  /** The application's key: signs interactions. */
  readonly signer = new DiscordSigner();
  private readonly messages = new Map<string, FakeMessage>();
  private readonly dms = new Map<string, string>();
  private readonly failures: FakeFailure[] = [];
  private counter = 1_200_000_000_000_000_000n;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly token: string,
  ) {}

  /** Starts a fake that accepts the bot `token`. */
  static async start(options: { token?: string } = {}): Promise<FakeDiscord> {
    let fake: FakeDiscord | null = null;
    const server = createServer((req, res) => void fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeDiscord(server, `http://127.0.0.1:${port}`, options.token ?? 'fake-bot-token');
    return fake;
  }

  /** The value for `DISCORD_API_URL`. */
  get apiUrl(): string {
    return `${this.url}/api`;
  }

  /** Makes the next `times` REST calls fail with `failure`. */
  failNext(failure: FakeFailure, times = 1): void {
    for (let i = 0; i < times; i++) this.failures.push(failure);
  }

  /** Calls of `method` (`POST`, `PATCH`) whose path matches, oldest first. */
  callsTo(method: string, path: RegExp): RecordedCall[] {
    return this.calls.filter((c) => c.method === method && path.test(c.path));
  }

  /** Every message, in the order posted. */
  allMessages(): FakeMessage[] {
    return [...this.messages.values()];
  }

  /** A message by reference (`<channel id>:<message id>`). */
  message(ref: string): FakeMessage | undefined {
    return this.messages.get(ref);
  }

  /** The latest version of a message as a reader sees it. */
  card(ref: string): { text: string; actionable: boolean; body: Json } | null {
    const latest = this.messages.get(ref)?.versions.at(-1);
    if (!latest) return null;
    return {
      text: visibleText(latest),
      actionable: ((latest.components as unknown[] | undefined) ?? []).length > 0,
      body: latest,
    };
  }

  /** The DM channel id the fake opened for `userId`, if any. */
  dmChannel(userId: string): string | undefined {
    return this.dms.get(userId);
  }

  /**
   * Posts an interaction to the gateway's endpoint `url` as Discord does (signed unless `sign` bends it), and applies
   * an UPDATE_MESSAGE answer to `message` like Discord. Returns the answer.
   */
  async interact(
    url: string,
    payload: Json,
    message?: FakeMessage,
    sign: SignOptions = {},
  ): Promise<InteractionResult> {
    const response = await this.signer.post(url, payload, sign);
    const text = await response.text();
    let body: Json | null = null;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = null;
    }
    if (response.ok && message && body?.type === 7) {
      const data = (body.data ?? {}) as Json;
      const problem = messageProblem(data);
      if (problem) throw new Error(`Discord would refuse this UPDATE_MESSAGE: ${problem}`);
      message.versions.push({ ...message.versions.at(-1), ...data });
    }
    return { status: response.status, body };
  }

  /** Stops the server. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private nextId(): string {
    this.counter += 1n;
    return String(this.counter);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', this.url).pathname.replace(/^\/api\/v\d+/, '');
    const body = raw ? (JSON.parse(raw) as Json) : {};
    const authorization = req.headers.authorization ?? null;
    this.calls.push({ method: req.method ?? '', path, body, authorization });
    if (authorization !== `Bot ${this.token}`) return replyJson(res, { message: '401: Unauthorized', code: 0 }, 401);
    const failure = this.failures.shift();
    if (failure) return fail(res, failure);
    const post = /^\/channels\/(\d+)\/messages$/.exec(path);
    const patch = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (req.method === 'POST' && path === '/users/@me/channels') {
      const recipient = String(body.recipient_id ?? '');
      if (!/^\d+$/.test(recipient)) return replyJson(res, { message: 'Invalid Form Body', code: 50035 }, 400);
      const id = this.dms.get(recipient) ?? this.nextId();
      this.dms.set(recipient, id);
      return replyJson(res, { id, type: 1, recipients: [{ id: recipient, username: `user${recipient}` }] });
    }
    if (req.method === 'POST' && post) {
      const problem = messageProblem(body);
      if (problem) return replyJson(res, { message: 'Invalid Form Body', code: 50035, errors: problem }, 400);
      const message: FakeMessage = { channelId: post[1]!, id: this.nextId(), versions: [body] };
      this.messages.set(`${message.channelId}:${message.id}`, message);
      return replyJson(res, { id: message.id, channel_id: message.channelId, ...body });
    }
    if (req.method === 'PATCH' && patch) {
      const message = this.messages.get(`${patch[1]}:${patch[2]}`);
      if (!message) return replyJson(res, { message: 'Unknown Message', code: 10008 }, 404);
      const problem = messageProblem(body);
      if (problem) return replyJson(res, { message: 'Invalid Form Body', code: 50035, errors: problem }, 400);
      message.versions.push({ ...message.versions.at(-1), ...body });
      return replyJson(res, { id: message.id, channel_id: message.channelId, ...message.versions.at(-1) });
    }
    replyJson(res, { message: '404: Not Found', code: 0 }, 404);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function fail(res: ServerResponse, failure: FakeFailure): void {
  if (failure.status === 429 && 'retryAfterS' in failure) {
    res.setHeader('retry-after', String(failure.retryAfterS));
    return replyJson(
      res,
      { message: 'You are being rate limited.', retry_after: failure.retryAfterS, global: false },
      429,
    );
  }
  const f = failure as { status: number; code?: number; message?: string };
  replyJson(res, { message: f.message ?? 'upstream trouble', code: f.code ?? 0 }, f.status);
}

function replyJson(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
